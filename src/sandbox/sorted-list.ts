/**
 * A sorted collection split into bounded chunks (the "sorted list of lists" layout).
 *
 * Inserts and removals touch one chunk (O(log n) search + O(chunk) splice); seeking to a key is a
 * binary search over chunk tails and then inside one chunk; paging walks forward from a cursor
 * without copying the collection. Appending in order (bulk seeding) hits a fast path.
 */
const MAX_CHUNK = 2048;

export interface SortedCursor {
  readonly chunk: number;
  readonly index: number;
}

export class SortedList<T> {
  private chunks: T[][] = [];
  private count = 0;

  constructor(private readonly compare: (a: T, b: T) => number) {}

  get size(): number {
    return this.count;
  }

  insert(item: T): void {
    const last = this.chunks[this.chunks.length - 1];
    if (!last || this.compare(last[last.length - 1]!, item) < 0) {
      if (!last || last.length >= MAX_CHUNK) this.chunks.push([item]);
      else last.push(item);
      this.count++;
      return;
    }
    const at = this.lowerBound((x) => this.compare(x, item) < 0);
    const chunk = this.chunks[at.chunk]!;
    chunk.splice(at.index, 0, item);
    this.count++;
    if (chunk.length > MAX_CHUNK * 2) {
      this.chunks.splice(at.chunk + 1, 0, chunk.splice(MAX_CHUNK));
    }
  }

  /** Remove the item that compares equal to `item`; returns whether one was removed. */
  remove(item: T): boolean {
    const at = this.lowerBound((x) => this.compare(x, item) < 0);
    const chunk = this.chunks[at.chunk];
    if (!chunk || at.index >= chunk.length || this.compare(chunk[at.index]!, item) !== 0) return false;
    chunk.splice(at.index, 1);
    this.count--;
    if (chunk.length === 0) this.chunks.splice(at.chunk, 1);
    return true;
  }

  /**
   * Cursor at the first item for which `isBefore` is false. `isBefore` must be monotone over the
   * order (true for a prefix of the items, false afterwards).
   */
  lowerBound(isBefore: (item: T) => boolean): SortedCursor {
    const chunks = this.chunks;
    let lo = 0;
    let hi = chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const tail = chunks[mid]!;
      if (isBefore(tail[tail.length - 1]!)) lo = mid + 1;
      else hi = mid;
    }
    if (lo === chunks.length) return { chunk: lo, index: 0 };
    const chunk = chunks[lo]!;
    let a = 0;
    let b = chunk.length;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (isBefore(chunk[mid]!)) a = mid + 1;
      else b = mid;
    }
    return { chunk: lo, index: a };
  }

  /** Items from `cursor` onwards, in order. Do not mutate the list while iterating. */
  *from(cursor: SortedCursor): Generator<T> {
    for (let c = cursor.chunk, i = cursor.index; c < this.chunks.length; c++, i = 0) {
      const chunk = this.chunks[c]!;
      for (; i < chunk.length; i++) yield chunk[i]!;
    }
  }

  *[Symbol.iterator](): Generator<T> {
    yield* this.from({ chunk: 0, index: 0 });
  }

  clear(): void {
    this.chunks = [];
    this.count = 0;
  }
}
