import { describe, expect, it } from 'vitest';
import { splitDocument } from '../prepare.ts';
import { chunkMarkdown } from './chunk.ts';
import { fragmentMarker, markFragment, stripFragmentMarkers } from './fragments.ts';
import type { ChunkedDocument } from './types.ts';

const children = (doc: ChunkedDocument) => doc.parents.flatMap((p) => p.children.map((c) => ({ content: c.content, fragment: c.fragment })));
const page = (...parts: string[]) => parts.join('');

describe('included fragments through chunking', () => {
  it("makes a fragment's text children of its own that name it, never merged with the page's own text", () => {
    // Each piece is far below the smallest child: without the fragment they would make one child.
    const doc = chunkMarkdown({
      title: 'Menus',
      content: page('# Menus\n\nUse these properties:\n', markFragment('`name`\n: The name.', '_common/props.md'), '\nMore of the page.\n'),
    });
    expect(children(doc)).toEqual([
      { content: 'Use these properties:', fragment: undefined },
      { content: '`name`\n: The name.', fragment: '_common/props.md' },
      { content: 'More of the page.', fragment: undefined },
    ]);
    // The section, the context of its children, reads as the page does, without the markers.
    expect(doc.parents[0]!.content).not.toContain('kb:fragment');
    expect(doc.parents[0]!.content).toContain('Use these properties:');
    expect(doc.parents[0]!.content).toContain('`name`\n: The name.');
  });

  it('cuts a fragment the same way in every page that includes it', () => {
    const fragment = Array.from({ length: 30 }, (_, i) => `Option ${i} sets the ${i}th thing of the site build, see the list.`).join('\n\n');
    const a = chunkMarkdown({ title: 'A', content: page('# A\n\nShort intro of page A.\n', markFragment(fragment, 'opts.md')) });
    const b = chunkMarkdown({ title: 'B', content: page('# B\n\n', 'A much longer introduction of page B. '.repeat(20), '\n', markFragment(fragment, 'opts.md'), '\nAfter.\n') });
    const copies = (doc: ChunkedDocument) => children(doc).filter((c) => c.fragment === 'opts.md').map((c) => c.content);
    expect(copies(a).length).toBeGreaterThan(1);
    expect(copies(b)).toEqual(copies(a));
    expect(children(b).filter((c) => c.fragment === undefined).every((c) => !c.content.includes('Option'))).toBe(true);
  });

  it('names the innermost fragment, through headings, and keeps markers out of every chunk', () => {
    const inner = markFragment('Inner text of the nested fragment.', 'b.md');
    const outer = markFragment(page('Outer text before.\n', inner, '\n## Outer heading\n\nOuter text after.'), 'a.md');
    const doc = chunkMarkdown({ title: 'P', content: page('# P\n\nOwn.\n', outer, '\nOwn again.\n') });
    expect(children(doc)).toEqual([
      { content: 'Own.', fragment: undefined },
      { content: 'Outer text before.', fragment: 'a.md' },
      { content: 'Inner text of the nested fragment.', fragment: 'b.md' },
      { content: 'Outer text after.', fragment: 'a.md' },
      { content: 'Own again.', fragment: undefined },
    ]);
    for (const parent of doc.parents) expect(parent.content).not.toContain('<!--');
  });

  it('takes a marker for one only as a block of its own: in code or in a sentence it is text', () => {
    const code = '```html\n<!-- kb:fragment x.md -->\n```';
    expect(children(chunkMarkdown({ title: 'T', content: `Intro.\n\n${code}\n\nAfter.\n` })).every((c) => c.fragment === undefined)).toBe(true);
    expect(fragmentMarker('Text <!-- kb:fragment x.md -->')).toBeNull();
    expect(fragmentMarker('<!-- kb:fragment-end -->')).toBe('close');
    expect(fragmentMarker(' <!-- kb:fragment a%20b.md --> ')).toEqual({ open: 'a b.md' });
    // A closing marker without an opening one closes nothing.
    expect(children(chunkMarkdown({ title: 'T', content: 'A.\n\n<!-- kb:fragment-end -->\n\nB.\n' }))).toEqual([
      { content: 'A.', fragment: undefined },
      { content: 'B.', fragment: undefined },
    ]);
  });

  it('keeps the fragment on the stored children, and takes the markers out of the reader\'s text', () => {
    const split = splitDocument({ title: 'P', content: page('# P\n\nOwn text.\n', markFragment('Shared text.', 's.md'), '\n') });
    expect(split.children.map((c) => [c.content, c.fragment])).toEqual([
      ['Own text.', undefined],
      ['Shared text.', 's.md'],
    ]);
    expect(stripFragmentMarkers(page('A.\n', markFragment('B.', 's.md'), '\nC.\n'))).toBe('A.\n\nB.\n\nC.\n');
  });
});
