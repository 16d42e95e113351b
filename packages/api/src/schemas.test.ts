import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { maxChars, namespaceFilterSchema, nonBlankText } from './schemas.ts';

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

describe('namespace filters', () => {
  const messages = (input: unknown) => {
    const result = namespaceFilterSchema().safeParse(input);
    return result.success ? null : result.error.issues.map((issue) => issue.message);
  };

  it('take one namespace or a list of up to 4', () => {
    expect(namespaceFilterSchema().parse('wiki')).toBe('wiki');
    expect(namespaceFilterSchema().parse(['wiki', 'user_docs'])).toEqual(['wiki', 'user_docs']);
    expect(namespaceFilterSchema().parse([])).toEqual([]);
  });

  it('name the value outside the set, in either form, and the set', () => {
    expect(messages('intranet')).toEqual(['must be one of user_docs, tech_docs, api_endpoints, wiki (got "intranet")']);
    expect(messages(['wiki', 'intranet'])).toEqual(['must be one of user_docs, tech_docs, api_endpoints, wiki (got "intranet")']);
    expect(messages(['wiki', 7])).toEqual(['must be one of user_docs, tech_docs, api_endpoints, wiki (got 7)']);
    expect(messages(['wiki', 'wiki', 'wiki', 'wiki', 'wiki'])).toEqual(['must list at most 4 namespaces (got 5)']);
    expect(messages(12)).toEqual(['must be one of user_docs, tech_docs, api_endpoints, wiki, or a list of them (got 12)']);
  });
});
