import { z } from 'zod';
import { chatInput } from './schemas.ts';

type Schema = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function errorResponse(code: string, description: string, schemas: Record<string, unknown>): Schema {
  const name = `error.${code}`;
  return {
    description,
    content: { 'application/json': { schema: name in schemas ? ref(name) : { type: 'object', properties: { message: { type: 'string' }, code: { type: 'string' } } } } },
  };
}

/**
 * POST /chat, written by hand: trpc-to-openapi cannot describe an event stream. The request
 * body is the procedures' own schema; the events and the JSON answer reference ChatSource, which
 * the generated document holds (the conversations listing uses it).
 */
export function addChatPath(document: { paths?: Record<string, unknown>; components?: { schemas?: Record<string, unknown> } }): void {
  document.components ??= {};
  const schemas = (document.components.schemas ??= {});
  const { $schema: _schema, ...request } = z.toJSONSchema(chatInput, { io: 'input', unrepresentable: 'any' }) as Schema;
  schemas.ChatRequest = request;
  schemas.ChatMetaEvent = {
    type: 'object',
    description: 'First event: the conversation and the documents the answer draws on, best first',
    properties: { type: { const: 'meta' }, conversationId: { type: 'string' }, sources: { type: 'array', items: ref('ChatSource') } },
    required: ['type', 'conversationId', 'sources'],
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
  schemas.ChatAnswer = {
    type: 'object',
    properties: {
      conversationId: { type: 'string' },
      answer: { type: 'string', description: 'Markdown' },
      sources: { type: 'array', items: ref('ChatSource') },
      language: { type: 'string', description: 'BCP 47 tag of the answer' },
    },
    required: ['conversationId', 'answer', 'sources', 'language'],
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
              schema: { type: 'string', description: 'data: lines carrying ChatMetaEvent, ChatChunkEvent, ChatErrorEvent, then data: [DONE]' },
              itemSchema: { oneOf: [ref('ChatMetaEvent'), ref('ChatChunkEvent'), ref('ChatErrorEvent')] },
            },
            'application/json': { schema: ref('ChatAnswer') },
          },
        },
        '400': errorResponse('BAD_REQUEST', 'Invalid input (unknown fields are named)', schemas),
        '401': errorResponse('UNAUTHORIZED', 'Missing, unknown or revoked credentials', schemas),
        '404': errorResponse('NOT_FOUND', 'Unknown conversationId (or one another key started)', schemas),
        '429': errorResponse('TOO_MANY_REQUESTS', 'Rate limit exceeded (see Retry-After)', schemas),
        '500': errorResponse('INTERNAL_SERVER_ERROR', 'Internal server error', schemas),
        '503': errorResponse('SERVICE_UNAVAILABLE', 'The language model or the embedder is unavailable (stream: false)', schemas),
      },
    },
  };
}
