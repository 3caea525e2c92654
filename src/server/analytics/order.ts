/**
 * Orderings shared by the analytics tools. Every result list is sorted by a total order, so the
 * same data always produces the same output, whatever order pages or rows arrived in.
 */

/**
 * Compares strings by Unicode code point, which is UTF-8 byte order: the order B2 lists file
 * names in. (`<` on JS strings compares UTF-16 code units, which disagrees for characters
 * above U+FFFF versus U+E000–U+FFFF.)
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

/** A comparator that applies `comparators` in turn until one decides. */
export function byEach<T>(...comparators: Array<(a: T, b: T) => number>): (a: T, b: T) => number {
  return (a, b) => {
    for (const compare of comparators) {
      const result = compare(a, b);
      if (result !== 0) return result;
    }
    return 0;
  };
}
