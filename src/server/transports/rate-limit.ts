/** Token buckets keyed by client address or credential: `perSecond` refill, `burst` capacity. */

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** A bucket left full and untouched this long is forgotten. */
const IDLE_EVICTION_MS = 10 * 60_000;

export class TokenBuckets {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  #refilled(key: string): Bucket {
    const now = this.now();
    const bucket = this.#buckets.get(key);
    if (!bucket) {
      const fresh = { tokens: this.burst, updatedAt: now };
      this.#buckets.set(key, fresh);
      return fresh;
    }
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.perSecond);
    bucket.updatedAt = now;
    return bucket;
  }

  /** Takes one token; false when the bucket is empty (the caller answers 429). */
  take(key: string): boolean {
    const bucket = this.#refilled(key);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** Drops buckets that are full again and idle, so one-off clients do not accumulate. */
  sweep(): void {
    const now = this.now();
    for (const [key, bucket] of this.#buckets) {
      const tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.perSecond);
      if (tokens >= this.burst && now - bucket.updatedAt >= IDLE_EVICTION_MS) this.#buckets.delete(key);
    }
  }

  get size(): number {
    return this.#buckets.size;
  }
}
