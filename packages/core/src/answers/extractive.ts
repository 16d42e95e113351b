/**
 * The built-in answerer (no language model): it picks the sentences and blocks (code, list
 * items, table rows) of the retrieved sections that best answer the question, and writes them
 * in their document's order, the section that answers best first, each cited inline (`[1]`, the
 * number of its document among the answer's sources). Short by design: a few units, about a
 * hundred words of prose, then links to the sections for more. Deterministic and fast: a line
 * scan of a few sections and a bag-of-words score.
 *
 * Scoring. Each unit (sentence, list item, code block, table row) scores the weighted share of
 * the query's terms it holds; a term found only in the unit's heading trail counts half (a
 * section titled "Install on Windows" need not repeat "Windows" in every sentence). A term weighs
 * more the rarer it is (in the knowledge base when its word frequencies come with the passages,
 * else among the retrieved units); a term no retrieved section holds weighs nothing (the
 * question's own wording, which retrieval matched by its other words, is no evidence against a
 * passage). Units from better-ranked passages, a section's opening sentence, and units that show
 * code (an option, a command, a value: what a how-to answer names) get a bonus. The best units
 * within a share of the best score are taken, a few at most; a sentence that introduces a block ("Run this command:") brings the block, a list
 * item brings the sentence introducing its list, a table row brings the table's header, and a
 * sentence that ends its paragraph brings the next paragraph's first sentence while the word
 * budget allows (the option or value a sentence sets up is often named next).
 */
import { EXTENDED_STOP_WORDS, analyze, sentenceSpans, stripInlineMarkup } from '@kb/content';
import { TextMemo } from '../text-memo.ts';
import { primaryLanguage } from './language.ts';
import { displayHeadingPath, sectionLink, sourcesOf, type Answerer, type AnswerInput, type AnswerStream, type Passage, type WordFrequencies } from './types.ts';

/** `line`: one line of a long code block (a listing of options, say), quoted on its own. */
type UnitKind = 'sentence' | 'item' | 'code' | 'line' | 'row';

interface Unit {
  kind: UnitKind;
  /** Markdown as it is written out. */
  text: string;
  /** Index of the passage the unit comes from. */
  passage: number;
  /** Position in the passage (document order). */
  order: number;
  /** Block the unit belongs to: sentences of one paragraph, items of one list, rows of one table. */
  block: number;
  /** Analysed terms. */
  terms: Set<string>;
  /** A sentence ending with ":" (introduces the next block). */
  intro: boolean;
  /** First sentence of the passage's first paragraph. */
  opening: boolean;
  /** For rows: the table's header and delimiter lines. */
  header?: string;
  /** For items: indentation depth; for code inside a list item: the item's depth + 1. */
  indent?: number;
  /** For lines: the code block's language. */
  language?: string;
}

export interface ExtractiveOptions {
  /** Most units taken (before the blocks they bring). */
  maxUnits?: number;
  /** Most words of prose taken. */
  maxWords?: number;
  /** Most sections quoted. */
  maxSections?: number;
  /** Most lines of one code block. */
  maxCodeLines?: number;
  /** Share of the best score a unit needs to be taken. */
  relativeThreshold?: number;
  /** Weighted share of the query terms the best unit (with its heading) must hold, or nothing is relevant. */
  minCoverage?: number;
  /**
   * With the knowledge base's word frequencies ({@link AnswerInput.wordFrequencies}): the share of
   * the question's words, each weighed by its rarity in the knowledge base, that some unit (with
   * its heading) must hold, or nothing is relevant. Replaces `minCoverage` then.
   */
  minEvidence?: number;
  /**
   * Whether the answer is framed as a chat reply (default): each section cited inline with its
   * source's number, links to the sections quoted at the end (for sources with an address).
   * Without it, only the picked text (an FAQ answer under its question).
   */
  frame?: boolean;
}

const DEFAULTS: Required<ExtractiveOptions> = {
  maxUnits: 5,
  maxWords: 120,
  maxSections: 3,
  maxCodeLines: 25,
  relativeThreshold: 0.7,
  minCoverage: 0.34,
  minEvidence: 0.35,
  frame: true,
};

/**
 * `sources`: the label of an FAQ answer's sources line; `closest`: what follows `nothing` when the
 * retrieval found pages that do not answer (they are the answer's sources).
 */
const PHRASES: Record<string, { readMore: string; sources: string; closest: string; nothing: string }> = {
  en: { readMore: 'Read more', sources: 'Sources', closest: 'The closest pages the search found are listed in the sources.', nothing: 'I could not find anything in the knowledge base that answers this question.' },
  fr: { readMore: 'Pour en savoir plus', sources: 'Sources', closest: 'Les pages les plus proches trouvées par la recherche figurent dans les sources.', nothing: "Je n'ai rien trouvé dans la base de connaissances qui réponde à cette question." },
  de: { readMore: 'Mehr dazu', sources: 'Quellen', closest: 'Die nächstliegenden Seiten, die die Suche gefunden hat, stehen in den Quellen.', nothing: 'In der Wissensdatenbank habe ich nichts gefunden, das diese Frage beantwortet.' },
  es: { readMore: 'Más información', sources: 'Fuentes', closest: 'Las páginas más cercanas que encontró la búsqueda aparecen en las fuentes.', nothing: 'No encontré nada en la base de conocimiento que responda a esta pregunta.' },
  it: { readMore: 'Per saperne di più', sources: 'Fonti', closest: 'Le pagine più vicine trovate dalla ricerca sono elencate nelle fonti.', nothing: 'Non ho trovato nulla nella base di conoscenza che risponda a questa domanda.' },
  pt: { readMore: 'Saiba mais', sources: 'Fontes', closest: 'As páginas mais próximas encontradas pela pesquisa estão listadas nas fontes.', nothing: 'Não encontrei nada na base de conhecimento que responda a esta pergunta.' },
  nl: { readMore: 'Lees meer', sources: 'Bronnen', closest: 'De pagina’s die de zoekopdracht het dichtst bij vond, staan bij de bronnen.', nothing: 'Ik heb in de kennisbank niets gevonden dat deze vraag beantwoordt.' },
};

/** The answerer's fixed phrases in a language (English when it has none for it). */
export function extractivePhrases(language: string): { readMore: string; sources: string; closest: string; nothing: string } {
  return PHRASES[primaryLanguage(language)] ?? PHRASES.en!;
}

/** Weight of a term the query took from the conversation, relative to the message's own. */
const HISTORY_TERM_SHARE = 0.25;
/** Inline code in a unit's text. */
const NAMES_CODE = /`[^`\n]+`/;
/** Score bonus of a unit that shows code (see the scoring in extractAnswer). */
const NAMES_CODE_BONUS = 0.15;
/** A sentence this short that follows a chosen one in its paragraph is taken with it. */
const SHORT_SENTENCE_WORDS = 16;

const FENCE = /^(\s*)(`{3,}|~{3,})/;
const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const SHORTCODE_LINE = /^\s*\{\{[<%].*[>%]\}\}\s*$/;
/** Shortcodes that hold code (Hugo's code-toggle, code and highlight), opened on a line of their own. */
const CODE_SHORTCODE_OPEN = /^\s*\{\{[<%]\s*(code-toggle|code|highlight)\b([^}]*?)\s*[>%]\}\}\s*$/;
const DEFINITION = /^\s*:\s+(\S.*)$/;
/** Most units of a list (items and the code inside them) quoted whole; a longer list gives the items that match. */
const WHOLE_LIST_UNITS = 12;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)+\|?\s*$/;
/** Code blocks longer than this are quoted line by line (the lines that match). */
const LONG_CODE_LINES = 12;
const LINK_DEFINITION = /^\s*\[[^\]]+\]:\s*\S+/;
const ALERT = /^\s*\[!\w+\]\s*$/;

/** Terms of a text as the answerer scores them (stems; camelCase and dotted names split too). */
function termsOf(text: string): Set<string> {
  const split = text.replace(/([a-z])([A-Z])/g, '$1 $2');
  return new Set(analyze(`${text} ${split}`, { stopWords: EXTENDED_STOP_WORDS }));
}

/** Inline code spans (a run of backticks up to the next run of the same length): kept verbatim. */
const CODE_SPAN = /(`+)[\s\S]*?(?<!`)\1(?!`)/g;
/** Link reference definitions of a passage, label (lower case) to destination. */
type LinkDefinitions = ReadonlyMap<string, string>;

/**
 * Inline Markdown made readable out of its page: code spans kept verbatim (set aside first, so a
 * link whose text is code is still a link); inline and reference links become their text, or stay
 * links when they lead to a web address; shortcodes go.
 */
function cleanInline(text: string, definitions: LinkDefinitions = new Map()): string {
  const spans: string[] = [];
  const restore = (t: string) => t.replace(/\u0003(\d+)\u0004/g, (_, i: string) => spans[Number(i)]!);
  const guarded = text.replace(CODE_SPAN, (span) => `\u0003${spans.push(span) - 1}\u0004`);
  const web = (label: string) => {
    const url = definitions.get(restore(label).trim().toLowerCase().replace(/\s+/g, ' '));
    return url && /^https?:\/\//i.test(url) ? url : undefined;
  };
  const prose = guarded
    .replace(/\{\{[<%].*?[>%]\}\}/g, '')
    .replace(/&nbsp;/g, ' ')
    // [text](destination), [text][label], [text][] and [text]: web links stay links, others their text.
    .replace(/(!?)\[([^\]]*)\](?:\(([^)\s]*)(?:\s+"[^"]*")?\)|\[([^\]]*)\])?/g, (_m, _bang: string, label: string, inline?: string, ref?: string) => {
      const url = inline !== undefined ? (/^https?:\/\//i.test(inline) ? inline : undefined) : web(ref ? ref : label);
      return url ? `[${label}](${url})` : label;
    });
  return restore(prose).replace(/\s+/g, ' ').trim();
}

/**
 * Passages cut into units (as passage 0; units are copied with their index, their term sets shared
 * and never changed after the cut). About 4 answers' worth of passages.
 */
const segmented = new TextMemo((content: string) => segmentPassage(content, 0), 256);

/** Cuts a section's Markdown into units, in document order. */
export function segmentPassage(content: string, passage: number): Unit[] {
  const units: Unit[] = [];
  const lines = content.split(/\r?\n/);
  const definitions = new Map<string, string>();
  for (const line of lines) {
    const def = /^\s*\[([^\]]+)\]:\s*<?(\S+?)>?(?:\s+.*)?$/.exec(line);
    if (def) definitions.set(def[1]!.trim().toLowerCase().replace(/\s+/g, ' '), def[2]!);
  }
  const clean = (text: string) => cleanInline(text, definitions);
  let block = 0;
  let order = 0;
  let paragraph: string[] = [];
  let firstParagraph = true;
  /** The list being read: its block, and each depth's next number (ordered lists). */
  let list: { block: number; numbers: Map<number, number> } | undefined;
  const push = (unit: Omit<Unit, 'passage' | 'order' | 'terms' | 'intro' | 'opening'> & { opening?: boolean }, plain: string) => {
    const terms = termsOf(plain);
    units.push({ ...unit, passage, order: order++, terms, intro: unit.kind === 'sentence' && /:\s*$/.test(unit.text), opening: unit.opening ?? false });
  };
  const flushParagraph = () => {
    if (paragraph.length === 0) return;
    const text = clean(paragraph.join(' '));
    paragraph = [];
    if (text === '') return;
    block++;
    list = undefined;
    sentenceSpans(text).forEach(([s, e], i) => {
      const sentence = text.slice(s, e);
      push({ kind: 'sentence', text: sentence, block, opening: firstParagraph && i === 0 }, stripInlineMarkup(sentence));
    });
    firstParagraph = false;
  };
  /** The list a new item or definition belongs to (a new one unless the last unit is of it). */
  const listBlock = () => {
    const previous = units[units.length - 1];
    if (!list || !previous || previous.block !== list.block) {
      block++;
      list = { block, numbers: new Map() };
    }
    return list;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    const shortcode = fence ? null : CODE_SHORTCODE_OPEN.exec(line);
    if (fence || shortcode) {
      // Code indented under a list item is part of that item (a step's command).
      const nested = list !== undefined && paragraph.length === 0 && /^\s{2,}/.test(line) && units[units.length - 1]?.block === list.block;
      flushParagraph();
      const body: string[] = [];
      let language = '';
      if (fence) {
        language = line.slice(fence[0].length).trim().split(/\s+/)[0] ?? '';
        const marker = fence[2]!;
        const closing = new RegExp(`^\\s*${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`);
        for (i++; i < lines.length && !closing.test(lines[i]!); i++) body.push(lines[i]!);
      } else {
        const [, name, args] = shortcode!;
        const lang = /\blang="?([\w+-]+)/.exec(args ?? '')?.[1] ?? /\bfile="?[^"\s]*\.(\w+)"?/.exec(args ?? '')?.[1];
        language = name === 'code-toggle' ? 'toml' : name === 'highlight' ? (/^\s*"?([\w+-]+)/.exec(args ?? '')?.[1] ?? '') : (lang ?? '');
        const close = new RegExp(`^\\s*\\{\\{[<%]\\s*\\/${name}\\s*[>%]\\}\\}\\s*$`);
        for (i++; i < lines.length && !close.test(lines[i]!); i++) body.push(lines[i]!);
      }
      const indent = Math.min(...body.filter((l) => l.trim() !== '').map((l) => /^\s*/.exec(l)![0].length), Infinity);
      const code = body.map((l) => l.slice(Number.isFinite(indent) ? indent : 0)).join('\n').replace(/\s+$/, '');
      if (code.trim() === '') continue;
      const codeLines = code.split('\n');
      if (nested) {
        const item = [...units].reverse().find((u) => u.kind === 'item' && u.block === list!.block);
        push({ kind: 'code', text: `\`\`\`${language}\n${code}\n\`\`\``, block: list!.block, indent: (item?.indent ?? 0) + 1 }, code);
        continue;
      }
      block++;
      list = undefined;
      if (codeLines.length > LONG_CODE_LINES) {
        for (const codeLine of codeLines) if (codeLine.trim() !== '') push({ kind: 'line', text: codeLine, block, language }, codeLine);
      } else {
        push({ kind: 'code', text: `\`\`\`${language}\n${code}\n\`\`\``, block }, code);
      }
      continue;
    }
    if (/^\s*#{1,6}\s/.test(line) || line.trim() === '' || SHORTCODE_LINE.test(line) || LINK_DEFINITION.test(line)) {
      flushParagraph();
      if (/^\s*#{1,6}\s/.test(line)) list = undefined;
      continue;
    }
    if (line.trimStart().startsWith('|') || (line.includes('|') && TABLE_DELIMITER.test(lines[i + 1] ?? ''))) {
      flushParagraph();
      list = undefined;
      const table: string[] = [];
      for (; i < lines.length && lines[i]!.includes('|') && lines[i]!.trim() !== ''; i++) table.push(lines[i]!.trim());
      i--;
      block++;
      const delimiter = table.length > 1 && TABLE_DELIMITER.test(table[1]!) ? 2 : 0;
      const header = delimiter ? table.slice(0, 2).join('\n') : undefined;
      for (const row of table.slice(delimiter)) {
        push({ kind: 'row', text: clean(row), block, ...(header ? { header: clean(table[0]!) + '\n' + table[1] } : {}) }, stripInlineMarkup(`${table[0]} ${row}`));
      }
      continue;
    }
    // A definition list ("Term" then ": definition"): each definition an item under its term.
    const definition = DEFINITION.exec(line);
    if (definition) {
      const term = paragraph.pop();
      flushParagraph();
      const current = listBlock();
      let text = definition[1]!;
      while (i + 1 < lines.length && lines[i + 1]!.trim() !== '' && /^\s+\S/.test(lines[i + 1]!) && !DEFINITION.test(lines[i + 1]!)) text += ` ${lines[++i]!.trim()}`;
      const cleaned = clean(text);
      const label = term === undefined ? '' : clean(term);
      push({ kind: 'item', text: `- ${label ? `**${label}**: ` : ''}${cleaned}`, block: current.block, indent: 0 }, stripInlineMarkup(`${label} ${cleaned}`));
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      flushParagraph();
      const current = listBlock();
      let text = item[3]!;
      // Continuation lines: indented further than the marker, up to a blank line or the next item.
      while (i + 1 < lines.length && lines[i + 1]!.trim() !== '' && !LIST_ITEM.test(lines[i + 1]!) && /^\s+/.test(lines[i + 1]!) && !FENCE.test(lines[i + 1]!)) {
        text += ` ${lines[++i]!.trim()}`;
      }
      const depth = Math.floor(item[1]!.length / 2);
      // Numbers restart under each parent item; "1." on every item (as many sites write) counts up.
      for (const d of [...current.numbers.keys()]) if (d > depth) current.numbers.delete(d);
      let marker = '-';
      if (/^\d/.test(item[2]!)) {
        const n = current.numbers.get(depth) ?? Number.parseInt(item[2]!, 10);
        current.numbers.set(depth, n + 1);
        marker = `${n}.`;
      }
      const cleaned = clean(text);
      if (cleaned !== '') push({ kind: 'item', text: `${marker} ${cleaned}`, block: current.block, indent: depth }, stripInlineMarkup(cleaned));
      continue;
    }
    // A paragraph indented under a list item continues that item.
    const last = units[units.length - 1];
    if (list && paragraph.length === 0 && /^\s{2,}\S/.test(line) && last?.block === list.block && last.kind === 'item') {
      const more = clean(line.trim());
      last.text += ` ${more}`;
      for (const t of termsOf(stripInlineMarkup(more))) last.terms.add(t);
      continue;
    }
    const quoted = line.replace(/^\s*(>\s?)+/, '');
    if (ALERT.test(quoted)) continue;
    paragraph.push(quoted);
  }
  flushParagraph();
  return units;
}

/** A unit chosen for the answer, in its passage's document order. */
interface Picked {
  unit: Unit;
}

export interface ExtractiveAnswer {
  /** The answer's fragments, in order. */
  fragments: string[];
  /**
   * The answer's sources, best first: the passages quoted, then the other passages retrieval found
   * (when nothing answers, the closest passages; empty when none holds a word of the question).
   */
  passages: Passage[];
  /** The passages quoted, best first. */
  quoted: Passage[];
  /**
   * How well the passages bear on the question, 0..1: the largest share of the question's words a
   * unit holds, each word weighed by its rarity in the knowledge base (or, without the word
   * frequencies, by its rarity among the passages' units). Null when no unit holds any.
   */
  evidence: number | null;
  /** False when nothing in the passages answers: `passages` are then the closest ones retrieval found (none when it found none). */
  answered: boolean;
}

/** A unit's text for comparing with another's: white space collapsed, lower case. */
function normalisedText(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Picks and writes the answer (see the module comment). Pure and deterministic. */
export function extractAnswer(input: Pick<AnswerInput, 'question' | 'query' | 'language' | 'passages' | 'wordFrequencies'>, options: ExtractiveOptions = {}): ExtractiveAnswer {
  const settings = { ...DEFAULTS, ...options };
  const phrases = extractivePhrases(input.language);
  // Nothing answers: said plainly, with the pages retrieval found as the sources, for the reader
  // to look at (none when no passage holds a word of the question).
  const nothingFrom = (passages: readonly Passage[], evidence: number | null): ExtractiveAnswer => ({
    fragments: passages.length > 0 && settings.frame ? [`${phrases.nothing} ${phrases.closest}`] : [phrases.nothing],
    passages: settings.frame ? [...passages] : [],
    quoted: [],
    evidence,
    answered: false,
  });
  const nothing = nothingFrom([], null);
  // The message's own terms count fully; terms the retrieval query took from the conversation, a quarter.
  const asked = termsOf(input.question);
  const query = new Map<string, number>([...termsOf(input.query)].map((t) => [t, HISTORY_TERM_SHARE]));
  for (const t of asked) query.set(t, 1);
  if (query.size === 0 || input.passages.length === 0) return nothing;

  const units = input.passages.flatMap((p, i) => segmented.get(p.content).map((unit) => ({ ...unit, passage: i })));
  const headings = input.passages.map((p) => termsOf(p.headingPath));

  // A term weighs more the fewer units hold it (over the retrieved sections only). A term no
  // section holds, in its text or its headings, weighs nothing: retrieval found these sections by
  // the question's other words, and a word the user put differently is no evidence against them.
  const df = new Map<string, number>();
  for (const unit of units) for (const t of unit.terms) if (query.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  const rarity = input.wordFrequencies ? corpusWeights(input.wordFrequencies) : undefined;
  const weights = new Map<string, number>();
  for (const [t, share] of query) {
    if (!df.has(t) && !headings.some((h) => h.has(t))) continue;
    weights.set(t, share * (rarity?.get(t) ?? Math.log(1 + (units.length + 1) / (1 + (df.get(t) ?? 0)))));
  }
  const total = [...weights.values()].reduce((s, w) => s + w, 0);
  if (total === 0) return nothing;

  const scored = units
    .map((unit) => {
      let own = 0;
      let coverage = 0;
      for (const [t, w] of weights) {
        if (unit.terms.has(t)) {
          own += w;
          coverage += w;
        } else if (headings[unit.passage]!.has(t)) coverage += w / 2;
      }
      const prior = 0.3 * (1 - unit.passage / input.passages.length);

      const words = unit.kind === 'code' || unit.kind === 'line' ? 0 : unit.text.split(/\s+/).length;
      const long = words > 60 ? 0.05 : 0;
      // Prose explains; code that holds the same words ranks a little lower.
      const kindFactor = unit.kind === 'code' ? 0.8 : 1;
      // A unit that names something in code (an option, a command, a value) is what a how-to
      // question's answer holds more often than prose around it; when it holds a word of the
      // message itself (not only words a follow-up took from the conversation).
      const namesCode = (unit.kind === 'sentence' || unit.kind === 'item') && NAMES_CODE.test(unit.text);
      const names = namesCode && [...asked].some((t) => weights.has(t) && unit.terms.has(t)) ? NAMES_CODE_BONUS : 0;
      const score = (kindFactor * coverage) / total + prior + (unit.opening ? 0.05 : 0) + names - long;
      return { unit, own: own / total, coverage: coverage / total, score, bearing: score - names };
    })
    .filter((s) => s.own > 0);
  scored.sort((a, b) => b.score - a.score || a.unit.passage - b.unit.passage || a.unit.order - b.unit.order);
  const best = scored[0];
  if (!best) return nothing;
  // Whether the passages answer at all. With the knowledge base's word frequencies: the share of
  // the question a unit holds, each word weighed by its rarity in the whole knowledge base (a word
  // no chunk holds says nothing either way: the knowledge base has no word for it, or the user put
  // it differently). Otherwise the best unit's coverage of the weights above.
  const evidence = input.wordFrequencies ? corpusEvidence(input.wordFrequencies, units, headings) : best.coverage;
  const enough = input.wordFrequencies ? settings.minEvidence : settings.minCoverage;
  if (evidence === null || evidence < enough) return nothingFrom(input.passages, evidence);

  const picked = new Map<Unit, Picked>();
  const sections = new Set<number>();
  let words = 0;
  let taken = 0;
  const byPassage = units.reduce((map, u) => {
    const list = map.get(u.passage) ?? [];
    list.push(u);
    map.set(u.passage, list);
    return map;
  }, new Map<number, Unit[]>());
  const quotedTexts = new Set<string>();
  /** A sentence ending in a colon whose block is not in the passage (left out, or cut off) says nothing alone. */
  const dangling = (unit: Unit) => {
    if (!unit.intro) return false;
    const siblings = byPassage.get(unit.passage)!;
    const next = siblings[siblings.indexOf(unit) + 1];
    return !next || next.kind === 'sentence';
  };
  /** Quoted units other than sentences, as compared (a sentence they say is not quoted again). */
  const larger: string[] = [];
  /** The words each unit took from the budget. */
  const countedWords = new Map<Unit, number>();
  /** `counted`: whether the unit's words count against the answer's budget (the rest of a list it completes does not). */
  const add = (unit: Unit, counted = true) => {
    // The same sentence or block in two sections (an example repeated on a page) is quoted once.
    if (picked.has(unit) || quotedTexts.has(unit.text) || dangling(unit)) return false;
    // So is a sentence that a quoted list item or block also says (a summary list repeating its
    // page's paragraph): in the larger unit, and the words it took are given back.
    const compared = normalisedText(unit.text);
    if (unit.kind === 'sentence' && larger.some((text) => text.includes(compared))) return false;
    if (unit.kind !== 'sentence') {
      for (const other of [...picked.keys()]) {
        if (other.kind !== 'sentence' || !compared.includes(normalisedText(other.text))) continue;
        picked.delete(other);
        words -= countedWords.get(other) ?? 0;
      }
      larger.push(compared);
    }
    quotedTexts.add(unit.text);
    picked.set(unit, { unit });
    if (counted && unit.kind !== 'code' && unit.kind !== 'line') {
      const count = unit.text.split(/\s+/).length;
      countedWords.set(unit, count);
      words += count;
    }
    return true;
  };
  const addContext = (unit: Unit) => add(unit, false);
  /** A unit with what it needs to be read: the block a sentence introduces, the sentence before or after. */
  const take = (unit: Unit, depth: number) => {
    if (!add(unit)) return;
    const siblings = byPassage.get(unit.passage)!;
    const index = siblings.indexOf(unit);
    const before = siblings[index - 1];
    const next = siblings[index + 1];
    // A sentence introducing a block brings the block (a whole list, a table up to 8 rows).
    if (unit.intro && next && next.kind !== 'sentence') {
      const block = siblings.filter((u) => u.block === next.block);
      if (next.kind === 'item' && block.length <= WHOLE_LIST_UNITS) block.forEach(addContext);
      else block.slice(0, next.kind === 'line' ? settings.maxCodeLines : 8).forEach((u) => add(u));
    }
    // A list is quoted whole (every step, in order, with the code inside them), when it is short
    // enough; the rest of the list does not use up the answer's budget for other units.
    if (unit.kind === 'item' || (unit.kind === 'code' && unit.indent !== undefined)) {
      const block = siblings.filter((u) => u.block === unit.block);
      if (block.length <= WHOLE_LIST_UNITS) block.forEach(addContext);
      else if (unit.kind === 'item') siblings.filter((u) => u.block === unit.block && u.kind === 'code' && u.order > unit.order && !block.some((b) => b.kind === 'item' && b.order > unit.order && b.order < u.order)).forEach(addContext);
    }
    if (depth > 0) return;
    // A sentence leaning on the one before ("This creates...") brings it.
    if (unit.kind === 'sentence' && before?.block === unit.block && /^(It|This|That|These|Those|They|Then|Otherwise)\b/.test(unit.text)) take(before, 1);
    // A list item brings the sentence introducing its list.
    if (unit.kind === 'item') {
      const intro = siblings[siblings.findIndex((u) => u.block === unit.block) - 1];
      if (intro?.intro) add(intro);
    }
    // A short sentence right after it in its paragraph often completes it ("The default is 300.").
    if (unit.kind === 'sentence' && next?.kind === 'sentence' && next.block === unit.block && next.text.split(/\s+/).length <= SHORT_SENTENCE_WORDS) {
      take(next, 1);
    }
    // A sentence that ends its paragraph brings the next paragraph's first sentence, while the
    // budget allows: what a sentence sets up is often said next ("By default, the schema is served
    // at /openapi.json." then "You can disable it by setting openapi_url=None.").
    if (unit.kind === 'sentence' && next?.kind === 'sentence' && next.block !== unit.block && words + wordCount(next) <= settings.maxWords) take(next, 1);
  };
  for (const candidate of scored) {
    if (taken >= settings.maxUnits || words >= settings.maxWords) break;
    if (candidate.score < best.score * settings.relativeThreshold) break;
    const { unit } = candidate;
    if (picked.has(unit) || dangling(unit)) continue;
    if (!sections.has(unit.passage) && sections.size >= settings.maxSections) continue;
    sections.add(unit.passage);
    taken++;
    take(unit, 0);
  }
  if (picked.size === 0) return nothing;

  // The sources: the passages quoted, then every other passage retrieval found for the question
  // (a page that answers is not dropped because another was quoted first): those holding its
  // terms best first, then the rest in retrieval's order. Each quoted section is cited with its
  // document's number among them.
  // A passage ranks by how well its best unit bears on the question; naming code chose which unit
  // to quote, not which page answers.
  const bestOf = new Map<number, number>();
  for (const s of scored) bestOf.set(s.unit.passage, Math.max(bestOf.get(s.unit.passage) ?? -Infinity, s.bearing));
  const rankOf = (index: number) => bestOf.get(index) ?? 0;
  const passageOrder = [...new Set([...picked.values()].map((p) => p.unit.passage))].sort((a, b) => rankOf(b) - rankOf(a) || a - b);
  const quoted = passageOrder.map((index) => input.passages[index]!);
  const others = input.passages
    .map((_, index) => index)
    .filter((index) => !passageOrder.includes(index))
    .sort((a, b) => rankOf(b) - rankOf(a) || a - b)
    .map((index) => input.passages[index]!);
  const used = [...quoted, ...others];
  const sources = sourcesOf(used);
  const citation = (passage: Passage) => `[${sources.findIndex((s) => s.documentId === passage.documentId) + 1}]`;

  // Written out passage by passage, the one holding the best unit first, each in document order.
  const fragments: string[] = [];
  for (const index of passageOrder) {
    const passage = input.passages[index]!;
    const chosen = [...picked.values()].map((p) => p.unit).filter((u) => u.passage === index).sort((a, b) => a.order - b.order);
    // The citation follows the section's last sentence or list item (a table or code block ends
    // with it on a line of its own).
    const last = chosen.at(-1)!;
    const citeInline = settings.frame && (last.kind === 'sentence' || last.kind === 'item');
    let previous: Unit | undefined;
    for (const unit of chosen) {
      const sameBlock = previous !== undefined && previous.block === unit.block && previous.kind === unit.kind;
      let piece = '';
      if (previous?.kind === 'line' && !sameBlock) piece += '\n```';
      if (previous) piece += sameBlock ? (unit.kind === 'sentence' ? ' ' : '\n') : '\n\n';
      if (unit.kind === 'row' && !sameBlock && unit.header) piece += `${unit.header}\n`;
      if (unit.kind === 'line') {
        if (!sameBlock) piece += `\`\`\`${unit.language ?? ''}\n`;
        else if (unit.order !== previous!.order + 1) piece += '...\n';
      }
      if (unit.kind === 'item') piece += '  '.repeat(unit.indent ?? 0);
      if (unit.kind === 'code' && unit.indent !== undefined) {
        // Code inside a list item, indented under it so that the list goes on after it.
        const pad = '   '.repeat(unit.indent);
        piece = `${previous ? '\n\n' : ''}${limitLines(unit.text, settings.maxCodeLines).split('\n').map((l) => (l === '' ? l : pad + l)).join('\n')}`;
      } else piece += unit.kind === 'code' ? limitLines(unit.text, settings.maxCodeLines) : unit.text;
      if (unit === last && citeInline) piece += ` ${citation(passage)}`;
      fragments.push(piece);
      previous = unit;
    }
    if (previous?.kind === 'line') fragments.push('\n```');
    fragments.push(settings.frame && !citeInline ? `\n\n${citation(passage)}\n\n` : '\n\n');
  }
  // Links to the sections quoted, for the reader who wants more than the answer's few lines.
  const links = settings.frame ? quoted.flatMap((p) => { const link = sectionLink(p); return link ? [`[${displayHeadingPath(p.headingPath).split(' > ').join(' › ')}](${link}) ${citation(p)}`] : []; }) : [];
  if (links.length > 0) fragments.push(`${phrases.readMore}: ${[...new Set(links)].join(', ')}.`);
  else if (fragments.length > 0) fragments[fragments.length - 1] = fragments.at(-1)!.replace(/\n+$/, '');
  return { fragments, passages: used, quoted, evidence, answered: true };
}

/** Inverse chunk frequencies in the knowledge base of the words it holds, by the answerer's terms. */
function corpusWeights(frequencies: WordFrequencies): Map<string, number> {
  const n = Math.max(frequencies.chunks, 1);
  const weights = new Map<string, number>();
  for (const [word, df] of frequencies.frequencies) {
    if (df <= 0) continue;
    const idf = Math.log(1 + (n - Math.min(df, n) + 0.5) / (Math.min(df, n) + 0.5));
    for (const term of termsOf(word)) weights.set(term, Math.max(weights.get(term) ?? 0, idf));
  }
  return weights;
}

/**
 * The largest share of the question's words (those the knowledge base holds) that one unit holds,
 * each weighed by its inverse chunk frequency in the knowledge base; a word found only in the
 * unit's heading trail counts half. Null when the knowledge base holds none of the words.
 */
function corpusEvidence(frequencies: WordFrequencies, units: readonly Unit[], headings: readonly Set<string>[]): number | null {
  const weights = corpusWeights(frequencies);
  const total = [...weights.values()].reduce((s, w) => s + w, 0);
  if (total === 0) return null;
  let best = 0;
  for (const unit of units) {
    let held = 0;
    for (const [term, w] of weights) {
      if (unit.terms.has(term)) held += w;
      else if (headings[unit.passage]!.has(term)) held += w / 2;
    }
    best = Math.max(best, held / total);
  }
  return best;
}

/** Words of a unit's prose (code counts none). */
function wordCount(unit: Unit): number {
  return unit.kind === 'code' || unit.kind === 'line' ? 0 : unit.text.split(/\s+/).length;
}

function limitLines(code: string, max: number): string {
  const lines = code.split('\n');
  // The fence lines are not counted.
  if (lines.length - 2 <= max) return code;
  return [...lines.slice(0, max + 1), '...', lines[lines.length - 1]!].join('\n');
}

/** The extractive answerer: the whole answer is picked at once, then streamed fragment by fragment. */
export class ExtractiveAnswerer implements Answerer {
  readonly kind = 'extractive' as const;

  constructor(private readonly options: ExtractiveOptions = {}) {}

  async answer(input: AnswerInput, signal?: AbortSignal): Promise<AnswerStream> {
    signal?.throwIfAborted();
    const { fragments, passages, answered } = extractAnswer(input, this.options);
    return {
      passages,
      answered,
      fragments: (async function* () {
        for (const fragment of fragments) {
          signal?.throwIfAborted();
          yield fragment;
        }
      })(),
    };
  }
}
