/**
 * Keeps the k best items of a stream in O(k) memory: a binary heap whose root is the worst item
 * kept, so each new item costs one comparison when it is not better than that, and O(log k)
 * when it replaces it.
 */
export class BoundedTopK<T> {
  private readonly heap: T[] = [];

  /**
   * @param capacity how many items to keep (k ≥ 1)
   * @param compare a total order: negative when `a` ranks before (is better than) `b`
   */
  constructor(
    readonly capacity: number,
    private readonly compare: (a: T, b: T) => number,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
  }

  get size(): number {
    return this.heap.length;
  }

  /** Offers an item; it is kept only while it ranks among the best `capacity` seen so far. */
  offer(item: T): void {
    const heap = this.heap;
    if (heap.length < this.capacity) {
      heap.push(item);
      this.siftUp(heap.length - 1);
    } else if (this.compare(item, heap[0]!) < 0) {
      heap[0] = item;
      this.siftDown(0);
    }
  }

  /** The kept items, best first. */
  sorted(): T[] {
    return [...this.heap].sort(this.compare);
  }

  /** True when `a` is worse than `b`: worse items rise to the root. */
  private worse(a: T, b: T): boolean {
    return this.compare(a, b) > 0;
  }

  private siftUp(index: number): void {
    const heap = this.heap;
    const item = heap[index]!;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.worse(item, heap[parent]!)) break;
      heap[index] = heap[parent]!;
      index = parent;
    }
    heap[index] = item;
  }

  private siftDown(index: number): void {
    const heap = this.heap;
    const item = heap[index]!;
    const length = heap.length;
    for (;;) {
      let child = 2 * index + 1;
      if (child >= length) break;
      if (child + 1 < length && this.worse(heap[child + 1]!, heap[child]!)) child += 1;
      if (!this.worse(heap[child]!, item)) break;
      heap[index] = heap[child]!;
      index = child;
    }
    heap[index] = item;
  }
}
