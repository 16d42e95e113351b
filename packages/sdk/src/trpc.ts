import type { AppRouter } from '@kb/api';
import { createTRPCClient, httpBatchLink, type TRPCClient } from '@trpc/client';

export interface KbTrpcClientOptions {
  /** The service's address, such as `http://localhost:3000` (`/trpc` is added). */
  baseUrl: string;
  /** An API key (`kb_...`). */
  apiKey?: string;
  fetch?: typeof fetch;
  headers?: Record<string, string>;
}

/** Calls a batch may hold: the service refuses larger batches (MAX_TRPC_BATCH). */
const MAX_BATCH = 10;

/**
 * A tRPC client typed by the service's router, for TypeScript apps that can resolve `@kb/api`
 * (the same monorepo): the router's type is imported as a type only, never its code.
 */
export function createKbTrpcClient(options: KbTrpcClientOptions): TRPCClient<AppRouter> {
  const headers = { ...options.headers, ...(options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {}) };
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${options.baseUrl.replace(/\/+$/, '')}/trpc`,
        maxItems: MAX_BATCH,
        headers: () => headers,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    ],
  });
}

export type KbTrpcClient = TRPCClient<AppRouter>;
export type { AppRouter };
