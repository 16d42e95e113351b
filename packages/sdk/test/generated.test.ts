import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedTypes, TYPES_FILE } from '../scripts/types.ts';

describe('the generated types', () => {
  it('are those of the committed OpenAPI document (regenerate with `pnpm generate`)', async () => {
    expect(readFileSync(TYPES_FILE, 'utf8'), 'packages/sdk/src/generated/openapi.ts is stale: run `pnpm generate`').toBe(await generatedTypes());
  });
});
