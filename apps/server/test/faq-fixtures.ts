/** Documents and helpers shared by the FAQ tests. */

export const MENUS = `# Menus

Hugo menus are lists of links that a template renders, such as a main menu or a footer menu.

## Define menus in front matter

To add a page to the main menu, set \`menus = 'main'\` in the front matter of the page.

## Define menus in the site configuration

To add an external link to a menu, define the entry under the \`menus\` key in the site configuration.

## Render menus

Use the \`site.Menus\` method in a template to render a menu. To render a nested menu, range over the children of each entry.

## Menu entry properties

Each menu entry has a name, a URL and a weight. Entries are sorted by weight, then by name.

## Localize menus

To translate menu entries, use translation tables keyed by the identifier of each menu entry.

## Example

A site with a main menu and a footer menu defines both under the menus key:

\`\`\`toml
[[menus.main]]
name = 'Home'
pageRef = '/'
\`\`\`
`;

export const CACHING = `# Caching

## Cache lifetime

Set \`cache.ttl\` to the number of seconds a page stays cached. The default is 300 seconds.

## Purge the cache

Call the purge endpoint to drop every cached page at once.
`;

export const MENUS_FR = `# Menus

## Définir les menus

Pour définir un menu, ajoutez ses entrées sous la clé menus de la configuration du site.

## Afficher les menus

Pour afficher un menu, utilisez la méthode site.Menus dans un modèle.
`;

/** The `## ` headings of an FAQ's Markdown (outside code). */
export function questionsOf(content: string): string[] {
  const questions: string[] = [];
  let fenced = false;
  for (const line of content.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced && line.startsWith('## ')) questions.push(line.slice(3));
  }
  return questions;
}
