export { appRouter } from './root.ts';
export type { AppRouter } from './root.ts';
export { buildOpenApiDocument, API_BASE_PATH } from './openapi.ts';
export { APP_ERROR_STATUS, authorizeRequest, createCallerFactory, PUBLIC_PROCEDURES } from './trpc.ts';
export type { Meta } from './trpc.ts';
export { parseCookies } from './context.ts';
export type { ApiServices, AuthLevel, Caller, RequestContext } from './context.ts';
export { responseMeta } from './response-meta.ts';
