/**
 * Writes Markdown blocks line by line inside nested containers (list items, block quotes).
 * Each container has a prefix for its first line (`- `, `1. `, `> `) and one for the lines
 * after (`  `, `   `, `> `). Blocks in the same container are separated by a blank line,
 * written lazily, so blocks that turn out empty leave no trace.
 *
 * A flat writer is used for content that must fit on one line (table cells, block content
 * inside inline content): blank lines are dropped and the lines are joined by the caller.
 */

/** What a block was, for choices that depend on the previous block. */
export type BlockKind = 'none' | 'paragraph' | 'heading' | 'list' | 'list-alt' | 'ordered' | 'ordered-alt' | 'other';

interface Container {
  readonly first: string;
  readonly rest: string;
  readonly isItem: boolean;
  started: boolean;
  hasContent: boolean;
  last: BlockKind;
}

export class BlockWriter {
  private readonly lines: string[] = [];
  private readonly containers: Container[] = [
    { first: '', rest: '', isItem: false, started: true, hasContent: false, last: 'none' },
  ];
  /** Depth of the container owning a pending separator line, or -1. */
  private blankOwner = -1;

  constructor(readonly flat: boolean) {}

  /** Number of open containers (the document itself not counted). */
  get depth(): number {
    return this.containers.length - 1;
  }

  /** The kind of the previous block in the current container. */
  get previous(): BlockKind {
    return this.innermost.last;
  }

  /** Whether the current container is a list item. */
  get inItem(): boolean {
    return this.innermost.isItem;
  }

  private get innermost(): Container {
    return this.containers[this.containers.length - 1] as Container;
  }

  /**
   * Starts a block: a blank line will separate it from the previous one in this container,
   * unless `tight` (a list right after a paragraph in a list item).
   */
  begin(kind: BlockKind, tight = false): void {
    const container = this.innermost;
    if (container.hasContent && !tight) this.blankOwner = this.containers.length - 1;
    container.last = kind;
  }

  line(text: string): void {
    if (this.blankOwner !== -1) {
      this.blankOwner = -1;
      if (!this.flat) this.lines.push(this.prefix(true).trimEnd());
    }
    const line = this.prefix(false) + text;
    this.lines.push(text === '' ? line.trimEnd() : line);
    for (const container of this.containers) {
      container.started = true;
      container.hasContent = true;
    }
  }

  push(first: string, rest: string, isItem: boolean): void {
    this.containers.push({ first, rest, isItem, started: false, hasContent: false, last: 'none' });
  }

  pop(): void {
    if (this.containers.length > 1) this.containers.pop();
    // A separator started in the closed container (before a block that stayed empty) goes with it.
    if (this.blankOwner >= this.containers.length) this.blankOwner = -1;
  }

  /** The document: lines joined, without leading or trailing blank lines. */
  toString(): string {
    const text = this.lines.join('\n').trim();
    return text === '' ? '' : `${text}\n`;
  }

  /** The non-blank lines written (for a flat writer). */
  contentLines(): string[] {
    return this.lines.filter((line) => line.trim() !== '');
  }

  /** Prefix of the next line; for a separating blank line, only started containers count. */
  private prefix(blank: boolean): string {
    let prefix = '';
    for (const container of this.containers) {
      if (container.started) prefix += container.rest;
      else if (!blank) prefix += container.first;
    }
    return prefix;
  }
}
