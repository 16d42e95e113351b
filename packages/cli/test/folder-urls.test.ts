import { describe, expect, it } from 'vitest';
import { aliasUrls, fileFilter, pageUrl, validTemplate } from '../src/commands/folder-urls.ts';
import { documentFor } from '../src/commands/ingest-folder.ts';

const hugo = { baseUrl: 'https://gohugo.io/', stripPrefix: 'content/en', template: '{dir}/{name}/' };

describe('page links of a folder', () => {
  it('maps a docs site: prefix stripped, extension dropped, index files standing for their folder', () => {
    expect(pageUrl('content/en/templates/404.md', {}, hugo)).toEqual({ url: 'https://gohugo.io/templates/404/', origin: 'template' });
    expect(pageUrl('content/en/templates/_index.md', {}, hugo)?.url).toBe('https://gohugo.io/templates/');
    expect(pageUrl('content/en/about/index.md', {}, hugo)?.url).toBe('https://gohugo.io/about/');
    expect(pageUrl('content/en/_index.md', {}, hugo)?.url).toBe('https://gohugo.io/');
    // A file outside the prefix keeps its whole path.
    expect(pageUrl('other/x.md', {}, hugo)?.url).toBe('https://gohugo.io/other/x/');
    expect(pageUrl('a b/c.md', {}, { baseUrl: 'https://d.example.com/v2', template: '{path}' })?.url).toBe('https://d.example.com/v2/a%20b/c.md');
    expect(pageUrl('guide/install.md', {}, { baseUrl: 'https://d.example.com/docs/', template: '{dir}/{name}.html' })?.url).toBe(
      'https://d.example.com/docs/guide/install.html',
    );
  });

  it('prefers front matter: url (site-relative or absolute), then slug for the name', () => {
    expect(pageUrl('content/en/x.md', { url: '/special/page/' }, hugo)).toEqual({ url: 'https://gohugo.io/special/page/', origin: 'front-matter' });
    expect(pageUrl('content/en/x.md', { url: 'https://elsewhere.example.com/a/' }, hugo)?.url).toBe('https://elsewhere.example.com/a/');
    expect(pageUrl('content/en/news/x.md', { slug: 'hello-world' }, hugo)?.url).toBe('https://gohugo.io/news/hello-world/');
    expect(pageUrl('content/en/news/bundle/index.md', { slug: 'renamed' }, hugo)?.url).toBe('https://gohugo.io/news/renamed/');
    expect(aliasUrls({ aliases: ['/extras/menus/', 'https://old.example.com/m'] }, 'https://gohugo.io/')).toEqual([
      'https://gohugo.io/extras/menus/',
      'https://old.example.com/m',
    ]);
  });

  it('without a template, joins the base URL with the path, and says where the link came from', () => {
    expect(pageUrl('content/en/templates/404.md', {}, { baseUrl: 'https://gohugo.io/' })).toEqual({
      url: 'https://gohugo.io/content/en/templates/404.md',
      origin: 'path',
    });
    expect(validTemplate('{dir}/{name}/')).toBe(true);
    expect(validTemplate('{folder}/{name}')).toBe(false);
  });

  it('documents carry the mapped link and their aliases', () => {
    const doc = documentFor('/site', '/site/content/en/content-management/menus.md', '---\ntitle: Menus\naliases: [/extras/menus/]\n---\n# Menus\n', {
      baseUrl: 'https://gohugo.io/',
      stripPrefix: 'content/en',
      urlTemplate: '{dir}/{name}/',
    });
    expect(doc).toMatchObject({
      slug: 'content/en/content-management/menus.md',
      metadata: { url: 'https://gohugo.io/content-management/menus/', aliases: ['https://gohugo.io/extras/menus/'] },
      urlOrigin: 'template',
    });
  });
});

describe('lower-case links', () => {
  const lower = { ...hugo, lowerCase: true };
  it('lower-cases the address made from the path and slug, as site generators publish it', () => {
    expect(pageUrl('content/en/methods/site/Menus.md', {}, lower)?.url).toBe('https://gohugo.io/methods/site/menus/');
    expect(pageUrl('content/en/Functions/_index.md', {}, lower)?.url).toBe('https://gohugo.io/functions/');
    expect(pageUrl('content/en/news/x.md', { slug: 'Hello-World' }, lower)?.url).toBe('https://gohugo.io/news/hello-world/');
    expect(pageUrl('Guide/Install.md', {}, { baseUrl: 'https://d.example.com/Docs/', lowerCase: true })?.url).toBe('https://d.example.com/Docs/guide/install.md');
  });

  it('keeps a front matter url as written, and the case of file names when not asked', () => {
    expect(pageUrl('content/en/X.md', { url: '/Special/Page/' }, lower)?.url).toBe('https://gohugo.io/Special/Page/');
    expect(pageUrl('content/en/methods/site/Menus.md', {}, hugo)?.url).toBe('https://gohugo.io/methods/site/Menus/');
  });

  it('is what documents get by default with a URL template, and not without one', () => {
    const file = '/site/content/en/methods/site/Menus.md';
    expect(documentFor('/site', file, '# Menus\n', { baseUrl: 'https://gohugo.io/', stripPrefix: 'content/en', urlTemplate: '{dir}/{name}/' }).metadata?.['url']).toBe(
      'https://gohugo.io/methods/site/menus/',
    );
    expect(
      documentFor('/site', file, '# Menus\n', { baseUrl: 'https://gohugo.io/', stripPrefix: 'content/en', urlTemplate: '{dir}/{name}/', lowerCaseUrls: false }).metadata?.['url'],
    ).toBe('https://gohugo.io/methods/site/Menus/');
    expect(documentFor('/site', file, '# Menus\n', { baseUrl: 'https://gohugo.io/' }).metadata?.['url']).toBe('https://gohugo.io/content/en/methods/site/Menus.md');
  });
});

describe('which files a folder gives', () => {
  it('keeps included files, less excluded ones and those .kbignore lists (.gitignore rules)', () => {
    const wanted = fileFilter({ include: ['content/**'], exclude: ['_common/'], ignoreFile: '# fragments\n**/_drafts/*\n!keep.md\n' });
    expect(wanted('content/en/a.md')).toBe(true);
    expect(wanted('content/en/_common/frag.md')).toBe(false);
    expect(wanted('content/en/_drafts/x.md')).toBe(false);
    expect(wanted('README.md')).toBe(false);
    const all = fileFilter({});
    expect(all('anything/at/all.md')).toBe(true);
  });
});
