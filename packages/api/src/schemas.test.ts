import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { maxChars, nonBlankText } from './schemas.ts';

describe('text limits', () => {
  it('counts characters as JSON Schema does: an emoji is one', () => {
    const schema = maxChars(z.string(), 3);
    expect(schema.safeParse('😀😀😀').success).toBe(true);
    expect(schema.safeParse('😀😀😀😀').success).toBe(false);
    expect(z.toJSONSchema(schema)).toMatchObject({ maxLength: 3 });
  });

  it('trims non-blank text, refuses blank text, and counts its length once trimmed', () => {
    const schema = nonBlankText(5);
    expect(schema.parse('  abc \n')).toBe('abc');
    expect(schema.safeParse(' \n\t ').success).toBe(false);
    expect(schema.parse('abcde\n')).toBe('abcde');
    expect(schema.safeParse('abcdef').success).toBe(false);
    expect(schema.safeParse(' 😀😀😀😀😀 ').success).toBe(true);
    expect(z.toJSONSchema(schema)).toMatchObject({ type: 'string', maxLength: 5, minLength: 1, pattern: '\\S' });
  });
});
