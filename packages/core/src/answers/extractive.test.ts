import { describe, expect, it } from 'vitest';
import { extractAnswer, segmentPassage } from './extractive.ts';
import type { Passage } from './types.ts';

function passage(headingPath: string, content: string, extra: Partial<Passage> = {}): Passage {
  return { documentId: `doc-${headingPath}`, title: headingPath.split(' > ')[0]!, slug: headingPath, namespace: 'user_docs', headingPath, content, ordinal: 0, score: 1, tokens: 100, ...extra };
}

const SERVER = passage(
  'Server > Options',
  `## Options

The development server watches your files and rebuilds the site. Start it with the hugo server command:

\`\`\`sh
hugo server --port 8080
\`\`\`

It serves the site from memory. The default port is 1313.

| flag | meaning |
|---|---|
| \`--port\` | port to listen on |
| \`--bind\` | interface to bind to |

Useful flags include:

- \`--buildDrafts\` includes drafts
- \`--disableLiveReload\` turns live reload off
`,
);

const answer = (question: string, passages: Passage[], language = 'en') =>
  extractAnswer({ question, query: question, language, passages }).fragments.join('');

describe('extractive answers', () => {
  it('cuts a section into sentences, code, table rows and list items', () => {
    const units = segmentPassage(SERVER.content, 0);
    expect(units.map((u) => u.kind)).toEqual(['sentence', 'sentence', 'code', 'sentence', 'sentence', 'row', 'row', 'sentence', 'item', 'item']);
  });

  it('quotes inline code verbatim, while links in the prose become their text and shortcodes go', () => {
    const content =
      'Call a shortcode with `{{</* figure src="a.png" */>}}` in any page. Menus live under `[[menus.main]]`, see [the menus page](menus.md). ' +
      'A ``literal `tick` `` stays {{< note >}}as written{{< /note >}}. Read [the guide](https://example.com/guide).';
    expect(segmentPassage(content, 0).map((u) => u.text)).toEqual([
      'Call a shortcode with `{{</* figure src="a.png" */>}}` in any page.',
      'Menus live under `[[menus.main]]`, see the menus page.',
      'A ``literal `tick` `` stays as written.',
      'Read [the guide](https://example.com/guide).',
    ]);
  });

  it('picks the sentences that answer, in document order, under their heading, naming the source', () => {
    const text = answer('What is the default port of the server?', [SERVER]);
    expect(text).toMatch(/^From the knowledge base:\n\n\*\*Server › Options\*\*\n\n/);
    expect(text).toContain('The default port is 1313.');
    expect(text).toMatch(/Sources: Server\.$/);
    expect(text).not.toContain('live reload');
  });

  it('brings the code block a chosen sentence introduces', () => {
    const text = answer('How do I start the development server?', [SERVER]);
    expect(text).toContain('Start it with the hugo server command:\n\n```sh\nhugo server --port 8080\n```');
  });

  it('brings the sentence that introduces a chosen list item, and a table row’s header', () => {
    expect(answer('How do I turn off live reload?', [SERVER])).toContain('Useful flags include:\n\n- `--disableLiveReload` turns live reload off');
    expect(answer('Which flag sets the interface to bind to?', [SERVER])).toContain('| flag | meaning |\n|---|---|\n| `--bind` | interface to bind to |');
  });

  it('quotes only the matching lines of a long code block', () => {
    const options = Array.from({ length: 30 }, (_, i) => `    --option${i} string   does thing ${i}`);
    options[17] = '-p, --port int        port on which the server will listen (default 1313)';
    const listing = passage('hugo server > Options', `## Options\n\n\`\`\`\n${options.join('\n')}\n\`\`\`\n`);
    const text = answer('Which port does the server listen on?', [listing]);
    expect(text).toContain('```\n-p, --port int        port on which the server will listen (default 1313)\n```');
    expect(text).not.toContain('option3 ');
  });

  it('keeps passages in their rank and each in document order', () => {
    const other = passage('Deploy > Netlify', 'Netlify builds the site on every push. The site is served from the Netlify server.');
    const text = answer('Which server serves the site?', [SERVER, other]);
    expect(text.indexOf('Server › Options')).toBeLessThan(text.indexOf('Deploy › Netlify'));
  });

  it('says plainly when nothing relevant was found, in the answer’s language when it can', () => {
    expect(answer('What is the airspeed velocity of a swallow?', [SERVER])).toBe('I could not find anything in the knowledge base that answers this question.');
    expect(answer('quantum chromodynamics', [], 'fr-CA')).toBe("Je n'ai rien trouvé dans la base de connaissances qui réponde à cette question.");
    const result = extractAnswer({ question: 'swallow velocity', query: 'swallow velocity', language: 'en', passages: [SERVER] });
    expect(result.passages).toEqual([]);
  });

  it('weighs the message over the terms a follow-up took from the conversation', () => {
    const install = passage(
      'Install',
      '## Install\n\nOn macOS, install Hugo with Homebrew: `brew install hugo`.\n\nOn Windows, install Hugo with winget: `winget install Hugo.Hugo`.\n',
    );
    const text = extractAnswer({ question: 'and on Windows?', query: 'and on Windows? install hugo macos', language: 'en', passages: [install] }).fragments.join('');
    expect(text).toContain('winget install Hugo.Hugo');
    expect(text).not.toContain('brew');
  });

  it('is deterministic', () => {
    const runs = new Set(Array.from({ length: 5 }, () => answer('How do I start the server on another port?', [SERVER])));
    expect(runs.size).toBe(1);
  });
});
