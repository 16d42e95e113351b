/**
 * Languages of questions and answers: BCP 47 tags checked and canonicalised, and detection of a
 * message's language with `eld` (best of the libraries measured here on one-to-three-word chat
 * messages; ISO 639-1 codes, which are valid BCP 47 primary tags).
 */

/**
 * A language tag as written by a client, canonicalised ("EN-us" -> "en-US"), or undefined when
 * it is not a well-formed BCP 47 tag. The primary subtag must be a 2-3 letter code: the 4-8
 * letter forms the grammar allows are reserved and name no language.
 */
export function canonicalLanguageTag(tag: string): string | undefined {
  const trimmed = tag.trim();
  if (!/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/.test(trimmed)) return undefined;
  try {
    return Intl.getCanonicalLocales(trimmed)[0];
  } catch {
    return undefined;
  }
}

const displayNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

/** The English name of a tag's language ("fr-CA" -> "Canadian French"), or the tag itself. */
export function languageName(tag: string): string {
  try {
    return displayNames.of(tag) ?? tag;
  } catch {
    return tag;
  }
}

/** The primary language subtag ("pt-BR" -> "pt"). */
export function primaryLanguage(tag: string): string {
  return tag.split('-')[0]!.toLowerCase();
}

/** Scripts written in one language only: a message in them is in that language. */
const SINGLE_LANGUAGE_SCRIPTS: ReadonlyArray<[RegExp, string]> = [
  [/\p{Script=Hangul}/u, 'ko'],
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, 'ja'],
  [/\p{Script=Thai}/u, 'th'],
  [/\p{Script=Greek}/u, 'el'],
  [/\p{Script=Hebrew}/u, 'he'],
  [/\p{Script=Armenian}/u, 'hy'],
  [/\p{Script=Georgian}/u, 'ka'],
];

interface EldResult {
  language: string;
  isReliable(): boolean;
}
interface Eld {
  detect(text: string): EldResult;
}

let detector: Promise<Eld> | undefined;

/** eld's small database: about 0.7-1 s and 190 MB to load, so loaded on first use, once. */
function loadDetector(): Promise<Eld> {
  detector ??= import('eld/small').then((module) => module.eld as Eld);
  return detector;
}

export interface DetectedLanguage {
  /** ISO 639-1 code, or undefined when the message gives no reliable answer. */
  language: string | undefined;
}

/** Detects the language of short messages; unreliable results are reported as unknown. */
export class LanguageDetector {
  /** Loads the detector's database now (it otherwise loads on the first detection). */
  async warmUp(): Promise<void> {
    await loadDetector();
  }

  async detect(text: string): Promise<string | undefined> {
    const eld = await loadDetector();
    const result = eld.detect(text);
    if (result.language && result.isReliable()) return result.language;
    // eld is unsure of very short texts; some scripts settle the question on their own.
    for (const [script, language] of SINGLE_LANGUAGE_SCRIPTS) if (script.test(text)) return language;
    return undefined;
  }

  /**
   * The language to answer in: the one asked for, else the message's when detection is
   * reliable, else the conversation's, else English.
   */
  async resolve(message: string, requested: string | undefined, conversationLanguage: string | null | undefined): Promise<string> {
    if (requested) return requested;
    return (await this.detect(message)) ?? conversationLanguage ?? 'en';
  }
}
