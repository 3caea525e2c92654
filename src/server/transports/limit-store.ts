import { InFlightLimiter, type InFlightRefusal } from './in-flight.js';
import { TokenBuckets } from './rate-limit.js';

/** An empty token bucket (429 `Rate limit exceeded`). */
export type RateRefusal = 'rate';

/** One request's hold on the in-flight caps. */
export interface LimitSlot {
  /**
   * Counts the request under another key too (the caller's credential or principal; the client
   * address keeps counting it), then takes a token from that key's bucket: `key` when that key
   * is full (slot unchanged, no token taken), `rate` when its bucket is empty (the slot stays
   * counted under both).
   */
  countAlso(key: string): Promise<'ok' | 'key' | RateRefusal>;
  /** Idempotent. */
  release(): void;
}

/**
 * The per-address and per-credential token buckets and in-flight caps of the HTTP transport:
 * kept in this process, or shared by every instance through Redis. Each step is one decision
 * (one round trip to Redis).
 */
export interface LimitStore {
  /** Takes an in-flight slot for the key, then a token from its bucket (no slot is kept when the bucket is empty). */
  admit(key: string): Promise<LimitSlot | InFlightRefusal | RateRefusal>;
  /** Requests this instance holds slots for (the health document, the drain on shutdown). */
  readonly localInFlight: number;
  /** Forgets idle state kept in this process. */
  sweep(): void;
}

export interface LimitSettings {
  rateLimit: { perSecond: number; burst: number };
  maxInFlight: number;
  maxInFlightPerKey: number;
}

/** Today's behaviour: every limit counts this process's requests only. */
export class MemoryLimitStore implements LimitStore {
  readonly #buckets: TokenBuckets;
  readonly #inFlight: InFlightLimiter;

  constructor(limits: LimitSettings, now?: () => number) {
    this.#buckets = new TokenBuckets(limits.rateLimit.perSecond, limits.rateLimit.burst, now);
    this.#inFlight = new InFlightLimiter(limits.maxInFlight, limits.maxInFlightPerKey);
  }

  async admit(key: string): Promise<LimitSlot | InFlightRefusal | RateRefusal> {
    const slot = this.#inFlight.acquire(key);
    if (typeof slot === 'string') return slot;
    if (!this.#buckets.take(key)) {
      slot.release();
      return 'rate';
    }
    return {
      countAlso: async (next) => {
        if (!slot.countAlso(next)) return 'key';
        return this.#buckets.take(next) ? 'ok' : 'rate';
      },
      release: () => slot.release(),
    };
  }

  get localInFlight(): number {
    return this.#inFlight.total;
  }

  sweep(): void {
    this.#buckets.sweep();
  }
}
