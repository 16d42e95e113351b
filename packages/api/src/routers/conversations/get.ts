import { z } from 'zod';
import { maxChars } from '../../schemas.ts';
import { principalOf, procedure } from '../../trpc.ts';
import { conversationSchema } from './list.ts';

export const getConversation = procedure
  .meta({
    auth: 'apiKey',
    publishable: 'read',
    openapi: {
      method: 'GET',
      path: '/conversations/{id}',
      tags: ['chat'],
      summary: 'A conversation with its messages and the votes on its answers',
      description: 'For the key (or admin session) that started it; admins read any. Another key\'s conversation is a 404, as an unknown one.',
      protect: true,
    },
    errors: { 404: 'No such conversation (or one another key started)' },
    example: {
      input: { id: '2c8f1a6e-0b94-4d37-b5a2-e9f0c1d8a376' },
      output: {
        id: '2c8f1a6e-0b94-4d37-b5a2-e9f0c1d8a376',
        language: 'en',
        sources: ['user_docs'],
        createdAt: '2026-11-24T10:00:00.000Z',
        updatedAt: '2026-11-24T10:00:04.000Z',
        messages: [
          { id: '9a4d7e21-3c5b-4f80-a1e6-b2c9d0f7e814', role: 'user', content: 'How do I rotate an API key?', sources: [], createdAt: '2026-11-24T10:00:00.000Z' },
          {
            id: 'e6b0c3f9-1d47-4a2e-8c5b-7f3a9d2e0c61',
            role: 'assistant',
            content: 'Create the new key, deploy it, then revoke the old one [1].',
            sources: [{ title: 'Rotating API keys', documentId: '7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48', slug: 'guides/rotating-keys', namespace: 'user_docs' }],
            createdAt: '2026-11-24T10:00:04.000Z',
            feedback: { rating: 'up', reasons: [], note: null, createdAt: '2026-11-24T10:01:00.000Z', updatedAt: '2026-11-24T10:01:00.000Z' },
          },
        ],
      },
    },
  })
  .input(z.strictObject({ id: maxChars(z.string().min(1), 100) }))
  .output(conversationSchema)
  .query(({ ctx, input }) => ctx.services.conversations.get(input.id, principalOf(ctx)));
