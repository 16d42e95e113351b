import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Markdown as MarkdownComponent } from '../src/markdown.tsx';

// The console's modules expect a page (its client is made for the page's origin).
vi.stubGlobal('window', { location: { origin: 'http://kb.test' } });

let Markdown: typeof MarkdownComponent;
beforeAll(async () => {
  ({ Markdown } = await import('../src/markdown.tsx'));
});

const html = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));

describe('the Markdown of answers and FAQs', () => {
  it('renders headings, lists, code, bold, italics and links as elements', () => {
    expect(html('## Title\n\n- one **bold**\n- two *it* `code`\n\n[site](https://example.com)')).toBe(
      '<div class="markdown"><h4>Title</h4><ul><li>one <strong>bold</strong></li><li>two <em>it</em> <code>code</code></li></ul>' +
        '<p><a href="https://example.com" target="_blank" rel="noopener noreferrer">site</a></p></div>',
    );
  });

  it('shows raw HTML as text and links only to http(s) addresses', () => {
    const out = html('<script>alert(1)</script> [x](javascript:alert(1)) <img src=x onerror=alert(2)>');
    expect(out).not.toContain('<script');
    expect(out).not.toContain('<img');
    expect(out).not.toContain('href="javascript');
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('shows backslash-escaped characters without their backslash, as the service escapes titles in FAQs', () => {
    // The FAQ names its pages with _, *, [, ], ` and < escaped (packages/core/src/faq/render.ts).
    expect(html('Sources: Deploying \\<script\\>; API\\_KEY\\_ROTATION; \\*draft\\*')).toBe(
      '<div class="markdown"><p>Sources: Deploying &lt;script&gt;; API_KEY_ROTATION; *draft*</p></div>',
    );
    expect(html('Sources: [The \\[beta\\] my\\_file guide](https://docs.test/a%28b%29)')).toBe(
      '<div class="markdown"><p>Sources: <a href="https://docs.test/a%28b%29" target="_blank" rel="noopener noreferrer">The [beta] my_file guide</a></p></div>',
    );
    // Inside code a backslash is itself.
    expect(html('`C:\\_dir`')).toBe('<div class="markdown"><p><code>C:\\_dir</code></p></div>');
  });

  it('keeps underscores inside words (environment variables, snake_case names) as they are', () => {
    expect(html('Set KB_ADMIN_PASSWORD and rate_limit_rpm, then _restart_ it.')).toBe(
      '<div class="markdown"><p>Set KB_ADMIN_PASSWORD and rate_limit_rpm, then <em>restart</em> it.</p></div>',
    );
    expect(html('**API_KEY_ROTATION** and __init__')).toBe('<div class="markdown"><p><strong>API_KEY_ROTATION</strong> and __init__</p></div>');
  });
});
