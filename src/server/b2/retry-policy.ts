/**
 * When the native client tries a B2 call again, and how long it waits.
 *
 * - 429 is retried for every operation: B2 refused the request before processing it.
 * - 500, 502, 503, 504, 408, garbage 5xx bodies and network failures/timeouts are retried only for
 *   idempotent operations — a non-idempotent mutation whose response was lost may have been applied,
 *   so replaying it could apply it twice.
 * - Waits use exponential backoff with full jitter (random in [0, min(max, base·2^(n-1))]); a
 *   `Retry-After` header, when present, is honoured as the wait instead.
 * - Bounded by `maxAttempts` and by `budgetMs` from the first attempt: a retry whose wait would
 *   end past the budget is not made.
 */
import { type B2Error, B2InvalidResponseError, B2TransportError } from './errors.js';

export interface RetryOptions {
  /** Total attempts including the first (default 4). */
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Time budget for all attempts of one call (default 30 s). */
  budgetMs?: number;
  /** Injected for tests. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export type ResolvedRetry = Required<RetryOptions>;

export const DEFAULT_RETRY: ResolvedRetry = {
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  budgetMs: 30_000,
  random: Math.random,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

const RETRYABLE_WHEN_IDEMPOTENT = new Set([408, 500, 502, 503, 504]);

export function isRetryable(error: B2Error, idempotent: boolean): boolean {
  if (error.status === 429) return true;
  if (!idempotent) return false;
  // A garbled answer (even a 200 with a truncated body) says nothing about B2's state; a read, or
  // a replace-style write, can safely ask again.
  return error instanceof B2TransportError || error instanceof B2InvalidResponseError || RETRYABLE_WHEN_IDEMPOTENT.has(error.status);
}

/** Milliseconds from a `Retry-After` header (seconds or an HTTP date), if usable. */
export function parseRetryAfter(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function backoffDelay(policy: ResolvedRetry, attempt: number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(policy.random() * cap);
}
