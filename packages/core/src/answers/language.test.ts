import { describe, expect, it } from 'vitest';
import { canonicalLanguageTag, LanguageDetector, languageName } from './language.ts';

describe('canonicalLanguageTag', () => {
  it('accepts and canonicalises BCP 47 tags', () => {
    expect(canonicalLanguageTag('en')).toBe('en');
    expect(canonicalLanguageTag('EN-us')).toBe('en-US');
    expect(canonicalLanguageTag('pt-br')).toBe('pt-BR');
    expect(canonicalLanguageTag('zh-hant-tw')).toBe('zh-Hant-TW');
    expect(canonicalLanguageTag('gsw')).toBe('gsw');
  });

  it('refuses what is not a language tag', () => {
    for (const bad of ['', 'e', 'english', 'en_US', 'en-', 'en--us', '12', 'en-US-x', 'fr!', 'a'.repeat(9)]) {
      expect(canonicalLanguageTag(bad), bad).toBeUndefined();
    }
  });

  it('names languages in English for prompts', () => {
    expect(languageName('fr')).toBe('French');
    expect(languageName('pt-BR')).toBe('Brazilian Portuguese');
  });
});

describe('LanguageDetector', () => {
  const detector = new LanguageDetector();

  it('detects the language of questions in several languages', async () => {
    const cases: Array<[string, string]> = [
      ['How do I install Hugo on Linux?', 'en'],
      ['Comment installer Hugo sous Linux ?', 'fr'],
      ['Wie installiere ich Hugo unter Linux?', 'de'],
      ['¿Cómo instalo Hugo en Linux?', 'es'],
      ['Come installare Hugo su Linux?', 'it'],
      ['Como instalar o Hugo no Linux?', 'pt'],
      ['Hoe installeer ik Hugo op Linux?', 'nl'],
      ['Jak zainstalować Hugo w systemie Linux?', 'pl'],
      ['Как установить Hugo в Linux?', 'ru'],
      ['Linux に Hugo をインストールするには?', 'ja'],
      ['如何在 Linux 上安装 Hugo？', 'zh'],
    ];
    for (const [text, language] of cases) expect(await detector.detect(text), text).toBe(language);
  });

  it('detects one-word messages when they are clear, and says so when they are not', async () => {
    expect(await detector.detect('Привет')).toBe('ru');
    expect(await detector.detect('Obrigado')).toBe('pt');
    expect(await detector.detect('こんにちは')).toBe('ja');
    // eld is unsure of this one; its script is only Korean.
    expect(await detector.detect('안녕하세요')).toBe('ko');
    expect(await detector.detect('hugo')).toBeUndefined();
    expect(await detector.detect('ok')).toBeUndefined();
  });

  it('resolves the answer language: asked, else detected, else the conversation’s, else English', async () => {
    expect(await detector.resolve('How do I install Hugo?', 'de', 'fr')).toBe('de');
    expect(await detector.resolve('Comment installer Hugo sous Linux ?', undefined, 'de')).toBe('fr');
    expect(await detector.resolve('ok', undefined, 'fr')).toBe('fr');
    expect(await detector.resolve('ok', undefined, null)).toBe('en');
  });
});
