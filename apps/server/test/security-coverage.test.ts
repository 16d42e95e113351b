import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { protectedProcedures } from './security.ts';

/** The procedures each route test file puts under the shared security cases. */
function proceduresUnderSecuritySuites(): Map<string, string[]> {
  const covered = new Map<string, string[]>();
  for (const file of readdirSync(import.meta.dirname).filter((f) => f.endsWith('.test.ts'))) {
    const source = readFileSync(join(import.meta.dirname, file), 'utf8');
    for (const call of source.matchAll(/securitySuite\(([\s\S]*?)\]\);/g)) {
      for (const [, name] of call[1]!.matchAll(/procedure: '([\w.]+)'/g)) covered.set(name!, [...(covered.get(name!) ?? []), file]);
    }
  }
  return covered;
}

describe('the shared security cases', () => {
  it('cover every procedure that needs credentials, in some route test file', () => {
    const covered = proceduresUnderSecuritySuites();
    const procedures = [...protectedProcedures().keys()];
    expect(procedures.length).toBeGreaterThan(0);
    expect(procedures.filter((name) => !covered.has(name)), 'procedures without security cases').toEqual([]);
    // A name that is not a protected procedure would fail its suite at once; none is listed twice.
    expect([...covered].filter(([, files]) => files.length > 1)).toEqual([]);
  });
});
