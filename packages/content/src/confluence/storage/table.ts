import { attribute, type StorageElement, type StorageNode } from './parse.ts';

/**
 * Table structure: rows of cells from `<table>` (directly, or through thead / tbody / tfoot),
 * laid out on a grid where a spanning cell leaves empty cells in the places it covers.
 */

/** Columns kept; the text of cells past the last one is appended to it. */
export const MAX_COLUMNS = 100;
const MAX_ROW_SPAN = 10_000;

const ROW_GROUPS = new Set(['thead', 'tbody', 'tfoot']);

export interface TableParts {
  rows: StorageElement[][];
  captions: StorageElement[];
  /** Anything else found between rows and cells (text, stray elements), kept so no text is lost. */
  strays: StorageNode[];
}

const isBlankText = (text: string): boolean => /^[ \t\n\r\f\u00a0]*$/.test(text);

function cellsOf(row: StorageElement, strays: StorageNode[]): StorageElement[] {
  const cells: StorageElement[] = [];
  for (const child of row.children) {
    if (typeof child !== 'string' && (child.name === 'td' || child.name === 'th')) cells.push(child);
    else if (typeof child !== 'string' || !isBlankText(child)) strays.push(child);
  }
  return cells;
}

export function tableParts(table: StorageElement): TableParts {
  const rows: StorageElement[][] = [];
  const captions: StorageElement[] = [];
  const strays: StorageNode[] = [];
  const addRows = (parent: StorageElement): void => {
    for (const child of parent.children) {
      if (typeof child === 'string') {
        if (!isBlankText(child)) strays.push(child);
      } else if (child.name === 'tr') rows.push(cellsOf(child, strays));
      else if (child.name === 'caption') captions.push(child);
      else if (parent === table && ROW_GROUPS.has(child.name)) addRows(child);
      else if (child.name !== 'colgroup' && child.name !== 'col') strays.push(child);
    }
  };
  addRows(table);
  return { rows: rows.filter((cells) => cells.length > 0), captions, strays };
}

function span(cell: StorageElement, name: string, max: number): number {
  const value = Number.parseInt(attribute(cell, name) ?? '', 10);
  return Number.isFinite(value) && value > 1 ? Math.min(value, max) : 1;
}

/** Adds the empty cells of columns still covered by a rowspan from a row above. */
function skipCovered(out: string[], covered: number[]): void {
  while (out.length < MAX_COLUMNS && (covered[out.length] ?? 0) > 0) {
    covered[out.length] = (covered[out.length] as number) - 1;
    out.push('');
  }
}

/**
 * The grid of cell texts (`text` converts one cell), every row as wide as the widest. Rowspans
 * and colspans become empty cells.
 */
export function tableGrid(rows: readonly StorageElement[][], text: (cell: StorageElement) => string): string[][] {
  const grid: string[][] = [];
  /** Rows still covered by a rowspan, per column. */
  const covered: number[] = [];
  let width = 0;
  for (const cells of rows) {
    const out: string[] = [];
    const overflow: string[] = [];
    for (const cell of cells) {
      skipCovered(out, covered);
      const value = text(cell);
      if (out.length >= MAX_COLUMNS) {
        if (value !== '') overflow.push(value);
        continue;
      }
      const columns = Math.min(span(cell, 'colspan', MAX_COLUMNS), MAX_COLUMNS - out.length);
      const rowSpan = span(cell, 'rowspan', MAX_ROW_SPAN);
      for (let column = 0; column < columns; column++) {
        if (rowSpan > 1) covered[out.length] = rowSpan - 1;
        out.push(column === 0 ? value : '');
      }
    }
    skipCovered(out, covered);
    // Rowspans reaching past this row's last cell still use up this row.
    for (let column = out.length; column < covered.length; column++) {
      if ((covered[column] ?? 0) > 0) covered[column] = (covered[column] as number) - 1;
    }
    if (overflow.length > 0) out[out.length - 1] = [out[out.length - 1], ...overflow].filter(Boolean).join(' ');
    width = Math.max(width, out.length);
    grid.push(out);
  }
  for (const row of grid) while (row.length < width) row.push('');
  return grid;
}
