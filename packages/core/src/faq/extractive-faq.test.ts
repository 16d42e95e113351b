import { describe, expect, it } from 'vitest';
import { estimateTokens } from '@kb/content';
import type { Passage } from '../answers/types.ts';
import { buildExtractiveFaq } from './extractive-faq.ts';

let ordinal = 0;
const passage = (documentId: string, headingPath: string, content: string): Passage => ({
  documentId,
  title: headingPath.split(' > ')[0]!,
  slug: documentId,
  namespace: 'user_docs',
  headingPath,
  content,
  ordinal: ordinal++,
  score: 1,
  tokens: estimateTokens(content),
});

const MENUS: Passage[] = [
  passage('menus', 'Menus', '# Menus\n\nHugo menus are lists of links that a template renders.'),
  passage('menus', 'Menus > Define menus in front matter', "## Define menus in front matter\n\nTo add a page to the main menu, set `menus = 'main'` in its front matter."),
  passage('menus', 'Menus > Render menus', '## Render menus\n\nUse the `site.Menus` method in a template to render a menu. To render a nested menu, range over the children of each entry.'),
  passage('menus', 'Menus > Menu entry properties', '## Menu entry properties\n\nEach menu entry has a name, a URL and a weight. Entries are sorted by weight, then by name.'),
  passage('menus', 'Menus > Example', "## Example\n\nA site with a main menu and a footer menu defines both:\n\n```toml\n[[menus.main]]\nname = 'Home'\n```"),
  passage('menus', 'Menus > Localize menus', '## Localize menus\n\nTo translate menu entries, use translation tables keyed by the identifier of each menu entry.'),
  passage('cache', 'Caching > Cache lifetime', '## Cache lifetime\n\nSet `cache.ttl` to the number of seconds a page stays cached.'),
];

describe('the extractive FAQ', () => {
  it('asks the questions the sections answer, each answered from its own section', () => {
    const pairs = buildExtractiveFaq({ topic: 'menus', language: 'en', passages: MENUS });
    expect(pairs.map((p) => p.question)).toEqual([
      'What are menus?',
      'How do I define menus in front matter?',
      'How do I render menus?',
      'What are menu entry properties?',
      'What is an example of menus?',
      'How do I localize menus?',
    ]);
    // The sections' purpose sentences ("To render a nested menu, ...") are already in these answers.
    const render = pairs.find((p) => p.question === 'How do I render menus?')!;
    expect(render.answer).toContain('Use the `site.Menus` method in a template to render a menu.');
    expect(render.answer).not.toContain('front matter');
    expect(pairs.find((p) => p.question === 'What is an example of menus?')!.answer).toContain("[[menus.main]]\nname = 'Home'");
    expect(pairs.every((p) => p.documentIds.length === 1 && p.documentIds[0] === 'menus')).toBe(true);
  });

  it('answers the topic first when it is a question, and is deterministic', () => {
    const input = { topic: 'How do I render a menu?', language: 'en', passages: MENUS };
    const pairs = buildExtractiveFaq(input);
    expect(pairs[0]).toMatchObject({ question: 'How do I render a menu?', answer: expect.stringContaining('site.Menus') });
    expect(buildExtractiveFaq(input)).toEqual(pairs);
  });

  it('makes nothing from passages that are not about the topic', () => {
    expect(buildExtractiveFaq({ topic: 'kubernetes helm charts', language: 'en', passages: MENUS })).toEqual([]);
    expect(buildExtractiveFaq({ topic: 'the and of', language: 'en', passages: MENUS })).toEqual([]);
    expect(buildExtractiveFaq({ topic: 'menus', language: 'en', passages: [] })).toEqual([]);
  });

  it('never pads: a topic with two sections gets two pairs', () => {
    const pairs = buildExtractiveFaq({ topic: 'cache lifetime', language: 'en', passages: MENUS });
    expect(pairs.map((p) => p.question)).toEqual(['What is the cache lifetime?']);
  });

  it('leaves long listings out of answers, and drops an answer that only introduces one', () => {
    const listing = Array.from({ length: 30 }, (_, i) => `option${i} = ${i}`).join('\n');
    const pairs = buildExtractiveFaq({
      topic: 'server options',
      language: 'en',
      passages: [
        passage('server', 'Server > Server options', `## Server options\n\nThe server options are these:\n\n\`\`\`toml\n${listing}\n\`\`\``),
        passage('server', 'Server > Server ports', '## Server ports\n\nThe server options include the port, 1313 by default.'),
      ],
    });
    expect(pairs.map((p) => p.question)).toEqual(['What are server ports?']);
    expect(pairs[0]!.answer).not.toContain('option29');
  });

  it('keeps to the FAQ language when the knowledge base has the topic in it', () => {
    const pairs = buildExtractiveFaq({
      topic: 'menus',
      language: 'en',
      passages: [...MENUS.slice(0, 3), passage('menus-fr', 'Menus > Définir les menus', '## Définir les menus\n\nPour définir un menu, ajoutez ses entrées.')],
      passageLanguages: ['en', 'en', 'en', 'fr'],
    });
    expect(pairs.map((p) => p.question)).not.toContain('Comment définir les menus ?');
    expect(pairs.some((p) => p.documentIds.includes('menus-fr'))).toBe(false);
  });
});
