/**
 * TOON string and key quoting at the edges of the TOON rules (strings that would read back as
 * another value, keys beyond [A-Za-z_][A-Za-z0-9_.]*), and surrogates: every lone surrogate is
 * refused, every proper pair kept — checked against the official decoder where it decodes.
 */
import { decode } from '@toon-format/toon';
import { describe, expect, it } from 'vitest';
import { encodeToon } from '../../../src/server/policy/toon.js';

describe('strings that must be quoted to read back as strings', () => {
  it.each([
    [' x', 'a: " x"'],
    ['+5', 'a: "+5"'],
    ['-5', 'a: "-5"'],
    ['1.5e+3', 'a: "1.5e+3"'],
    ['true', 'a: "true"'],
  ])('%j', (text, toon) => {
    expect(encodeToon({ a: text })).toBe(toon);
    expect(decode(toon)).toEqual({ a: text });
  });

  it.each(['+', '1.', '1e', '1e+', '1.5.2', 'abc', '5a'])('%j is not a number and stays bare', (text) => {
    expect(encodeToon({ a: text })).toBe(`a: ${text}`);
    expect(decode(`a: ${text}`)).toEqual({ a: text });
  });
});

describe('keys', () => {
  it.each(['Abc', 'Zed', 'a', 'z', '_x', 'x.y1'])('%j is bare', (key) => {
    expect(encodeToon({ [key]: 1 })).toBe(`${key}: 1`);
  });

  it.each(['@a', '[x', '1a', '.a', 'a-b'])('%j is quoted', (key) => {
    expect(encodeToon({ [key]: 1 })).toBe(`${JSON.stringify(key)}: 1`);
  });
});

describe('surrogates', () => {
  it.each(['\u{10000}', '\u{10FFFF}', 'x\u{1F600}y'])('a proper pair %j is kept', (text) => {
    expect(decode(encodeToon({ a: text }))).toEqual({ a: text });
    expect(decode(encodeToon({ [text]: 1 }))).toEqual({ [text]: 1 });
  });

  it.each([
    ['x\udfffy', 'U+DFFF at index 1'],
    ['\udc00\udc00', 'U+DC00 at index 0'],
    ['\ud800\ud800', 'U+D800 at index 0'],
    ['\ud800\ue000', 'U+D800 at index 0'],
    ['ab\udbff', 'U+DBFF at index 2'],
  ])('a lone surrogate in %j is refused, named in upper case', (text, where) => {
    expect(() => encodeToon({ a: text })).toThrow(`TOON encoding failed: lone surrogate ${where}`);
    expect(() => encodeToon({ [`"${text}`]: 1 })).toThrow(/lone surrogate/);
  });
});
