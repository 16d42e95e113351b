import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { generatedTypes, TYPES_FILE } from './types.ts';

// The document is regenerated first (by @kb/api's script); the types follow from it.
mkdirSync(dirname(TYPES_FILE), { recursive: true });
writeFileSync(TYPES_FILE, await generatedTypes());
console.log(`wrote ${relative(process.cwd(), TYPES_FILE)}`);
