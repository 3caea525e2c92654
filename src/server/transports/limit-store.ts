import { InFlightLimiter, type InFlightRefusal } from './in-flight.js';
import { TokenBuckets } from './rate-limit.js';

/** One request's hold on the in-flight caps. */
export interface LimitSlot {
  /** Moves the per-key count to another key; false (slot unchanged) if that key is full. */
  rekey(key: string): Promise<boolean>;
  /** Idempotent. */
  release(): void;
}

/**
 * The per-address and per-credential token buckets and in-flight caps of the HTTP transport:
 * kept in this process, or shared by every instance through Redis.
 */
export interface LimitStore {
  /** Takes one token from the key's bucket; false when it is empty (429). */
  take(key: string): Promise<boolean>;
  acquire(key: string): Promise<LimitSlot | InFlightRefusal>;
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

  async take(key: string): Promise<boolean> {
    return this.#buckets.take(key);
  }

  async acquire(key: string): Promise<LimitSlot | InFlightRefusal> {
    const slot = this.#inFlight.acquire(key);
    if (typeof slot === 'string') return slot;
    return { rekey: async (next) => slot.rekey(next), release: () => slot.release() };
  }

  get localInFlight(): number {
    return this.#inFlight.total;
  }

  sweep(): void {
    this.#buckets.sweep();
  }
}
