import { SERVICE_VERSION } from '@kb/core';
import { buildOpenApiDocument } from './openapi.ts';

/** Where the committed document lives, beside this package's manifest. */
export const OPENAPI_FILE = new URL('../openapi.json', import.meta.url);

/** The document as it is committed: the service's version, paths relative to /api/v1, two-space JSON. */
export function openApiFileText(): string {
  return `${JSON.stringify(buildOpenApiDocument({ version: SERVICE_VERSION }), null, 2)}\n`;
}
