/**
 * Orderings shared by the analytics tools. Every result list is sorted by a total order, so the
 * same data always produces the same output, whatever order pages or rows arrived in.
 */

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
