/**
 * Compares strings by Unicode code point, which is UTF-8 byte order: the order B2 lists file
 * names in. (`<` on JS strings compares UTF-16 code units, which disagrees for characters
 * above U+FFFF versus U+E000–U+FFFF; the contract's hashes keep that order: see
 * `compareCodeUnits` in normalize.ts.)
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (U+D800–U+DFFF) starts a code point above U+FFFF: larger than any BMP unit.
    const xHigh = x >= 0xd800 && x <= 0xdfff;
    const yHigh = y >= 0xd800 && y <= 0xdfff;
    if (xHigh !== yHigh) return xHigh ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
