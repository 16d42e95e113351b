import { describe, expect, it } from 'vitest';
import { cleanQuestion, flattenHeadings, renderFaq, sourceLink } from './render.ts';

describe('FAQ Markdown', () => {
  it('writes each pair as a "## Question?" heading, its answer and its sources, linked when they have an address', () => {
    const sources = new Map([
      ['a', { title: 'Menus', url: 'https://docs.example.com/menus (v2)/' }],
      ['b', { title: 'Front [matter]' }],
    ]);
    const content = renderFaq(
      [
        { question: 'How do I define menus', answer: 'Use the menus key.', documentIds: ['a', 'b'] },
        { question: '## What is front matter?\n', answer: '# Front matter\n\nMetadata.\n\n```md\n# not a heading\n```', documentIds: ['b', 'gone'] },
      ],
      sources,
      'en',
    );
    expect(content).toBe(
      '## How do I define menus?\n\nUse the menus key.\n\nSources: [Menus](https://docs.example.com/menus%20%28v2%29/); Front \\[matter\\]\n\n' +
        '## What is front matter?\n\n**Front matter**\n\nMetadata.\n\n```md\n# not a heading\n```\n\nSources: Front \\[matter\\]\n',
    );
    expect(renderFaq([{ question: 'Wie?', answer: 'So.', documentIds: ['b'] }], sources, 'de')).toContain('Quellen: Front');
  });

  it('cleans questions and links', () => {
    expect(cleanQuestion('  Comment faire ?  ')).toBe('Comment faire ?');
    expect(cleanQuestion('What is it.')).toBe('What is it?');
    expect(cleanQuestion('')).toBe('');
    expect(sourceLink({ title: 'A *b*' })).toBe('A \\*b\\*');
    expect(flattenHeadings('~~~\n## kept\n~~~\n### Made bold ###')).toBe('~~~\n## kept\n~~~\n**Made bold**');
  });
});
