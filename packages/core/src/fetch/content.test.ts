import { describe, expect, it } from 'vitest';
import { decodeBody, parseContentType, sniffDeclaredCharset, sniffMediaType } from './content.ts';

describe('parseContentType', () => {
  it.each([
    ['text/html', { mediaType: 'text/html' }],
    ['Text/HTML; Charset=UTF-8', { mediaType: 'text/html', charset: 'utf-8' }],
    ['text/plain;charset="ISO-8859-1"', { mediaType: 'text/plain', charset: 'iso-8859-1' }],
    ['text/markdown; variant=GFM; charset=utf-8', { mediaType: 'text/markdown', charset: 'utf-8' }],
    ['application/xhtml+xml ; charset = windows-1252 ', { mediaType: 'application/xhtml+xml', charset: 'windows-1252' }],
    ['text/plain; charset=', { mediaType: 'text/plain' }],
  ])('%j', (header, expected) => {
    expect(parseContentType(header)).toEqual(expected);
  });

  it.each([undefined, '', 'html', 'text/', '/html', 'text/html/x', 'text /html', 'te xt/html'])('%j is not a media type', (header) => {
    expect(parseContentType(header)).toBeNull();
  });
});

describe('sniffDeclaredCharset', () => {
  const bytes = (s: string): Buffer => Buffer.from(s, 'latin1');
  it.each([
    ['<meta charset="windows-1252">', 'windows-1252'],
    ["<META CHARSET='Shift_JIS'>", 'shift_jis'],
    ['<meta charset=koi8-r>', 'koi8-r'],
    ['<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">', 'iso-8859-1'],
    ['<?xml version="1.0" encoding="windows-1251"?><html>', 'windows-1251'],
    ['<meta charset="utf-16le">', 'utf-8'], // read as ASCII: cannot be UTF-16
    ['<meta charset="x-user-defined">', 'windows-1252'],
    ['<p>no declaration</p>', undefined],
  ])('%j -> %s', (html, expected) => {
    expect(sniffDeclaredCharset(bytes(html))).toBe(expected);
  });

  it('looks at the first 1024 bytes only', () => {
    expect(sniffDeclaredCharset(bytes(`${' '.repeat(1024)}<meta charset="koi8-r">`))).toBeUndefined();
  });
});

describe('decodeBody', () => {
  it('maps all of windows-1252 0x80-0x9F (Node 20 TextDecoder does not)', () => {
    const high = Buffer.from(Array.from({ length: 32 }, (_, i) => 0x80 + i));
    const { text, charset } = decodeBody(high, { mediaType: 'text/plain', charset: 'latin1' });
    expect(charset).toBe('windows-1252');
    expect(text).toBe('€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ');
    expect(decodeBody(Buffer.from([0x41, 0xe9, 0xff]), { mediaType: 'text/plain', charset: 'iso-8859-1' }).text).toBe('Aéÿ');
  });

  it('uses BOM, then header, then (HTML only) the document, then UTF-8', () => {
    const doc = Buffer.concat([Buffer.from('<meta charset="windows-1252">'), Buffer.from([0xe9])]);
    expect(decodeBody(doc, { mediaType: 'text/html' }).text.endsWith('é')).toBe(true);
    expect(decodeBody(doc, { mediaType: 'application/xhtml+xml' }).charset).toBe('windows-1252');
    expect(decodeBody(doc, { mediaType: 'text/plain' }).charset).toBe('utf-8');
    expect(decodeBody(doc, { mediaType: 'text/html', charset: 'koi8-r' }).charset).toBe('koi8-r');
    const bom = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('hi', 'utf16le').swap16()]);
    expect(decodeBody(bom, { mediaType: 'text/plain', charset: 'utf-8' })).toEqual({ text: 'hi', charset: 'utf-16be' });
  });

  it('replaces invalid UTF-8 instead of failing', () => {
    expect(decodeBody(Buffer.from([0x61, 0xff, 0x62]), { mediaType: 'text/plain' }).text).toBe('a\ufffdb');
  });
});

describe('sniffMediaType', () => {
  it.each([
    ['<!doctype html>', 'text/html'],
    ['  \n<p>x', 'text/html'],
    ['# Title', 'text/plain'],
    ['', 'text/plain'],
  ])('%j -> %s', (body, expected) => {
    expect(sniffMediaType(Buffer.from(body))).toBe(expected);
  });

  it('refuses binary', () => {
    expect(sniffMediaType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00]))).toBeNull();
  });
});
