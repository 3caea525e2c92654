/** Counts requests in flight, globally and per key (client address, then credential). */

export type InFlightRefusal = 'global' | 'key';

export interface InFlightSlot {
  /** Moves this request's per-key count to another key; false (slot unchanged) if that key is full. */
  rekey(key: string): boolean;
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
    let current: string | undefined = key;
    return {
      rekey: (next) => {
        if (current === undefined || next === current) return true;
        if (this.#keyFull(next)) return false;
        this.#add(current, -1);
        this.#add(next, 1);
        current = next;
        return true;
      },
      release: () => {
        if (current === undefined) return;
        this.#add(current, -1);
        this.#total -= 1;
        current = undefined;
      },
    };
  }
}
