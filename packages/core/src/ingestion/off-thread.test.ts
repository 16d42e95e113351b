import { describe, expect, it } from 'vitest';
import { splitsOffThread } from './ingestion.service.ts';

describe('splitsOffThread', () => {
  it('sends documents of 16 KB or of 1,000 line breaks or more to the worker pool', () => {
    expect(splitsOffThread('# Title\n\nA short page.\n')).toBe(false);
    expect(splitsOffThread('x'.repeat(16 * 1024))).toBe(true);
    expect(splitsOffThread('x'.repeat(16 * 1024 - 1))).toBe(false);
    expect(splitsOffThread('# h\n'.repeat(999))).toBe(false);
    expect(splitsOffThread('# h\n'.repeat(1_000))).toBe(true);
    expect(splitsOffThread(`${'# h\n'.repeat(999)}# last`)).toBe(false);
    expect(splitsOffThread(`${'# h\r\n'.repeat(1_000)}`)).toBe(true);
  });
});
