import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

/** The committed contract the types are made from. */
export const DOCUMENT_FILE = fileURLToPath(new URL('../../api/openapi.json', import.meta.url));
/** The generated types, committed beside the hand-written client. */
export const TYPES_FILE = fileURLToPath(new URL('../src/generated/openapi.ts', import.meta.url));

const HEADER = '// Generated from packages/api/openapi.json by `pnpm generate` (openapi-typescript). Do not edit.\n\n';

/** The TypeScript types of the committed OpenAPI document, as the generate script writes them. */
export async function generatedTypes(): Promise<string> {
  const document = JSON.parse(readFileSync(DOCUMENT_FILE, 'utf8')) as Parameters<typeof openapiTS>[0];
  const ast = await openapiTS(document, { alphabetize: false, exportType: false });
  return HEADER + astToString(ast);
}
