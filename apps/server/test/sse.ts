import { createParser } from 'eventsource-parser';

/** One event of the chat stream, or the end marker. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type StreamEvent = { type: 'meta'; conversationId: string; messageId: string; sources: any[] } | { type: 'chunk'; text: string } | { type: 'error'; message: string };

export interface ReadStream {
  events: StreamEvent[];
  /** Whether `data: [DONE]` ended the stream. */
  done: boolean;
  /** What followed [DONE] (nothing should). */
  afterDone: number;
  comments: string[];
  /** The chunks' text, concatenated. */
  text: string;
}

/**
 * Reads a chat response's event stream with eventsource-parser. `until` stops reading (and
 * cancels the body) as soon as it returns true for an event read so far.
 */
export async function readStream(res: Response, until?: (events: StreamEvent[]) => boolean): Promise<ReadStream> {
  const result: ReadStream = { events: [], done: false, afterDone: 0, comments: [], text: '' };
  const parser = createParser({
    onEvent(message) {
      if (result.done) {
        result.afterDone++;
        return;
      }
      if (message.data === '[DONE]') {
        result.done = true;
        return;
      }
      const event = JSON.parse(message.data) as StreamEvent;
      result.events.push(event);
      if (event.type === 'chunk') result.text += event.text;
    },
    onComment(comment) {
      result.comments.push(comment);
    },
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
    if (until?.(result.events)) {
      await reader.cancel();
      break;
    }
  }
  return result;
}

/**
 * A POST over a plain socket, read until `until` holds for the raw response, then the socket is
 * destroyed: a client that goes away mid-stream. (A plain socket, because msw intercepts fetch
 * and http.request in these tests.)
 */
export async function postAndDisconnect(baseUrl: string, path: string, headers: Record<string, string>, body: unknown, until: (raw: string) => boolean): Promise<string> {
  const { connect } = await import('node:net');
  const url = new URL(baseUrl);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    let raw = '';
    const socket = connect(Number(url.port), url.hostname, () => {
      const lines = [`POST ${path} HTTP/1.1`, `Host: ${url.host}`, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(payload)}`];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n${payload}`);
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      raw += chunk;
      if (until(raw)) {
        socket.destroy();
        resolve(raw);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(raw));
  });
}
