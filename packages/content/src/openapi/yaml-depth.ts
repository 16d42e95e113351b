/**
 * Estimates how deeply a YAML text nests, without parsing it, so that absurdly nested input is
 * refused before it reaches the `yaml` parser. That parser recurses once per level and overflows
 * the stack at some 800 levels; worse, after overflowing inside a regular expression it can leave
 * V8 in a state where a later parse aborts the whole process (out of memory in the RegExp
 * compiler). So the parser must never see such input.
 *
 * The estimate is linear and deliberately simple. Block structure: the number of open
 * indentation levels, plus `- ` / `? ` indicators stacked on one line. Flow structure: bracket
 * depth inside a flow collection (where plain scalars cannot contain brackets), skipping quoted
 * strings and comments. Block scalars (`|`, `>`) are skipped. It can over-count by a level or
 * two on unusual layouts (multi-line scalars), never by much on real documents.
 */

export interface DepthEstimate {
  depth: number;
  /** 1-based line where the estimate first reached `depth`. */
  line: number;
}

interface ScanState {
  /** Bracket depth inside a flow collection (0 in block context). */
  flow: number;
  /** Open quote inside a flow collection or a multi-line quoted scalar, or ''. */
  quote: '' | '"' | "'";
  /** Block depth where the open flow collection or quoted scalar started. */
  base: number;
}

const isBlank = (char: string | undefined): boolean => char === undefined || char === ' ' || char === '\t';

/**
 * Scans `line` from `start` in flow context or inside a quoted scalar. Calls `onDepth` with each
 * new flow depth; returns at the end of the line (or of a comment).
 */
function scanFlow(line: string, start: number, state: ScanState, onDepth: (flow: number) => void): void {
  for (let index = start; index < line.length; index++) {
    const char = line[index];
    if (state.quote !== '') {
      if (state.quote === '"' && char === '\\') index++;
      else if (char === state.quote) {
        if (state.quote === "'" && line[index + 1] === "'") index++;
        else state.quote = '';
      }
      continue;
    }
    if (state.flow === 0) return;
    if (char === '"' || char === "'") state.quote = char;
    else if (char === '#' && isBlank(line[index - 1])) return;
    else if (char === '[' || char === '{') onDepth(++state.flow);
    else if (char === ']' || char === '}') state.flow = Math.max(0, state.flow - 1);
  }
}

/** Skips spaces and node properties (`&anchor`, `!tag`) from `index`. */
function skipProperties(line: string, index: number): number {
  let at = index;
  for (;;) {
    while (line[at] === ' ' || line[at] === '\t') at++;
    if (line[at] !== '&' && line[at] !== '!') return at;
    while (at < line.length && !isBlank(line[at])) at++;
  }
}

export function estimateYamlDepth(text: string): DepthEstimate {
  const estimate: DepthEstimate = { depth: 0, line: 0 };
  const indents: number[] = [];
  const state: ScanState = { flow: 0, quote: '', base: 0 };
  /** Indentation of the node owning an open block scalar, or -1. */
  let blockScalarOwner = -1;
  let lineNumber = 0;
  let lineStart = 0;

  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd === -1) lineEnd = text.length;
    const line = text.slice(lineStart, lineEnd).replace(/\r$/, '');
    lineStart = lineEnd + 1;
    lineNumber++;

    let indent = 0;
    while (line[indent] === ' ') indent++;
    const content = line.slice(indent);

    if (blockScalarOwner >= 0) {
      if (content === '' || indent > blockScalarOwner) continue;
      blockScalarOwner = -1;
    }
    const record = (depth: number): void => {
      if (depth > estimate.depth) {
        estimate.depth = depth;
        estimate.line = lineNumber;
      }
    };
    if (state.flow > 0 || state.quote !== '') {
      scanFlow(line, 0, state, (flow) => record(state.base + flow));
      continue;
    }
    if (content === '' || content.startsWith('#')) continue;
    if (content.startsWith('---') || content.startsWith('...')) {
      indents.length = 0;
      continue;
    }

    while (indents.length > 0 && (indents[indents.length - 1] as number) >= indent) indents.pop();
    indents.push(indent);
    let base = indents.length;

    // Stacked block indicators on one line: `- - - x`, `? - x`.
    let at = indent;
    while ((line[at] === '-' || line[at] === '?') && isBlank(line[at + 1])) {
      base++;
      at = skipProperties(line, at + 1);
    }
    record(base);

    // Walk the rest of the line: a key, then after `: ` a value; values may open flow
    // collections, quoted scalars (possibly multi-line) or block scalars.
    let nodeStart = true;
    for (let index = at; index < line.length; index++) {
      if (nodeStart) {
        index = skipProperties(line, index);
        nodeStart = false;
        const char = line[index];
        if (char === '[' || char === '{') {
          state.flow = 1;
          state.base = base;
          record(base + 1);
          scanFlow(line, index + 1, state, (flow) => record(base + flow));
          break;
        }
        if (char === '|' || char === '>') {
          blockScalarOwner = indent;
          break;
        }
        if (char === '"' || char === "'") {
          // Quoted key or value: find its end on this line, or carry it to the next lines.
          let end = index + 1;
          for (; end < line.length; end++) {
            if (char === '"' && line[end] === '\\') end++;
            else if (line[end] === char) {
              if (char === "'" && line[end + 1] === "'") end++;
              else break;
            }
          }
          if (end >= line.length) {
            state.quote = char;
            state.base = base;
            break;
          }
          index = end;
          continue;
        }
      }
      const char = line[index];
      if (char === '#' && isBlank(line[index - 1])) break;
      if (char === ':' && isBlank(line[index + 1])) {
        // A mapping value starts after the colon.
        nodeStart = true;
      }
    }
  }
  return estimate;
}
