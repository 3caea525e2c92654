/** Counts requests in flight, globally and per key (the client address, and the caller's credential or principal). */

export type InFlightRefusal = 'global' | 'key';

export interface InFlightSlot {
  /**
   * Counts this request under another key as well, keeping the keys it is already counted under
   * (so a caller cannot empty its address's count by naming a credential); false (slot unchanged)
   * if that key is full.
   */
  countAlso(key: string): boolean;
  /** Idempotent. */
  release(): void;
}

export class InFlightLimiter {
  readonly #perKey = new Map<string, number>();
  #total = 0;

  constructor(
    private readonly maxTotal: number,
    private readonly maxPerKey: number,
  ) {}

  get total(): number {
    return this.#total;
  }

  #add(key: string, delta: number): void {
    const next = (this.#perKey.get(key) ?? 0) + delta;
    if (next <= 0) this.#perKey.delete(key);
    else this.#perKey.set(key, next);
  }

  #keyFull(key: string): boolean {
    return (this.#perKey.get(key) ?? 0) >= this.maxPerKey;
  }

  acquire(key: string): InFlightSlot | InFlightRefusal {
    if (this.#total >= this.maxTotal) return 'global';
    if (this.#keyFull(key)) return 'key';
    this.#total += 1;
    this.#add(key, 1);
    let keys: Set<string> | undefined = new Set([key]);
    return {
      countAlso: (next) => {
        if (keys === undefined || keys.has(next)) return true;
        if (this.#keyFull(next)) return false;
        this.#add(next, 1);
        keys.add(next);
        return true;
      },
      release: () => {
        if (keys === undefined) return;
        for (const held of keys) this.#add(held, -1);
        this.#total -= 1;
        keys = undefined;
      },
    };
  }
}
