import { describe, expect, it } from 'vitest';
import { analyze, EXTENDED_STOP_WORDS, LUCENE_STOP_WORDS, stem, tokenize } from './analyze.ts';

describe('tokenize', () => {
  it('lower-cases and splits on anything that is not a letter or digit', () => {
    expect(tokenize('The IL-6 level (p<0.05) ROSE!')).toEqual(['the', 'il', '6', 'level', 'p', '0', '05', 'rose']);
  });

  it('is Unicode-aware', () => {
    expect(tokenize('Ünïcode CAFÉ naïve Straße')).toEqual(['ünïcode', 'café', 'naïve', 'straße']);
    // NFKC folds compatibility characters such as ligatures and full-width letters
    expect(tokenize('ﬁnal ＡＢＣ')).toEqual(['final', 'abc']);
  });

  it('drops an English possessive', () => {
    expect(tokenize("the patient's and the patients’ data")).toEqual(['the', 'patient', 'and', 'the', 'patients', 'data']);
    expect(tokenize("it's")).toEqual(['it']);
  });

  it('turns CJK runs into overlapping character bigrams', () => {
    expect(tokenize('東京大学')).toEqual(['東京', '京大', '大学']);
    expect(tokenize('日 本')).toEqual(['日', '本']);
    expect(tokenize('abc日本語def')).toEqual(['abc', '日本', '本語', 'def']);
    expect(tokenize('한국어')).toEqual(['한국', '국어']);
  });

  it('returns nothing for text without words', () => {
    expect(tokenize('  -- !! ')).toEqual([]);
    expect(tokenize('')).toEqual([]);
  });
});

describe('stop words and stemming', () => {
  it('has Lucene’s 33-word set inside the extended list', () => {
    expect(LUCENE_STOP_WORDS.size).toBe(33);
    for (const w of LUCENE_STOP_WORDS) expect(EXTENDED_STOP_WORDS.has(w)).toBe(true);
    expect(EXTENDED_STOP_WORDS.has('however')).toBe(true);
    expect(LUCENE_STOP_WORDS.has('however')).toBe(false);
  });

  it('Porter-stems ASCII words and leaves other scripts alone', () => {
    expect(stem('running')).toBe('run');
    expect(stem('properties')).toBe('properti');
    expect(stem('caresses')).toBe('caress');
    expect(stem('café')).toBe('café');
    expect(stem('東京')).toBe('東京');
  });

  it('analyze removes stop words before stemming', () => {
    expect(analyze('The cells were running in the properties')).toEqual(['cell', 'were', 'run', 'properti']);
    expect(analyze('The cells were running', { stopWords: EXTENDED_STOP_WORDS })).toEqual(['cell', 'run']);
    expect(analyze('The cells', { stopWords: new Set(), stemming: false })).toEqual(['the', 'cells']);
  });

  it('optionally splits letter-digit tokens, keeping the original', () => {
    expect(analyze('IL6 and IL-6 in p53')).toEqual(['il6', 'il', '6', 'p53']);
    expect(analyze('IL6 and IL-6 in p53', { wordDelimiter: true })).toEqual(['il6', 'il', '6', 'il', '6', 'p53', 'p', '53']);
    expect(analyze('a1', { wordDelimiter: true })).toEqual(['a1', '1']); // "a" is a stop word
  });
});
