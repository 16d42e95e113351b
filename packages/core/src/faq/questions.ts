/**
 * Questions made without a model, from what documentation already says: a section's heading
 * ("Configure menus" -> "How do I configure menus?", "Language keys" -> "What are language keys?",
 * "Example" under "Menus" -> "What is an example of menus?") and its purpose sentences ("To publish
 * to another directory, use ..." -> "How do I publish to another directory?").
 *
 * English is handled in depth; French, Spanish, Portuguese, Italian and German headings that are
 * infinitives or imperatives become "how" questions, other headings a "what is" question about the
 * quoted heading. Any other language keeps the heading as the question. A heading that makes no
 * question (navigation, licences, "See also") gives none.
 */

/** Heading anchors ("Setup {#setup}", "Usa el modelo { #use-the-model }"), numbering ("8. Scope"), trailing colons. */
export function cleanHeading(heading: string): string {
  return heading
    .replace(/\{\s*#[^}]*\}/g, '')
    .replace(/^\s*(?:\d+(?:\.\d+)*[.)]?|[IVX]+\.)\s+(?=\S)/, '')
    // "Method 2 -- Use a configuration directory", "Step 3: Deploy": the heading is what follows.
    .replace(/^\s*(?:method|option|step|approach|part|scenario|variant)\s+[\w.]+\s*(?:--|—|–|:|-)\s+(?=\S)/i, '')
    .replace(/[\s:：.。]+$/u, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Headings that name navigation or boilerplate, not a topic: no question. */
const SKIPPED = new Set([
  'see also', 'related', 'related pages', 'related content', 'references', 'reference', 'further reading',
  'contents', 'next steps', 'next', 'previous', 'changelog', 'license', 'licence', 'credits', 'acknowledgements',
  'acknowledgments', 'options inherited from parent commands', 'faq', 'frequently asked questions', 'footnotes', 'links',
  'resources', 'videos', 'recap', 'conclusion', 'summary', 'terms and conditions for use, reproduction, and distribution',
  'voir aussi', 'siehe auch', 'véase también', 'ver também', 'vedi anche', 'recapitulación', 'zusammenfassung', 'résumé',
]);

/** Where a heading came from and what it stands over. */
export interface HeadingContext {
  /** The section's heading trail, document title first (as stored: `A > B > C`). */
  headingPath: string;
  /** The section's text (to tell names from ordinary words, and code from prose). */
  content: string;
  /** Primary language subtag of the section's text. */
  language: string;
}

/** The question a section's heading asks, or undefined when it asks none. */
export function headingQuestion(context: HeadingContext): string | undefined {
  const trail = context.headingPath.split(' > ').map(cleanHeading).filter((h) => h !== '');
  const heading = trail[trail.length - 1];
  if (!heading || !/\p{L}/u.test(heading)) return undefined;
  if (SKIPPED.has(heading.toLowerCase())) return undefined;
  if (/[?？]$/.test(heading)) return capitalise(heading.replace(/\s*[?？]$/, '')) + (/？$/.test(heading) ? '？' : '?');
  const ancestors = trail.slice(0, -1).reverse();
  switch (context.language) {
    case 'en':
      // Heading lines are left out of the text that tells names from words: headings capitalise anything.
      return englishHeadingQuestion(heading, ancestors, context.content.replace(/^\s{0,3}#{1,6}\s.*$/gm, ''));
    case 'fr':
    case 'es':
    case 'pt':
    case 'it':
    case 'de':
      return europeanHeadingQuestion(context.language, heading, ancestors);
    default:
      return `${heading}?`;
  }
}

/** Questions from purpose sentences of a section ("To X, Y." -> "How do I X?"), at most `max`. */
export function purposeQuestions(sentences: readonly string[], language: string, max: number): Array<{ question: string; sentence: string }> {
  const out: Array<{ question: string; sentence: string }> = [];
  for (const sentence of sentences) {
    const question = purposeQuestion(sentence, language);
    if (question) out.push({ question, sentence });
    if (out.length >= max) break;
  }
  return out;
}

function purposeQuestion(sentence: string, language: string): string | undefined {
  const text = sentence.trim();
  // The purpose clause: long enough to say something, short enough to be a question.
  const clause = (m: RegExpExecArray | null, group = 1) => {
    const value = m?.[group]?.trim();
    if (!value) return undefined;
    const words = value.split(/\s+/).length;
    return words >= 2 && words <= 14 && !/[:;]/.test(value) ? value : undefined;
  };
  switch (language) {
    case 'en': {
      const purpose = clause(/^(?:To|If you want to|If you need to|If you'd like to|In order to)\s+([^,]+),\s+\S/.exec(text));
      if (!purpose || !VERBS.has(purpose.split(/\s+/)[0]!.toLowerCase())) return undefined;
      return `How do I ${firstPerson(purpose)}?`;
    }
    case 'fr': {
      const purpose = clause(/^Pour\s+([^,]+),\s+\S/.exec(text));
      return purpose && /^\p{Ll}+(?:er|ir|re)\b/u.test(purpose) ? `Comment ${purpose} ?` : undefined;
    }
    case 'es': {
      const purpose = clause(/^Para\s+([^,]+),\s+\S/.exec(text));
      return purpose && /^\p{Ll}+(?:ar|er|ir)(?:lo|la|los|las|se)?\b/u.test(purpose) ? `¿Cómo ${purpose}?` : undefined;
    }
    case 'pt': {
      const purpose = clause(/^Para\s+([^,]+),\s+\S/.exec(text));
      return purpose && /^\p{Ll}+(?:ar|er|ir)\b/u.test(purpose) ? `Como ${purpose}?` : undefined;
    }
    case 'it': {
      const purpose = clause(/^Per\s+([^,]+),\s+\S/.exec(text));
      return purpose && /^\p{Ll}+(?:are|ere|ire)\b/u.test(purpose) ? `Come ${purpose}?` : undefined;
    }
    case 'de': {
      const purpose = clause(/^Um\s+(.+?)\s+zu\s+(\p{Ll}+)\s*,\s+\S/u.exec(text));
      const verb = /^Um\s+(.+?)\s+zu\s+(\p{Ll}+)\s*,/u.exec(text)?.[2];
      return purpose && verb ? `Wie kann ich ${purpose} ${verb}?` : undefined;
    }
    default:
      return undefined;
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/* ------------------------------------------------------------------------------------------ */
/* English                                                                                    */
/* ------------------------------------------------------------------------------------------ */

/** Verbs documentation headings start with, in their base form. */
const VERB_LIST = [
  'access', 'activate', 'adapt', 'add', 'adjust', 'allow', 'apply', 'archive', 'assign', 'augment', 'authenticate', 'authorize',
  'automate', 'avoid', 'back', 'bind', 'block', 'boot', 'bootstrap', 'break', 'browse', 'build', 'bundle', 'bypass', 'cache',
  'call', 'cancel', 'capture', 'change', 'check', 'choose', 'clean', 'clear', 'clone', 'close', 'collect', 'combine', 'commit',
  'compare', 'compile', 'compose', 'compress', 'concatenate', 'configure', 'connect', 'contribute', 'control', 'convert', 'copy',
  'count', 'create', 'customize', 'customise', 'debug', 'declare', 'define', 'delete', 'deploy', 'deprecate', 'describe', 'design',
  'detect', 'determine', 'develop', 'disable', 'discover', 'display', 'distribute', 'do', 'document', 'download', 'drop', 'edit',
  'embed', 'emit', 'enable', 'encode', 'encrypt', 'enforce', 'ensure', 'enter', 'escape', 'evaluate', 'exclude', 'execute',
  'exit', 'expand', 'explore', 'export', 'expose', 'extend', 'extract', 'fetch', 'filter', 'find', 'fix', 'follow', 'force',
  'format', 'generate', 'get', 'give', 'go', 'group', 'handle', 'hide', 'highlight', 'host', 'identify', 'ignore', 'implement',
  'import', 'improve', 'include', 'increase', 'index', 'inherit', 'initialize', 'initialise', 'inject', 'insert', 'inspect',
  'install', 'integrate', 'invalidate', 'invoke', 'iterate', 'join', 'keep', 'label', 'launch', 'learn', 'limit', 'link', 'list',
  'load', 'localize', 'localise', 'locate', 'lock', 'log', 'look', 'make', 'manage', 'map', 'mark', 'match', 'merge', 'migrate',
  'minify', 'mock', 'modify', 'monitor', 'mount', 'move', 'name', 'navigate', 'nest', 'normalize', 'obtain', 'omit', 'open',
  'optimize', 'optimise', 'order', 'organize', 'organise', 'output', 'override', 'overwrite', 'paginate', 'parse', 'pass',
  'paste', 'patch', 'pin', 'place', 'plan', 'prepare', 'prevent', 'preview', 'print', 'process', 'protect', 'provide', 'publish',
  'pull', 'purge', 'push', 'put', 'query', 'read', 'rebuild', 'receive', 'redirect', 'reduce', 'refer', 'refresh', 'register',
  'reload', 'remove', 'rename', 'render', 'reorder', 'replace', 'report', 'request', 'require', 'reset', 'resize', 'resolve',
  'restart', 'restore', 'restrict', 'retrieve', 'return', 'reuse', 'revert', 'review', 'rotate', 'route', 'run', 'sanitize',
  'save', 'scale', 'schedule', 'scope', 'search', 'secure', 'select', 'send', 'serve', 'set', 'share', 'ship', 'show', 'sign',
  'skip', 'sort', 'specify', 'split', 'start', 'stop', 'store', 'stream', 'style', 'submit', 'subscribe', 'suppress', 'switch',
  'sync', 'synchronize', 'tag', 'take', 'target', 'test', 'throttle', 'toggle', 'track', 'transform', 'translate', 'trigger',
  'troubleshoot', 'trust', 'turn', 'undo', 'uninstall', 'unmarshal', 'unpublish', 'update', 'upgrade', 'upload', 'use',
  'validate', 'verify', 'view', 'visualize', 'watch', 'work', 'wrap', 'write',
];
const VERBS = new Set(VERB_LIST);

/**
 * Verbs that are as often nouns ("Build stats", "Search results", "Sort order"): a heading starts
 * with them as an instruction only when an article, pronoun or preposition follows.
 */
const NOUN_LIKE_VERBS = new Set([
  'go', 'access', 'back', 'block', 'break', 'build', 'cache', 'call', 'change', 'check', 'commit', 'control', 'copy', 'count', 'design',
  'display', 'document', 'drop', 'export', 'filter', 'fix', 'format', 'group', 'highlight', 'host', 'import', 'index', 'label',
  'limit', 'link', 'list', 'load', 'lock', 'log', 'look', 'map', 'mark', 'match', 'mock', 'mount', 'move', 'name', 'order',
  'output', 'patch', 'pin', 'place', 'plan', 'preview', 'print', 'process', 'query', 'redirect', 'report', 'request', 'reset',
  'return', 'review', 'route', 'scale', 'schedule', 'scope', 'search', 'set', 'share', 'sign', 'sort', 'split', 'start', 'stop',
  'store', 'stream', 'style', 'switch', 'sync', 'tag', 'target', 'test', 'toggle', 'track', 'trigger', 'trust', 'turn', 'update',
  'upgrade', 'upload', 'view', 'watch', 'work', 'wrap',
]);

/** Words after a noun-like verb that show it is an instruction. */
const INSTRUCTION_FOLLOWERS = new Set([
  'a', 'an', 'the', 'your', 'my', 'our', 'this', 'that', 'these', 'those', 'each', 'every', 'all', 'any', 'some', 'multiple',
  'new', 'existing', 'custom', 'it', 'them', 'up', 'out', 'with', 'to', 'from', 'into', 'in', 'on', 'for', 'by', 'between',
  'across', 'without', 'and', 'or', 'one', 'more', 'other', 'another', 'own',
]);

/** Gerund of a base verb ("configure" -> "configuring", "set" -> "setting"). */
const DOUBLED = new Set(['set', 'get', 'put', 'run', 'stop', 'map', 'plan', 'ship', 'drop', 'split', 'log', 'tag', 'debug', 'plug', 'wrap', 'skip', 'commit', 'omit', 'submit', 'control', 'refer', 'pin', 'embed', 'emit', 'format']);
function gerund(verb: string): string {
  if (DOUBLED.has(verb)) return `${verb}${verb.slice(-1)}ing`;
  if (verb.endsWith('ie')) return `${verb.slice(0, -2)}ying`;
  if (verb.endsWith('e') && !verb.endsWith('ee') && !verb.endsWith('ye') && !verb.endsWith('oe')) return `${verb.slice(0, -1)}ing`;
  return `${verb}ing`;
}
const GERUNDS = new Map(VERB_LIST.map((v) => [gerund(v), v]));

/** Generic section headings: the question is about the nearest specific heading above them. */
type Generic = (subject: Subject) => string;
interface Subject {
  /** As a noun phrase ("menus", "`hugo server`", "creating a project"). */
  noun: string;
  plural: boolean;
  /** As an instruction when it is one ("create a project"), for "how do I" questions. */
  instruction?: string;
}
const be = (s: Subject) => (s.plural ? 'are' : 'is');
const does = (s: Subject) => (s.plural ? 'do' : 'does');
const GENERIC: Record<string, Generic> = {};
const generic = (names: string[], template: Generic) => {
  for (const name of names) GENERIC[name] = template;
};
generic(['example', 'examples', 'sample', 'samples', 'demo', 'code example', 'usage example', 'usage examples'], (s) => `What is an example of ${s.noun}?`);
generic(['usage', 'how to use', 'using', 'use', 'use it', 'getting started', 'quick start', 'quickstart'], (s) => (s.instruction ? `How do I ${s.instruction}?` : `How do I use ${s.noun}?`));
generic(['synopsis', 'description', 'purpose'], (s) => `What ${does(s)} ${s.noun} do?`);
generic(['syntax', 'signature', 'format'], (s) => `What is the syntax of ${s.noun}?`);
generic(['options', 'flags', 'arguments', 'args', 'parameters', 'params', 'positional arguments', 'inputs'], (s) => `Which ${'$heading'} ${does(s)} ${s.noun} take?`);
generic(['settings', 'properties', 'fields', 'methods', 'functions', 'variables', 'attributes', 'keys', 'members', 'events', 'values', 'types', 'modes', 'commands', 'subcommands'], (s) => `Which ${'$heading'} ${does(s)} ${s.noun} have?`);
generic(['overview', 'introduction', 'intro', 'about', 'explanation', 'details', 'background', 'basics', 'concepts', 'what is it', 'definition', 'terminology'], (s) => `What ${be(s)} ${s.noun}?`);
generic(['prerequisites', 'requirements', 'before you begin', 'before you start', 'assumptions'], (s) => `What do I need before ${s.instruction ? gerundPhrase(s.instruction) : `using ${s.noun}`}?`);
generic(['configuration', 'config', 'configure', 'configuring'], (s) => `How do I configure ${s.noun}?`);
generic(['setup', 'set up', 'setting up'], (s) => `How do I set up ${s.noun}?`);
generic(['installation', 'install', 'installing'], (s) => `How do I install ${s.noun}?`);
generic(['procedure', 'steps', 'instructions', 'how it works', 'how to'], (s) => (s.instruction ? `How do I ${s.instruction}?` : `How ${does(s)} ${s.noun} work?`));
generic(['notes', 'note', 'remarks', 'more information', 'additional information', 'tips', 'tip'], (s) => `What else should I know about ${s.noun}?`);
generic(['caveats', 'caveat', 'limitations', 'limitation', 'warnings', 'warning', 'known issues', 'gotchas', 'important', 'pitfalls'], (s) => `What should I watch out for with ${s.noun}?`);
generic(['error handling', 'errors', 'error'], (s) => `How are errors handled in ${s.noun}?`);
generic(['troubleshooting', 'debugging'], (s) => `How do I troubleshoot ${s.noun}?`);
generic(['returns', 'return value', 'return values', 'output', 'result', 'results'], (s) => `What ${does(s)} ${s.noun} return?`);
generic(['defaults', 'default', 'default values', 'default value', 'default configuration'], (s) => `What are the defaults of ${s.noun}?`);
generic(['alternatives', 'comparison'], (s) => `How ${does(s)} ${s.noun} compare with the alternatives?`);
generic(['performance'], (s) => `How ${does(s)} ${s.noun} affect performance?`);
generic(['security', 'privacy'], (s) => `What about ${'$heading'} with ${s.noun}?`);
generic(['scope', 'context'], (s) => `What is the ${'$heading'} of ${s.noun}?`);

/** Operating systems and platforms: "Install Hugo > Linux" asks how to install Hugo on Linux. */
const PLATFORMS = new Set(['linux', 'macos', 'mac', 'windows', 'freebsd', 'openbsd', 'netbsd', 'dragonfly bsd', 'android', 'ios', 'unix', 'ubuntu', 'debian', 'fedora', 'arch linux', 'alpine', 'wsl', 'chromeos']);

const PREPOSITIONS = new Set(['with', 'without', 'in', 'on', 'for', 'from', 'by', 'via', 'inside', 'within', 'outside', 'under', 'behind']);

/** Words that start an instruction's remainder when its object is left to the heading above ("Define in front matter"). */
const OBJECTLESS_FOLLOWERS = new Set(['in', 'with', 'on', 'for', 'from', 'by', 'using', 'via', 'through', 'automatically', 'manually', 'programmatically', 'dynamically', 'globally', 'locally', 'per', 'at', 'inside', 'within', 'across']);

/** Adjectives after which a singular noun phrase reads better with "the". */
const THE_ADJECTIVES = new Set(['default', 'custom', 'main', 'global', 'local', 'new', 'other', 'first', 'last', 'built-in', 'embedded', 'base', 'top-level', 'remote', 'manual', 'automatic', 'current', 'entire', 'same', 'specific', 'root', 'primary', 'internal', 'external', 'standard']);
const DETERMINERS = new Set(['a', 'an', 'the', 'your', 'my', 'our', 'this', 'that', 'these', 'those', 'each', 'every', 'all', 'any', 'some', 'no']);

function englishHeadingQuestion(heading: string, ancestors: readonly string[], content: string): string | undefined {
  const words = heading.split(' ');
  const first = words[0]!.toLowerCase();
  const lower = heading.toLowerCase();

  const template = GENERIC[lower];
  if (template) {
    const subject = ancestors.map((a) => englishSubject(a, content)).find((s) => s !== undefined);
    if (!subject) return undefined;
    return template(subject).replace('$heading', lower);
  }
  if (/^how to\s/i.test(heading)) return `How do I ${firstPerson(words.slice(2).join(' '))}?`;
  if (first === 'understanding' && words.length > 1) {
    const rest = englishCase(words.slice(1).join(' '), content);
    return `How ${isPlural(rest) ? 'do' : 'does'} ${rest} work?`;
  }
  if (PREPOSITIONS.has(first) && words.length > 1 && ancestors.length > 0) {
    // "Install Hugo > With Homebrew", "Models > Without Pydantic": the section above, that way.
    const parentInstruction = englishInstruction(ancestors[0]!);
    if (parentInstruction) return `How do I ${parentInstruction} ${first} ${words.slice(1).join(' ')}?`;
    const parent = ancestors.map((a) => englishSubject(a, content)).find((s) => s !== undefined);
    return parent ? `What about ${parent.noun} ${first} ${words.slice(1).join(' ')}?` : undefined;
  }
  const instruction = englishInstruction(heading);
  if (instruction) {
    // "Menus > Define in front matter", "Menu templates > Localize": the object is the section above.
    const [verb, ...rest] = instruction.split(' ');
    const parent = ancestors.map((a) => englishSubject(a, content)).find((s) => s !== undefined);
    const named = rest.join(' ').toLowerCase().includes(parent?.noun.toLowerCase() ?? '\u0000');
    if (parent && !parent.instruction && !named && (rest.length === 0 || OBJECTLESS_FOLLOWERS.has(rest[0]!.toLowerCase()))) {
      return `How do I ${[verb, parent.noun, ...rest].join(' ')}?`;
    }
    return `How do I ${instruction}?`;
  }
  if (isCodeLike(heading, content)) {
    const parent = ancestors.map((a) => englishSubject(a, content)).find((s) => s !== undefined);
    if (/\s/.test(heading)) return `What does \`${heading}\` do?`;
    return parent && words.length === 1 ? `What is \`${heading}\` in ${parent.noun}?` : `What is \`${heading}\`?`;
  }
  const phrase = englishCase(heading, content);
  if (words.length <= 3 && ancestors.length > 0) {
    // "Install Hugo > Linux": the platform or tool of an instruction above.
    const parentInstruction = englishInstruction(ancestors[0]!);
    if (parentInstruction && isName(heading, content)) {
      return `How do I ${parentInstruction} ${PLATFORMS.has(lower) ? 'on' : 'with'} ${heading}?`;
    }
  }
  if (words.length === 1 && ancestors.length > 0) {
    const parent = ancestors.map((a) => englishSubject(a, content)).find((s) => s !== undefined);
    // "Shortcodes > Embedded": a kind of what the section above names.
    if (parent && !parent.instruction && isAdjective(lower)) return `What ${be(parent)} ${lower} ${parent.noun.replace(/^the /, '')}?`;
    if (parent && parent.noun.toLowerCase() !== phrase.toLowerCase()) {
      // "BSD > Repository packages > NetBSD": the section above, for that name.
      if (isName(heading, content)) return `What ${be(parent)} ${parent.noun} for ${heading}?`;
      return `What ${isPlural(phrase) ? 'are' : 'is'} ${phrase} in ${parent.noun}?`;
    }
  }
  return `What ${isPlural(phrase) ? 'are' : 'is'} ${englishArticle(phrase, content)}${phrase}?`;
}

const ADJECTIVES = new Set(['inline', 'custom', 'global', 'local', 'default', 'built-in', 'remote', 'internal', 'external', 'manual', 'automatic', 'static', 'dynamic', 'public', 'private', 'basic', 'advanced', 'simple', 'complex', 'optional', 'required', 'nested', 'flat', 'standard', 'experimental', 'deprecated', 'legacy', 'new', 'old', 'other']);
function isAdjective(word: string): boolean {
  return ADJECTIVES.has(word) || /^[a-z]+(?:ed|al|ic|ive|ous|able|ible|ful|less)$/.test(word);
}

/** A heading as an instruction in the first person ("Create your first site" -> "create my first site"), if it is one. */
function englishInstruction(heading: string): string | undefined {
  const words = heading.split(' ');
  const first = words[0]!.toLowerCase();
  const next = words[1]?.toLowerCase();
  let verb: string | undefined;
  if (VERBS.has(first)) verb = first;
  else if (words.length > 1 && GERUNDS.has(first)) verb = GERUNDS.get(first);
  if (!verb) return undefined;
  if (verb === 'use' && (next === 'case' || next === 'cases')) return undefined;
  if (NOUN_LIKE_VERBS.has(verb) && (next === undefined || !INSTRUCTION_FOLLOWERS.has(next))) return undefined;
  if (words.length === 1 && !VERBS.has(first)) return undefined;
  return firstPerson([verb, ...words.slice(1)].join(' '));
}

/** A heading as a subject for a generic heading's question, or undefined when it cannot be one. */
function englishSubject(heading: string, content: string): Subject | undefined {
  if (GENERIC[heading.toLowerCase()] || SKIPPED.has(heading.toLowerCase()) || /[?？]$/.test(heading)) return undefined;
  // A document titled by its file path names nothing a question can be about.
  if (/^\S*\/\S*\.(?:md|markdown|mdx|txt|html?)$/i.test(heading)) return undefined;
  const instruction = englishInstruction(heading);
  if (instruction) return { noun: gerundPhrase(instruction), plural: false, instruction };
  if (isCodeLike(heading, content)) return { noun: `\`${heading}\``, plural: false };
  const noun = englishCase(heading, content);
  return { noun: `${englishArticle(noun, content, false)}${noun}`, plural: isPlural(noun) };
}

function gerundPhrase(instruction: string): string {
  const [verb, ...rest] = instruction.split(' ');
  return [gerund(verb!), ...rest].join(' ');
}

/** "your" becomes "my" in a question the reader asks. */
function firstPerson(text: string): string {
  return text
    .replace(/\byour\b/gi, 'my')
    .replace(/\byours\b/gi, 'mine')
    .replace(/\byourself\b/gi, 'myself')
    .replace(/\byou\b/gi, 'I')
    .replace(/^\p{Lu}(?!\p{Lu})/u, (c) => c.toLowerCase());
}

/**
 * The phrase in sentence case: a capitalised word becomes lower case unless the text writes it
 * capitalised (a name) or it is an acronym. Only the first word, unless the heading is in Title
 * Case ("Background Tasks"), where every word is.
 */
function englishCase(phrase: string, content: string): string {
  const words = phrase.split(' ');
  const titleCase = words.length > 1 && words.filter((w) => /^\p{Lu}/u.test(w)).length >= Math.max(2, words.length - 1);
  return words
    .map((word, i) => {
      if ((i > 0 && !titleCase) || !/^\p{Lu}\p{Ll}*$/u.test(word) || isName(word, content)) return word;
      return word.toLowerCase();
    })
    .join(' ');
}

/** Whether the text writes a word only capitalised (a product or place name, not an ordinary word). */
function isName(word: string, content: string): boolean {
  const firstWord = word.split(' ')[0]!;
  if (PLATFORMS.has(word.toLowerCase())) return true;
  if (!/^\p{Lu}/u.test(firstWord)) return false;
  if (/\p{Lu}/u.test(firstWord.slice(1))) return true;
  const escaped = firstWord.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const lowerCount = (content.match(new RegExp(`(?<![\\p{L}\\p{N}_])${escaped.toLowerCase()}(?![\\p{L}\\p{N}_])`, 'gu')) ?? []).length;
  const exactCount = (content.match(new RegExp(`(?<=[\\p{Ll},;(]\\s?)${escaped}(?![\\p{L}\\p{N}_])`, 'gu')) ?? []).length;
  return lowerCount === 0 && (exactCount > 0 || PLATFORMS.has(firstWord.toLowerCase()));
}

/** An identifier, command or file name rather than words ("hugo server", "site.Menus", "robots.txt", "baseURL"). */
function isCodeLike(heading: string, content: string): boolean {
  if (PLATFORMS.has(heading.toLowerCase())) return false;
  if (/^[\w$.:/-]+$/.test(heading) && (/[._/:$]|^-/.test(heading) || /^[a-z]+[A-Z]/.test(heading))) return true;
  if (!/^[a-z]/.test(heading)) return false;
  const escaped = heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return (
    new RegExp('`' + escaped + '[^`]*`').test(content) ||
    new RegExp(`^\\s*(?:\\$\\s*)?${escaped}(?:\\s|$)`, 'm').test(content) ||
    (/^[a-z][\w-]*$/.test(heading) && heading.includes('-'))
  );
}

/** Singular nouns ending in "s". */
const SINGULAR_S = new Set(['status', 'corpus', 'bus', 'campus', 'virus', 'focus', 'bonus', 'census', 'consensus', 'radius', 'stimulus', 'syllabus', 'apparatus', 'nexus', 'plus', 'alias', 'canvas', 'atlas', 'news', 'series', 'species', 'analytics', 'physics', 'mathematics', 'statistics', 'ethics', 'css', 'sass', 'scss', 'dns', 'https', 'rss', 'aws', 'macos', 'ios', 'os', 'kubernetes', 'postgres', 'redis', 'axios', 'express', 'process', 'access', 'address', 'class', 'pass', 'progress', 'success', 'business', 'analysis', 'basis', 'axis', 'emphasis', 'thesis', 'synopsis', 'diagnosis', 'chassis', 'this', 'is', 'was', 'has', 'does', 'its', 'us']);

function isPlural(phrase: string): boolean {
  const head = (/^(.+?)\s+(?:of|for|in|with|on|by|from|to)\s/i.exec(phrase)?.[1] ?? phrase).split(/[\s,]+/).pop()!.toLowerCase().replace(/[^\p{L}]/gu, '');
  if (head.length <= 2 || SINGULAR_S.has(head) || /(ss|ness|ous|sis)$/.test(head)) return false;
  return /s$/.test(head) || ['data', 'criteria', 'media', 'people'].includes(head);
}

/** Nouns that read without "the" ("What is syntax highlighting?", "What is front matter?"). */
const MASS_ENDINGS = /(ing|ness|ity|ance|ence|ism|ure|ics)$/;
const MASS_NOUNS = new Set(['data', 'content', 'matter', 'information', 'security', 'privacy', 'performance', 'code', 'text', 'markdown', 'html', 'css', 'json', 'yaml', 'toml', 'xml', 'metadata', 'support', 'access', 'output', 'input', 'logic', 'software', 'hardware', 'storage', 'usage', 'syntax', 'traffic', 'media', 'research', 'knowledge', 'help', 'advice', 'work', 'time', 'math']);

/** "the " before a singular noun phrase that reads better with it ("What is the default handler?"). */
function englishArticle(phrase: string, content: string, indefinite = true): string {
  const words = phrase.split(' ');
  const first = words[0]!.toLowerCase();
  const last = words[words.length - 1]!.toLowerCase().replace(/[^\p{L}]/gu, '');
  if (DETERMINERS.has(first) || isPlural(phrase)) return '';
  if (THE_ADJECTIVES.has(first)) return 'the ';
  if (isName(words[0]!, content) || /[`]/.test(phrase)) return '';
  if (MASS_ENDINGS.test(last) || MASS_NOUNS.has(last)) return '';
  // A single abstract noun ("pagination", "deployment") reads without one.
  if (words.length < 2) return !indefinite || /(tion|sion|ment)$/.test(last) ? '' : /^[aeio]|^u(?!ni|se|sa|ri|ti)/i.test(phrase) ? 'an ' : 'a ';
  return 'the ';
}

/* ------------------------------------------------------------------------------------------ */
/* French, Spanish, Portuguese, Italian, German                                                */
/* ------------------------------------------------------------------------------------------ */

interface EuropeanTemplates {
  /** "How do I <instruction>?" */
  how(instruction: string): string;
  /** "What is <quoted heading>?" */
  what(heading: string): string;
  /** "What is an example of <quoted subject>?" */
  example(subject: string): string;
  examples: Set<string>;
  overviews: Set<string>;
  /** The heading as an instruction (infinitive), if it is one. */
  instruction(words: string[]): string | undefined;
}

const ROMANCE_DETERMINERS: Record<string, Set<string>> = {
  fr: new Set(['le', 'la', 'les', 'un', 'une', 'des', 'du', 'de', 'votre', 'vos', 'ce', 'cette', 'ces', 'son', 'sa', 'ses', 'leur', 'leurs', 'plusieurs', 'en', 'à', 'au', 'aux', 'avec', 'dans', 'sur', 'pour', 'par', 'tous', 'toutes', 'mon', 'ma', 'mes']),
  es: new Set(['el', 'la', 'los', 'las', 'un', 'una', 'unos', 'unas', 'tu', 'tus', 'su', 'sus', 'este', 'esta', 'estos', 'estas', 'de', 'del', 'con', 'en', 'a', 'al', 'para', 'por', 'varios', 'varias', 'mi', 'mis', 'múltiples']),
  pt: new Set(['o', 'a', 'os', 'as', 'um', 'uma', 'uns', 'umas', 'seu', 'sua', 'seus', 'suas', 'este', 'esta', 'esse', 'essa', 'de', 'do', 'da', 'dos', 'das', 'com', 'em', 'no', 'na', 'para', 'por', 'vários', 'várias', 'meu', 'minha', 'múltiplos']),
  it: new Set(['il', 'lo', 'la', 'i', 'gli', 'le', 'un', 'uno', 'una', 'del', 'della', 'dei', 'delle', 'di', 'con', 'in', 'a', 'al', 'per', 'tuo', 'tua', 'tuoi', 'tue', 'questo', 'questa', 'più', 'mio', 'mia']),
};

/** A Romance-language heading starting with an infinitive (or an imperative, turned into one) followed by its object. */
function romanceInstruction(language: 'fr' | 'es' | 'pt' | 'it', words: string[]): string | undefined {
  const first = words[0]!.toLowerCase();
  const second = words[1]?.toLowerCase().replace(/^(l|d)['’].*/, 'le');
  const followed = second !== undefined && ROMANCE_DETERMINERS[language]!.has(second);
  // Spanish, Portuguese and Italian nouns rarely end like infinitives: a lower-case word after one will do.
  const objectFollows = followed || (language !== 'fr' && /^\p{Ll}/u.test(words[1] ?? ''));
  const rest = words.slice(1).join(' ');
  const join = (verb: string) => (rest ? `${verb} ${rest}` : verb);
  switch (language) {
    case 'fr':
      if (/^\p{L}+(?:er|ir)$/u.test(first) && (followed || words[1] === undefined || /^[ld]['’]/.test(words[1]!))) return join(first);
      // Imperative "-ez" of a first-group verb: "Déclarez une variable" -> "déclarer une variable".
      if (/^\p{L}+ez$/u.test(first) && (followed || /^[ld]['’]/.test(words[1] ?? ''))) return join(`${first.slice(0, -2)}er`);
      return undefined;
    case 'es':
      if (/^\p{L}+(?:ar|er|ir)$/u.test(first) && objectFollows) return join(first);
      // Imperative of an -ar verb: "Usa el modelo" -> "usar el modelo", "Agrega headers" stays a noun phrase.
      if (/^\p{L}+a$/u.test(first) && followed) return join(`${first}r`);
      return undefined;
    case 'pt':
      if (/^\p{L}+(?:ar|er|ir)$/u.test(first) && objectFollows) return join(first);
      // Imperative of an -ar verb: "Verifique a documentação" -> "verificar a documentação".
      if (/^\p{L}+e$/u.test(first) && followed) return join(first.replace(/que$/, 'car').replace(/gue$/, 'gar').replace(/e$/, 'ar'));
      return undefined;
    case 'it':
      if (/^\p{L}+(?:are|ere|ire)$/u.test(first) && (objectFollows || /^[ld]['’]/.test(words[1] ?? ''))) return join(first);
      return undefined;
  }
}

/** A German heading ending with an infinitive ("Das Modell verwenden"), or "Deklarieren Sie ...", as "<object> <verb>". */
function germanInstruction(words: string[]): string | undefined {
  const last = words[words.length - 1]!;
  const lowerFirst = (ws: string[]) =>
    ws.map((w, i) => {
      if (i !== 0) return w;
      const lower = w.toLowerCase();
      // Articles and adjectives lose the capital they had at the start of the heading; nouns keep it.
      if (['das', 'die', 'der', 'den', 'dem', 'ein', 'eine', 'einen', 'es', 'mehrere', 'eigene', 'alle'].includes(lower)) return lower;
      if (/(?:e|en|er|es|em)$/.test(lower) && ws.length > 1 && /^\p{Lu}/u.test(ws[1]!)) return lower;
      return w;
    });
  if (words.length >= 2 && /^\p{Ll}+(?:en|ern|eln)$/u.test(last)) return [...lowerFirst(words.slice(0, -1)), last].join(' ');
  if (words.length >= 3 && words[1] === 'Sie' && /^\p{Lu}\p{Ll}+(?:en|ern|eln)$/u.test(words[0]!)) {
    return [...lowerFirst(words.slice(2)), words[0]!.toLowerCase()].join(' ');
  }
  return undefined;
}

const EUROPEAN: Record<'fr' | 'es' | 'pt' | 'it' | 'de', EuropeanTemplates> = {
  fr: {
    how: (i) => `Comment ${i} ?`,
    what: (h) => `Qu'est-ce que « ${h} » ?`,
    example: (s) => `Quel est un exemple de « ${s} » ?`,
    examples: new Set(['exemple', 'exemples']),
    overviews: new Set(['aperçu', 'introduction', 'présentation', "vue d'ensemble"]),
    instruction: (w) => romanceInstruction('fr', w),
  },
  es: {
    how: (i) => `¿Cómo ${i}?`,
    what: (h) => `¿Qué es «${h}»?`,
    example: (s) => `¿Cuál es un ejemplo de «${s}»?`,
    examples: new Set(['ejemplo', 'ejemplos']),
    overviews: new Set(['resumen', 'introducción', 'descripción general', 'visión general']),
    instruction: (w) => romanceInstruction('es', w),
  },
  pt: {
    how: (i) => `Como ${i}?`,
    what: (h) => `O que é "${h}"?`,
    example: (s) => `Qual é um exemplo de "${s}"?`,
    examples: new Set(['exemplo', 'exemplos']),
    overviews: new Set(['visão geral', 'introdução', 'resumo']),
    instruction: (w) => romanceInstruction('pt', w),
  },
  it: {
    how: (i) => `Come ${i}?`,
    what: (h) => `Che cos'è «${h}»?`,
    example: (s) => `Qual è un esempio di «${s}»?`,
    examples: new Set(['esempio', 'esempi']),
    overviews: new Set(['panoramica', 'introduzione']),
    instruction: (w) => romanceInstruction('it', w),
  },
  de: {
    how: (i) => `Wie kann ich ${i}?`,
    what: (h) => `Was ist „${h}“?`,
    example: (s) => `Was ist ein Beispiel für „${s}“?`,
    examples: new Set(['beispiel', 'beispiele']),
    overviews: new Set(['überblick', 'übersicht', 'einführung', 'einleitung']),
    instruction: (w) => germanInstruction(w),
  },
};

function europeanHeadingQuestion(language: 'fr' | 'es' | 'pt' | 'it' | 'de', heading: string, ancestors: readonly string[]): string | undefined {
  const templates = EUROPEAN[language];
  const lower = heading.toLowerCase();
  const subject = ancestors.find((a) => !templates.examples.has(a.toLowerCase()) && !templates.overviews.has(a.toLowerCase()));
  if (templates.examples.has(lower)) return subject ? templates.example(subject) : undefined;
  if (templates.overviews.has(lower)) return subject ? templates.what(subject) : undefined;
  const instruction = templates.instruction(heading.replace(/[*_`]/g, '').split(' '));
  if (instruction) return templates.how(instruction);
  return templates.what(heading);
}
