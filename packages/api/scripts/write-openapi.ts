import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OPENAPI_FILE, openApiFileText } from '../src/openapi-file.ts';

// Regenerates the committed OpenAPI document from the router (the SDK's types are made from it).
writeFileSync(OPENAPI_FILE, openApiFileText());
console.log(`wrote ${fileURLToPath(OPENAPI_FILE)}`);
