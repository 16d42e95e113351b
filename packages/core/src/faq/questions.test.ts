import { describe, expect, it } from 'vitest';
import { cleanHeading, headingQuestion, purposeQuestions } from './questions.ts';

const en = (headingPath: string, content = '') => headingQuestion({ headingPath, content, language: 'en' });

describe('questions from headings (English)', () => {
  it('turns instructions and gerunds into "how do I" questions, in the first person', () => {
    expect(en('Menus > Configure menus')).toBe('How do I configure menus?');
    expect(en('Install > Test your installation')).toBe('How do I test my installation?');
    expect(en('Hosting > Choosing a runner')).toBe('How do I choose a runner?');
    expect(en('XML > Working with XML')).toBe('How do I work with XML?');
    expect(en('Guide > How to deploy a site')).toBe('How do I deploy a site?');
    expect(en('Tasks > Using BackgroundTasks')).toBe('How do I use BackgroundTasks?');
  });

  it('reads nouns that look like verbs as nouns unless an article or preposition follows', () => {
    expect(en('Hugo > Build stats')).toBe('What are build stats?');
    expect(en('Pages > Sort order')).toBe('What is the sort order?');
    expect(en('Templates > Target a template')).toBe('How do I target a template?');
    expect(en('Search > Search results')).toBe('What are search results?');
  });

  it('completes an instruction with the section above when it has no object', () => {
    expect(en('Menus > Define in front matter')).toBe('How do I define menus in front matter?');
    expect(en('Menus > Define automatically')).toBe('How do I define menus automatically?');
    expect(en('Menus > Render', 'Use the site.Menus method.')).toBe('How do I render menus?');
  });

  it('asks what a noun phrase is, with "the" or "a" where English wants one', () => {
    expect(en('Multilingual > Language keys')).toBe('What are language keys?');
    expect(en('Output > Default handler')).toBe('What is the default handler?');
    expect(en('Highlighting > Syntax highlighting')).toBe('What is syntax highlighting?');
    expect(en('token', 'A token is an identifier within a format string.')).toBe('What is a token?');
    expect(en('Pagination', 'Pagination splits a list page.')).toBe('What is pagination?');
    expect(en('Menus', 'Menus are lists of links.')).toBe('What are menus?');
    expect(en('Tasks > Background Tasks', 'You can define background tasks.')).toBe('What are background tasks?');
  });

  it('keeps names and acronyms as the text writes them', () => {
    expect(en('Markdown', 'Hugo renders Markdown with Goldmark.')).toBe('What is Markdown?');
    expect(en('Hosting > GitHub Pages', 'Publish to GitHub Pages.')).toBe('What are GitHub Pages?');
    expect(en('Install Hugo > Linux', 'On Linux, install the snap package.')).toBe('How do I install Hugo on Linux?');
    expect(en('Install Hugo > Homebrew', 'Install it with Homebrew.')).toBe('How do I install Hugo with Homebrew?');
    expect(en('hugo completion bash > macOS', 'Run `hugo completion bash` on macOS.')).toBe('What is `hugo completion bash` for macOS?');
  });

  it('asks about a generic heading through the nearest specific heading above it', () => {
    expect(en('Menus > Example')).toBe('What is an example of menus?');
    expect(en('hugo server > Options', 'Run `hugo server --port 1313`.')).toBe('Which options does `hugo server` take?');
    expect(en('Create a project > Prerequisites')).toBe('What do I need before creating a project?');
    expect(en('Image processing > Usage')).toBe('How do I use image processing?');
    expect(en('Taxonomies > Overview')).toBe('What are taxonomies?');
    expect(en('Example')).toBeUndefined();
  });

  it('asks about single words within the section above, and about kinds of it', () => {
    expect(en('Front matter > Dates', 'Use one of these date formats.')).toBe('What are dates in front matter?');
    expect(en('Shortcodes > Embedded', 'Embedded shortcodes are templates.')).toBe('What are embedded shortcodes?');
    expect(en('BSD > Repository packages > NetBSD', 'NetBSD includes Hugo in its package repository.')).toBe('What are repository packages for NetBSD?');
  });

  it('quotes identifiers and commands as code', () => {
    expect(en('Functions > images.Process')).toBe('What is `images.Process`?');
    expect(en('hugo mod get', 'Run:\n\n```sh\nhugo mod get -u\n```')).toBe('What does `hugo mod get` do?');
    expect(en('Front matter > baseURL')).toBe('What is `baseURL` in front matter?');
  });

  it('keeps question headings, and skips navigation and boilerplate', () => {
    expect(en('Taxonomies > What is a taxonomy?')).toBe('What is a taxonomy?');
    expect(en('hugo server > SEE ALSO')).toBeUndefined();
    expect(en('Guide > Contents')).toBeUndefined();
    expect(en('Guide > 123')).toBeUndefined();
  });

  it('cleans anchors, numbering and "Method N --" prefixes', () => {
    expect(cleanHeading('Syntax highlighting {#syntax-highlighting-rst}')).toBe('Syntax highlighting');
    expect(cleanHeading('8. Limitation of Liability')).toBe('Limitation of Liability');
    expect(en('Menus > Method 2 -- Use a configuration directory')).toBe('How do I use a configuration directory?');
    expect(cleanHeading('Setup:')).toBe('Setup');
  });
});

describe('questions from headings (other languages)', () => {
  const q = (language: string, headingPath: string) => headingQuestion({ headingPath, content: '', language });

  it('asks how to do what an infinitive or imperative heading says', () => {
    expect(q('fr', "Guide > Utiliser le modèle { #use-the-model }")).toBe('Comment utiliser le modèle ?');
    expect(q('fr', 'Guide > Déclarez une variable comme étant une str')).toBe('Comment déclarer une variable comme étant une str ?');
    expect(q('es', 'Guía > Usa el modelo')).toBe('¿Cómo usar el modelo?');
    expect(q('es', 'Guía > Instalar manejadores de excepciones')).toBe('¿Cómo instalar manejadores de excepciones?');
    expect(q('pt', 'Guia > Verifique a documentação')).toBe('Como verificar a documentação?');
    expect(q('it', 'Guida > Usare il modello')).toBe('Come usare il modello?');
    expect(q('de', 'Anleitung > Das Modell verwenden')).toBe('Wie kann ich das Modell verwenden?');
    expect(q('de', 'Anleitung > Benutzerdefinierte Header hinzufügen')).toBe('Wie kann ich benutzerdefinierte Header hinzufügen?');
    expect(q('de', 'Anleitung > Deklarieren Sie eine Variable vom Typ str')).toBe('Wie kann ich eine Variable vom Typ str deklarieren?');
  });

  it('asks what a noun heading is, quoted, and about examples of the section above', () => {
    expect(q('fr', 'Guide > Tâches d’arrière-plan')).toBe('Qu\'est-ce que « Tâches d’arrière-plan » ?');
    expect(q('es', 'Guía > Tipos simples')).toBe('¿Qué es «Tipos simples»?');
    expect(q('de', 'Anleitung > Einfache Typen')).toBe('Was ist „Einfache Typen“?');
    expect(q('es', 'Modelos > Ejemplo')).toBe('¿Cuál es un ejemplo de «Modelos»?');
  });

  it('keeps the heading of any other language as the question', () => {
    expect(q('ja', 'ガイド > バックグラウンドタスク')).toBe('バックグラウンドタスク?');
  });
});

describe('questions from purpose sentences', () => {
  it('asks how to do what a "To ..., ..." sentence explains', () => {
    const sentences = [
      'Hugo does not clear the public directory.',
      'To publish your project to a different directory, use the --destination flag.',
      'If you want to disable the cache, set cache.ttl to 0.',
      'To be clear, this is rare.',
    ];
    expect(purposeQuestions(sentences, 'en', 5).map((q) => q.question)).toEqual([
      'How do I publish my project to a different directory?',
      'How do I disable the cache?',
    ]);
    expect(purposeQuestions(['Pour publier le site, lancez hugo.'], 'fr', 2)[0]?.question).toBe('Comment publier le site ?');
    expect(purposeQuestions(['Um den Cache zu leeren, rufen Sie purge auf.'], 'de', 2)[0]?.question).toBe('Wie kann ich den Cache leeren?');
  });
});
