import type { ReactNode } from 'react';
import { ExternalLink } from './ui.tsx';

/**
 * The Markdown of answers and FAQs as React elements: headings, paragraphs, lists, fenced code,
 * and inline code, bold, italics and links. Never HTML: raw tags show as text, so an answer
 * quoting a page cannot inject anything. A half-written answer (streaming) renders as it stands.
 */
export function Markdown({ text }: { text: string }) {
  return <div className="markdown">{blocks(text)}</div>;
}

/**
 * Inline tokens, the first found winning: a backslash escape (`\*` is a literal asterisk, as the
 * service writes titles holding `_`, `*`, `[` or `<`), code, bold, italics, a link (its text may
 * hold escaped brackets). Underscores inside a word (KB_ADMIN_PASSWORD, rate_limit) are not italics.
 */
const INLINE = /(\\[!-/:-@[-`{-~])|(`[^`\n]+`)|(\*\*[^*\n]+\*\*)|(\*[^*\s][^*\n]*\*|(?<![\p{L}\p{N}_\\])_[^_\s][^_\n]*_(?![\p{L}\p{N}_]))|\[((?:\\.|[^\]\\\n])+)\]\(([^)\s]+)\)/gu;

function inline(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const index = match.index;
    if (index > last) out.push(text.slice(last, index));
    const [token] = match;
    const key = `${index}`;
    if (match[1]) out.push(token.slice(1));
    else if (match[2]) out.push(<code key={key}>{token.slice(1, -1)}</code>);
    else if (match[3]) out.push(<strong key={key}>{inline(token.slice(2, -2))}</strong>);
    else if (match[4]) out.push(<em key={key}>{inline(token.slice(1, -1))}</em>);
    else {
      out.push(
        <ExternalLink key={key} href={match[6]!}>
          {inline(match[5]!)}
        </ExternalLink>,
      );
    }
    last = index + token.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

function blocks(text: string): ReactNode[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: ReactNode[] = [];
  let paragraph: string[] = [];
  let list: { ordered: boolean; items: string[] } | undefined;

  const flush = () => {
    if (paragraph.length > 0) out.push(<p key={out.length}>{inline(paragraph.join(' '))}</p>);
    paragraph = [];
    if (list) {
      const items = list.items.map((item, index) => <li key={index}>{inline(item)}</li>);
      out.push(list.ordered ? <ol key={out.length}>{items}</ol> : <ul key={out.length}>{items}</ul>);
    }
    list = undefined;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      flush();
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.trimStart().startsWith(fence[1]!); i++) code.push(lines[i]!);
      out.push(
        <pre key={out.length}>
          <code>{code.join('\n')}</code>
        </pre>,
      );
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      const level = Math.min(heading[1]!.length + 2, 6);
      const Tag = `h${level}` as 'h3';
      out.push(<Tag key={out.length}>{inline(heading[2]!)}</Tag>);
      continue;
    }
    const item = /^\s*(?:([-*+])|(\d+)[.)])\s+(.*)$/.exec(line);
    if (item) {
      const ordered = item[2] !== undefined;
      if (paragraph.length > 0 || (list && list.ordered !== ordered)) flush();
      list ??= { ordered, items: [] };
      list.items.push(item[3]!);
      continue;
    }
    if (line.trim() === '') {
      flush();
      continue;
    }
    if (list && /^\s+\S/.test(line)) {
      // A wrapped list item goes on.
      list.items[list.items.length - 1] += ` ${line.trim()}`;
      continue;
    }
    if (list) flush();
    paragraph.push(line.trim());
  }
  flush();
  return out;
}
