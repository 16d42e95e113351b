/**
 * Claude's Messages API on loopback: chat answers stream slowly (so a server can be killed in the
 * middle of one), FAQ requests get a tool call naming the first passage. The full chat answer is
 * always the same text, so a stored answer can be told whole or cut short.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const ANSWER_PARTS = 12;
const PART_INTERVAL_MS = 120;

export function answerPart(n: number): string {
  return `Step ${n} of the procedure is described in the guide. `;
}

/** The whole streamed answer, as a stored complete answer must read. */
export const FULL_ANSWER = Array.from({ length: ANSWER_PARTS }, (_, i) => answerPart(i + 1)).join('');

export async function startFakeClaude(): Promise<{ url: string; close(): Promise<void> }> {
  const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = JSON.parse(body || '{}') as { stream?: boolean; tools?: unknown[] };
      if (!request.stream) {
        const pairs = Array.from({ length: 5 }, (_, i) => ({
          question: `How does part ${i + 1} of this topic work?`,
          answer: `It works as the guide says (${i + 1}).`,
          sources: ['1'],
        }));
        const message = {
          id: 'msg_faq',
          type: 'message',
          role: 'assistant',
          model: 'claude-fake',
          content: request.tools ? [{ type: 'tool_use', id: 'toolu_1', name: 'record_faq', input: { pairs } }] : [{ type: 'text', text: FULL_ANSWER }],
          stop_reason: request.tools ? 'tool_use' : 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 100, output_tokens: 50 },
        };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(message));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-fake', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }));
      res.write(event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
      let part = 0;
      const timer = setInterval(() => {
        part++;
        res.write(event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: answerPart(part) } }));
        if (part === ANSWER_PARTS) {
          clearInterval(timer);
          res.write(event('content_block_stop', { index: 0 }));
          res.write(event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 50 } }));
          res.end(event('message_stop', {}));
        }
      }, PART_INTERVAL_MS);
      res.on('close', () => clearInterval(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
