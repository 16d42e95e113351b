/**
 * An FAQ as Markdown: each pair a `## Question?` heading, its answer, and a line naming the pages
 * it draws on (linked when the document has an address). Answers cannot break that structure: a
 * heading line inside an answer (outside code) becomes bold text.
 */
import { extractivePhrases } from '../answers/extractive.ts';
import type { Source } from '../answers/types.ts';
import type { FaqPair } from './types.ts';

/** A question on one line, without heading markers, ending with a question mark. */
export function cleanQuestion(question: string): string {
  const text = question.replace(/\s+/g, ' ').replace(/^[#\s>*-]+/, '').trim();
  if (text === '') return '';
  return /[?？]$/.test(text) ? text : `${text.replace(/[.。:：]+$/u, '')}?`;
}

/** An answer whose heading lines (outside code fences) are bold text instead. */
export function flattenHeadings(answer: string): string {
  let fence: string | undefined;
  return answer
    .split('\n')
    .map((line) => {
      const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (marker) {
        if (fence === undefined) fence = marker[0]!.repeat(marker.length);
        else if (marker.startsWith(fence)) fence = undefined;
        return line;
      }
      if (fence !== undefined) return line;
      const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
      return heading ? `**${heading[1]}**` : line;
    })
    .join('\n')
    .trim();
}

/** A document's title as link text, or as plain text when it has no address. */
export function sourceLink(source: Pick<Source, 'title' | 'url'>): string {
  const title = source.title.replace(/\s+/g, ' ').trim().replace(/([\\[\]*_`<>])/g, '\\$1');
  if (!source.url) return title;
  // Parentheses and spaces would end the link's destination.
  const url = source.url.replace(/[()\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return `[${title}](${url})`;
}

/** The FAQ's Markdown. `sources` holds every document the pairs name. */
export function renderFaq(pairs: readonly FaqPair[], sources: ReadonlyMap<string, Pick<Source, 'title' | 'url'>>, language: string): string {
  const label = extractivePhrases(language).sources;
  return pairs
    .map((pair) => {
      const named = pair.documentIds.map((id) => sources.get(id)).filter((s): s is Pick<Source, 'title' | 'url'> => s !== undefined);
      const line = named.length > 0 ? `\n\n${label}: ${named.map(sourceLink).join('; ')}` : '';
      return `## ${cleanQuestion(pair.question)}\n\n${flattenHeadings(pair.answer)}${line}`;
    })
    .join('\n\n')
    .concat('\n');
}
