import { describe, expect, it } from 'vitest';
import { displayHeadingPath, headingAnchor, headingText, sourcesOf, type Passage } from './types.ts';

const passage = (fields: Partial<Passage>): Passage => ({
  documentId: 'd1',
  title: 'Install Hugo',
  slug: 'install',
  namespace: 'user_docs',
  headingPath: 'Install Hugo',
  content: 'text',
  ordinal: 0,
  score: 1,
  tokens: 1,
  ...fields,
});

describe('sources', () => {
  it('gives each document once, best first, with the heading of its first section, and its anchor when it has a link', () => {
    const sources = sourcesOf([
      passage({ headingPath: 'Install Hugo > Linux > Snap package', url: 'https://gohugo.io/installation/linux/' }),
      passage({ headingPath: 'Install Hugo > macOS', url: 'https://gohugo.io/installation/linux/' }),
      passage({ documentId: 'd2', title: 'Menus', slug: 'menus', headingPath: 'Menus', url: 'https://gohugo.io/content-management/menus/' }),
      passage({ documentId: 'd3', title: 'Notes', slug: 'notes', headingPath: 'Notes > Setup' }),
    ]);
    expect(sources).toEqual([
      { title: 'Install Hugo', documentId: 'd1', slug: 'install', namespace: 'user_docs', url: 'https://gohugo.io/installation/linux/', anchor: 'snap-package', section: 'Snap package' },
      { title: 'Menus', documentId: 'd2', slug: 'menus', namespace: 'user_docs', url: 'https://gohugo.io/content-management/menus/' },
      { title: 'Notes', documentId: 'd3', slug: 'notes', namespace: 'user_docs', section: 'Setup' },
    ]);
  });

  it("cites a PDF's page: anchor page=N with its link, and the page either way", () => {
    expect(
      sourcesOf([
        passage({ headingPath: 'Install Hugo > Linux', url: 'https://docs.example.com/install.pdf', page: 7 }),
        passage({ documentId: 'd2', title: 'Scan', slug: 'scan.pdf', headingPath: 'Scan > Part', page: 2 }),
      ]),
    ).toEqual([
      { title: 'Install Hugo', documentId: 'd1', slug: 'install', namespace: 'user_docs', url: 'https://docs.example.com/install.pdf', anchor: 'page=7', section: 'Linux', page: 7 },
      { title: 'Scan', documentId: 'd2', slug: 'scan.pdf', namespace: 'user_docs', section: 'Part', page: 2 },
    ]);
  });

  it('makes anchors as GitHub and Hugo do', () => {
    expect(headingAnchor('Front matter: Title & Date')).toBe('front-matter-title--date');
    expect(headingAnchor('  Écrire des menus ')).toBe('écrire-des-menus');
    expect(headingAnchor('`hugo server` flags')).toBe('hugo-server-flags');
    expect(headingAnchor('snake_case and kebab-case')).toBe('snake_case-and-kebab-case');
  });

  it("takes the id an author gave a heading ({#id}, as Hugo, Docusaurus, Pandoc and kramdown write it), and shows the heading without it", () => {
    expect(headingAnchor('Configuration {#configuration-open-graph}')).toBe('configuration-open-graph');
    expect(headingAnchor('Options {#server-options .wide data-x="a b" data-y=1}')).toBe('server-options');
    expect(headingText('Options {#server-options .wide data-x="a b" data-y=1}')).toBe('Options');
    // Not an attribute block: an unclosed quote, a number.
    expect(headingText('Options {#x data-x="a b}')).toBe('Options {#x data-x="a b}');
    expect(headingText('Set x {.5}')).toBe('Set x {.5}');
    // Long or malformed blocks cost time in proportion to their length.
    expect(headingText(`Title {${'.a'.repeat(50_000)} !}`)).toBe(`Title {${'.a'.repeat(50_000)} !}`);
    expect(headingText(`Title {${'.a '.repeat(50_000)}!}`)).toBe(`Title {${'.a '.repeat(50_000)}!}`);
    expect(headingText(`Title {${'a="" '.repeat(50_000)}"}`)).toBe(`Title {${'a="" '.repeat(50_000)}"}`);
    expect(headingAnchor(`Title {#${'a'.repeat(100_000)}}`)).toBe('a'.repeat(100_000));
    expect(headingAnchor('Install {: #install-linux}')).toBe('install-linux');
    expect(headingText('Configuration {#configuration-open-graph}')).toBe('Configuration');
    // A class alone gives no id: the default anchor of the text.
    expect(headingAnchor('Notes {.aside}')).toBe('notes');
    // Braces that are not an attribute block are the heading's text.
    expect(headingText('Use {{ .Title }} in templates')).toBe('Use {{ .Title }} in templates');
    expect(headingAnchor('The {name} placeholder')).toBe('the-name-placeholder');
    expect(headingText('Map {a: 1}')).toBe('Map {a: 1}');
    expect(displayHeadingPath('Embedded templates > Open Graph > Configuration {#configuration-open-graph}')).toBe('Embedded templates > Open Graph > Configuration');
    expect(
      sourcesOf([passage({ headingPath: 'Embedded templates > Metadata {#metadata-x-cards}', url: 'https://gohugo.io/templates/embedded/' })]),
    ).toEqual([
      { title: 'Install Hugo', documentId: 'd1', slug: 'install', namespace: 'user_docs', url: 'https://gohugo.io/templates/embedded/', anchor: 'metadata-x-cards', section: 'Metadata' },
    ]);
  });
});
