import { z } from 'zod';
import { chatInput } from './schemas.ts';

type Schema = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const SSE_EXAMPLE = [
  'data: {"type":"meta","conversationId":"2c8f1a6e-0b94-4d37-b5a2-e9f0c1d8a376","messageId":"8d4b7e21-6c3a-4f95-b0d8-2e1f9a7c5b63","sources":[{"title":"Rotating API keys","documentId":"7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48","slug":"guides/rotating-keys","namespace":"user_docs"}]}',
  'data: {"type":"chunk","text":"Create the new key, deploy it, "}',
  'data: {"type":"chunk","text":"then revoke the old one [1]."}',
  'data: [DONE]',
  '',
].join('\n\n');

/**
 * POST /chat, written by hand: trpc-to-openapi cannot describe an event stream. The request
 * body is the procedures' own schema; the events and the JSON answer reference ChatSource, which
 * the generated document holds (the conversations listing uses it). Its errors and the JSON
 * example come from the chat procedure's meta, as every operation's do.
 */
export function addChatPath(document: { paths?: Record<string, unknown>; components?: { schemas?: Record<string, unknown> } }): void {
  document.components ??= {};
  const schemas = (document.components.schemas ??= {});
  const { $schema: _schema, ...request } = z.toJSONSchema(chatInput, { io: 'input', unrepresentable: 'any' }) as Schema;
  schemas.ChatRequest = request;
  schemas.ChatMetaEvent = {
    type: 'object',
    description: "First event: the conversation, the answer's id (for feedback) and the documents the answer draws on, best first",
    properties: {
      type: { const: 'meta' },
      conversationId: { type: 'string' },
      messageId: { type: 'string', description: "The answer's id: POST /chat/feedback names it" },
      sources: { type: 'array', items: ref('ChatSource') },
    },
    required: ['type', 'conversationId', 'messageId', 'sources'],
  };
  schemas.ChatChunkEvent = {
    type: 'object',
    description: 'A fragment of the answer (Markdown), to be concatenated in order',
    properties: { type: { const: 'chunk' }, text: { type: 'string' } },
    required: ['type', 'text'],
  };
  schemas.ChatErrorEvent = {
    type: 'object',
    description: 'The answer failed after the stream started; data: [DONE] follows',
    properties: { type: { const: 'error' }, message: { type: 'string' } },
    required: ['type', 'message'],
  };
  schemas.ChatStreamEvent = {
    description: 'One event of the stream, by its type',
    oneOf: [ref('ChatMetaEvent'), ref('ChatChunkEvent'), ref('ChatErrorEvent')],
    discriminator: {
      propertyName: 'type',
      mapping: { meta: '#/components/schemas/ChatMetaEvent', chunk: '#/components/schemas/ChatChunkEvent', error: '#/components/schemas/ChatErrorEvent' },
    },
  };
  schemas.ChatAnswer = {
    type: 'object',
    properties: {
      conversationId: { type: 'string' },
      messageId: { type: 'string', description: "The answer's id: POST /chat/feedback names it" },
      answer: { type: 'string', description: 'Markdown' },
      sources: { type: 'array', items: ref('ChatSource') },
      language: { type: 'string', description: 'BCP 47 tag of the answer' },
    },
    required: ['conversationId', 'messageId', 'answer', 'sources', 'language'],
  };
  document.paths ??= {};
  document.paths['/chat'] = {
    post: {
      operationId: 'chat',
      summary: 'Answer a question from the knowledge base, streamed as Server-Sent Events (or as JSON with stream: false)',
      description:
        'Each event is a line "data: <JSON>" and a blank line: first a meta event, then chunk events in order, and the literal "data: [DONE]" last. ' +
        'A failure after the stream started sends an error event before [DONE]. Comment lines (": ping") keep an idle stream open every 15 s. ' +
        'Validation, authentication, rate limits and an unknown conversationId are JSON errors before the stream starts.',
      tags: ['chat'],
      security: [{ Authorization: [] }, { AdminSession: [] }],
      requestBody: { required: true, content: { 'application/json': { schema: ref('ChatRequest') } } },
      responses: {
        '200': {
          description: 'The answer: an event stream, or one JSON object when stream is false',
          content: {
            'text/event-stream': {
              schema: { type: 'string', description: 'data: lines each carrying a ChatStreamEvent as JSON, then data: [DONE]' },
              // OpenAPI 3.2 names the schema of each event itemSchema; this document is 3.1, where
              // only an extension may carry it.
              'x-itemSchema': ref('ChatStreamEvent'),
              example: SSE_EXAMPLE,
            },
            'application/json': { schema: ref('ChatAnswer') },
          },
        },
      },
    },
  };
}
