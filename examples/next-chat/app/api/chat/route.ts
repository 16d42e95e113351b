import { createKbClient } from '@kb/sdk';
import { kbChatResponse, lastUserText, type KbUIMessage } from '@kb/sdk/ai';

const kb = createKbClient({ baseUrl: process.env.KB_URL ?? 'http://localhost:3000', apiKey: process.env.KB_API_KEY });

/** useChat posts the messages; kb keeps the conversation, so only the last question and its id are sent. */
export async function POST(request: Request): Promise<Response> {
  const { messages } = (await request.json()) as { messages: KbUIMessage[] };
  const conversationId = messages.findLast((m) => m.role === 'assistant')?.metadata?.conversationId;
  return kbChatResponse(kb, { message: lastUserText(messages), ...(conversationId ? { conversationId } : {}) }, { signal: request.signal });
}
