import { createParser } from 'eventsource-parser';

/** One event of the chat stream, or the end marker. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type StreamEvent = { type: 'meta'; conversationId: string; sources: any[] } | { type: 'chunk'; text: string } | { type: 'error'; message: string };

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
