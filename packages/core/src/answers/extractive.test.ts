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

  it('leads with the sentences that answer, in document order, cited inline, with no sources line', () => {
    const text = answer('What is the default port of the server?', [SERVER]);
    expect(text).toBe('The default port is 1313. [1]');
    expect(text).not.toContain('Sources');
    expect(text).not.toContain('live reload');
  });

  it('ends with links to the sections quoted, with their anchors, when the documents have addresses', () => {
    const linked = { ...SERVER, url: 'https://docs.example.com/server/' };
    const text = answer('What is the default port of the server?', [linked]);
    expect(text).toMatch(/The default port is 1313\. \[1\]\n\nRead more: \[Server › Options\]\(https:\/\/docs\.example\.com\/server\/#options\) \[1\]\.$/);
  });

  it('quotes a sentence once when a list item it quotes says it too', () => {
    const bundles = passage(
      'Page bundles > Branch bundles',
      `Analogous to a physical branch, a branch bundle may have descendants including leaf bundles and other branch bundles.

Page bundles are either leaf bundles or branch bundles:

- **leaf bundle**: a directory with an \`index.md\` file. It has no descendants.
- **branch bundle**: a directory with an \`_index.md\` file. Analogous to a physical branch, a branch bundle may have descendants including leaf bundles and other branch bundles.
`,
    );
    const text = answer('What is the difference between a leaf bundle and a branch bundle?', [bundles]);
    expect(text).toContain('**branch bundle**: a directory with an `_index.md` file.');
    expect(text.match(/Analogous to a physical branch/g)).toHaveLength(1);
  });

  it('links a section by the id its author gave its heading, shown without it', () => {
    const custom = { ...SERVER, headingPath: 'Server > Options {#server-options}', url: 'https://docs.example.com/server/' };
    const text = answer('What is the default port of the server?', [custom]);
    expect(text).toMatch(/Read more: \[Server › Options\]\(https:\/\/docs\.example\.com\/server\/#server-options\) \[1\]\.$/);
  });

  it("links a PDF's section by its page, as its source does, which PDF viewers open at", () => {
    const pdf = { ...SERVER, url: 'https://docs.example.com/server.pdf', page: 3 };
    const text = answer('What is the default port of the server?', [pdf]);
    expect(text).toMatch(/Read more: \[Server › Options\]\(https:\/\/docs\.example\.com\/server\.pdf#page=3\) \[1\]\.$/);
  });

  it('cites a section ending in code on a line of its own', () => {
    const code = passage('Run > Server', 'Run the development server:\n\n```sh\nhugo server\n```\n');
    expect(answer('How do I run the development server?', [code])).toBe('Run the development server:\n\n```sh\nhugo server\n```\n\n[1]');
  });

  it('keeps the answer short: a few units and about a hundred words of prose', () => {
    const sentences = Array.from({ length: 40 }, (_, i) => `The server option number ${i} changes how the server renders page ${i} of the site.`);
    const text = answer('How do server options change the site?', [passage('Server > Many', sentences.join(' '))]);
    expect(text.split(/\s+/).length).toBeLessThan(130);
  });

  it('brings the code block a chosen sentence introduces', () => {
    const text = answer('How do I start the development server?', [SERVER]);
    expect(text).toContain('Start it with the hugo server command:\n\n```sh\nhugo server --port 8080\n```');
  });

  it('brings the next paragraph’s first sentence after a sentence that ends its paragraph, within the word budget', () => {
    const schema = passage(
      'Metadata > OpenAPI URL',
      'By default, the OpenAPI schema is served at the path /openapi.json on every application.\n\nBut you can configure it with the parameter `openapi_url`. Other options follow later.\n\nUnrelated closing words here.',
    );
    const text = answer('Where is the OpenAPI schema served by default?', [schema]);
    expect(text).toContain('served at the path /openapi.json on every application.\n\nBut you can configure it with the parameter `openapi_url`.');
    // One sentence only, and none once the budget is spent.
    expect(text).not.toContain('Unrelated');
    const tight = extractAnswer({ question: 'Where is the OpenAPI schema served by default?', query: 'Where is the OpenAPI schema served by default?', language: 'en', passages: [schema] }, { maxWords: 16 });
    expect(tight.fragments.join('')).not.toContain('openapi_url');
  });

  it('prefers, among sentences holding the question’s words alike, the one that names something in code', () => {
    const cache = passage(
      'Configuration > Cache',
      'The cache directory of the project can be changed in the configuration file when the default location does not suit your machine. ' +
        'Set `cacheDir` in the configuration file to change the cache directory to another location on your machine for every build.',
    );
    const question = 'How do I change the cache directory?';
    const text = extractAnswer({ question, query: question, language: 'en', passages: [cache] }, { maxUnits: 1 }).fragments.join('');
    expect(text).toContain('Set `cacheDir` in the configuration file');
    expect(text).not.toContain('can be changed in the configuration file');
  });

  it('brings the sentence that introduces a chosen list item, and a table row’s header', () => {
    // The whole list comes, not only the matching item.
    expect(answer('How do I turn off live reload?', [SERVER])).toContain('Useful flags include:\n\n- `--buildDrafts` includes drafts\n- `--disableLiveReload` turns live reload off');
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

  it('writes the passage that bears best on the question first, each in document order', () => {
    const other = passage('Deploy > Netlify', 'Netlify builds the site on every push. The site is served from the Netlify server.');
    const result = extractAnswer({ question: 'Which server serves the site?', query: 'Which server serves the site?', language: 'en', passages: [SERVER, other] });
    const text = result.fragments.join('');
    expect(result.quoted[0]!.headingPath).toBe('Deploy > Netlify');
    expect(text).toMatch(/^The site is served from the Netlify server\. \[1\]/);
    expect(result.passages.map((p) => p.title)).toEqual(['Deploy', 'Server']);
  });

  it('names as sources every passage retrieval found, those quoted first, then those holding the question’s terms', () => {
    const menus = passage('Menus > Define', 'To create a menu, define its entries in your project configuration.');
    const frontMatter = passage('Front matter > Menus', 'To create a menu entry for a page, define the menu in its front matter.');
    const unrelated = passage('Deploy > Netlify', 'Netlify builds the site on every push.');
    const result = extractAnswer({ question: 'How do I create a menu?', query: 'How do I create a menu?', language: 'en', passages: [unrelated, menus, frontMatter] }, { maxSections: 1 });
    expect(result.quoted.map((p) => p.headingPath)).toEqual(['Menus > Define']);
    expect(result.passages.map((p) => p.headingPath)).toEqual(['Menus > Define', 'Front matter > Menus', 'Deploy > Netlify']);
  });

  it('quotes a procedure whole: every step numbered in order, with the code inside the steps', () => {
    const steps = passage(
      'Host on GitHub Pages > Procedure',
      [
        'Follow these steps to publish your site:',
        '',
        '1. Create a repository named after your site.',
        '1. Push your local repository to GitHub:',
        '',
        '   ```sh',
        '   git push origin main',
        '   ```',
        '',
        '1. Visit the settings page of your repository and choose GitHub Actions as the source.',
        '',
        'Wait for the first build to finish.',
      ].join('\n'),
    );
    const text = answer('How do I create a repository for GitHub Pages?', [steps]);
    expect(text).toContain(
      'Follow these steps to publish your site:\n\n1. Create a repository named after your site.\n2. Push your local repository to GitHub:\n\n   ```sh\n   git push origin main\n   ```\n\n3. Visit the settings page',
    );
  });

  it('quotes a long list whole without it crowding out the other sentences that answer', () => {
    const items = Array.from({ length: 10 }, (_, i) => `- The ${['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa'][i]} option takes a value between one and ten and changes the layout of every rendered page in the project`);
    items[3] = '- The cache option sets where processed images are stored between builds';
    const content = ['Options you can set:', '', ...items, '', 'The cache directory is emptied by hugo --gc, which removes processed images no longer used.'].join('\n');
    const text = answer('Where are processed images of the cache stored, and how is the cache emptied?', [passage('Images > Cache', content)]);
    expect(text).toContain('- The kappa option');
    expect(text).toContain('The cache directory is emptied by hugo --gc');
  });

  it('writes definition lists as terms with their definitions, and resolves reference links', () => {
    const content = [
      'Follow the steps below to enable syntax highlighting.',
      '',
      'Step 1',
      ': Set the `source-highlighter` attribute in your [project configuration][config].',
      '',
      'Step 2',
      ': Generate the highlighter CSS with the [`hugo gen chromastyles`][] command.',
      '',
      'See [`Menus`] and [the reference][ref].',
      '',
      '[config]: /configuration/',
      '[`hugo gen chromastyles`]: https://gohugo.io/commands/hugo_gen_chromastyles/',
      '[ref]: https://example.com/ref',
    ].join('\n');
    const texts = segmentPassage(content, 0).map((u) => u.text);
    expect(texts).toContain('- **Step 1**: Set the `source-highlighter` attribute in your project configuration.');
    expect(texts).toContain('- **Step 2**: Generate the highlighter CSS with the [`hugo gen chromastyles`](https://gohugo.io/commands/hugo_gen_chromastyles/) command.');
    expect(texts).toContain('See `Menus` and [the reference](https://example.com/ref).');
  });

  it('reads code shortcodes as code, and never ends on a sentence whose block is missing', () => {
    const content = [
      'Create a partial template to render the menu:',
      '',
      '{{< code file=layouts/_partials/menu.html >}}',
      '<nav>{{ range site.Menus.main }}{{ .Name }}{{ end }}</nav>',
      '{{< /code >}}',
      '',
      'To render the footer menu, call the partial with the footer menu:',
    ].join('\n');
    const units = segmentPassage(content, 0);
    expect(units.map((u) => u.kind)).toEqual(['sentence', 'code', 'sentence']);
    expect(units[1]!.text).toBe('```html\n<nav>{{ range site.Menus.main }}{{ .Name }}{{ end }}</nav>\n```');
    const text = answer('How do I render the footer menu?', [passage('Menus > Render', content)]);
    expect(text).not.toContain('call the partial with the footer menu:');
  });

  it('does not refuse a passage that answers because the question words something differently', () => {
    // "preview" and "postponed" are in no passage: they weigh nothing, and the sentence that holds
    // the rest of the question answers.
    const text = answer('which flag includes drafts in the preview, postponed or not?', [SERVER]);
    expect(text).toContain('`--buildDrafts` includes drafts');
  });

  it('says plainly when nothing relevant was found, in the answer’s language when it can', () => {
    expect(answer('What is the airspeed velocity of a swallow?', [SERVER])).toBe('I could not find anything in the knowledge base that answers this question.');
    expect(answer('quantum chromodynamics', [], 'fr-CA')).toBe("Je n'ai rien trouvé dans la base de connaissances qui réponde à cette question.");
    const result = extractAnswer({ question: 'swallow velocity', query: 'swallow velocity', language: 'en', passages: [SERVER] });
    expect(result.passages).toEqual([]);
    expect(result.answered).toBe(false);
  });

  it('decides on the knowledge base’s word frequencies when it has them: rare words weigh, unknown ones do not', () => {
    const question = 'which port does the preview server listen on?';
    // "port" is rare in the knowledge base, "server" common, "preview" in no chunk: the unit
    // holding "port" and "server" holds nearly all the weight, and "preview" does not count against it.
    const common = { chunks: 1000, frequencies: new Map([['port', 3], ['server', 400], ['preview', 0], ['listen', 10]]) };
    const found = extractAnswer({ question, query: question, language: 'en', passages: [SERVER], wordFrequencies: common });
    expect(found.answered).toBe(true);
    expect(found.fragments.join('')).toContain('`--port` | port to listen on');
    // The same passages for a question whose rare words they do not hold: the closest pages, said so.
    const other = 'take card payments on the server';
    const payments = { chunks: 1000, frequencies: new Map([['take', 50], ['card', 2], ['payments', 0], ['server', 400]]) };
    const refused = extractAnswer({ question: other, query: other, language: 'en', passages: [SERVER], wordFrequencies: payments });
    expect(refused.answered).toBe(false);
    expect(refused.fragments.join('')).toBe('I could not find anything in the knowledge base that answers this question. The closest pages the search found are listed in the sources.');
    expect(refused.passages.map((p) => p.title)).toEqual(['Server']);
  });

  it('weighs the message over the terms a follow-up took from the conversation', () => {
    const install = passage(
      'Install',
      '## Install\n\nOn macOS, install Hugo with Homebrew: `brew install hugo`.\n\nOn Windows, install Hugo with winget: `winget install Hugo.Hugo`.\n',
    );
    const text = extractAnswer({ question: 'and on Windows?', query: 'and on Windows? install hugo macos', language: 'en', passages: [install] }).fragments.join('');
    expect(text).toContain('winget install Hugo.Hugo');
    expect(text).not.toContain('brew');
    // A sentence naming code earns no bonus for the conversation's words alone.
    const block = passage('Install', '## Install\n\nOn macOS, install Hugo with Homebrew: `brew install hugo`.\n\nOn Windows, install Hugo with winget:\n\n```sh\nwinget install Hugo.Hugo\n```\n');
    const blockText = extractAnswer({ question: 'and on Windows?', query: 'and on Windows? install hugo macos', language: 'en', passages: [block] }).fragments.join('');
    expect(blockText).toContain('winget install Hugo.Hugo');
    expect(blockText).not.toContain('brew');
  });

  it('answers alike whether its passages were cut before, at other positions, or not', () => {
    const deploy = passage('Deploy > Rsync', 'Copy the public directory to the server with rsync. The server then serves the site.');
    const ask = (passages: Passage[]) => extractAnswer({ question: 'How does the server serve the site?', query: 'How does the server serve the site?', language: 'en', passages });
    const fresh = ask([SERVER, deploy]);
    ask([deploy, SERVER]);
    expect(ask([SERVER, deploy])).toEqual(fresh);
    expect(fresh.quoted.length).toBeGreaterThan(0);
  });

  it('is deterministic', () => {
    const runs = new Set(Array.from({ length: 5 }, () => answer('How do I start the server on another port?', [SERVER])));
    expect(runs.size).toBe(1);
  });
});
