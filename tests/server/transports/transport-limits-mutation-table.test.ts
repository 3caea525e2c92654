/**
 * The HTTP limits through their public behaviour: token-bucket refill at the exact millisecond a
 * token is due (and one before), idle eviction only of buckets that are full again, in-flight
 * slots counted under more than one key and released once.
 */
import { describe, expect, it } from 'vitest';
import { InFlightLimiter, type InFlightSlot } from '../../../src/server/transports/in-flight.js';
import { TokenBuckets } from '../../../src/server/transports/rate-limit.js';

const TEN_MINUTES = 10 * 60_000;

function slot(result: InFlightSlot | string): InFlightSlot {
  if (typeof result === 'string') throw new Error(`refused: ${result}`);
  return result;
}

describe('token buckets refill at the configured rate, not before', () => {
  it('4 per second: a token is back 250 ms after it was taken, not at 249 ms (clock not starting at zero)', () => {
    let now = 50_000;
    const buckets = new TokenBuckets(4, 2, () => now);
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a')]).toEqual([true, true, false]);
    now += 249;
    expect(buckets.take('a')).toBe(false);
    now += 1;
    expect([buckets.take('a'), buckets.take('a')]).toEqual([true, false]);
  });

  it('a long pause refills up to the burst only', () => {
    let now = 1_000;
    const buckets = new TokenBuckets(10, 3, () => now);
    for (let i = 0; i < 3; i++) buckets.take('a');
    now += 60_000;
    expect(Array.from({ length: 4 }, () => buckets.take('a'))).toEqual([true, true, true, false]);
  });

  it('a slowly refilling bucket is kept while it is not full again, even after ten idle minutes', () => {
    let now = 1_000_000_000;
    // One token every 1 000 s: ten minutes refill 0.6 of it.
    const buckets = new TokenBuckets(0.001, 1, () => now);
    expect(buckets.take('slow')).toBe(true);
    now += TEN_MINUTES;
    buckets.sweep();
    expect(buckets.size).toBe(1);
    expect(buckets.take('slow')).toBe(false);
    now += 1_000_000;
    buckets.sweep();
    expect(buckets.size).toBe(0);
  });

  it('a full bucket is forgotten only after ten idle minutes', () => {
    let now = 7_000;
    const buckets = new TokenBuckets(1, 2, () => now);
    buckets.take('a');
    now += TEN_MINUTES - 1;
    buckets.sweep();
    expect(buckets.size).toBe(1);
    now += 1;
    buckets.sweep();
    expect(buckets.size).toBe(0);
  });
});

describe('the default clock', () => {
  it('is a real clock: an emptied slow bucket stays empty on the next call', () => {
    const buckets = new TokenBuckets(0.001, 1);
    expect([buckets.take('a'), buckets.take('a')]).toEqual([true, false]);
  });
});

describe('in-flight slots', () => {
  it('the caps are inclusive: exactly maxTotal and maxPerKey slots are granted', () => {
    const limiter = new InFlightLimiter(2, 1);
    slot(limiter.acquire('a'));
    expect(limiter.acquire('a')).toBe('key');
    slot(limiter.acquire('b'));
    expect(limiter.acquire('c')).toBe('global');
    expect(limiter.total).toBe(2);
  });

  it('counting a slot again under a key it already has succeeds even when that key is full', () => {
    const limiter = new InFlightLimiter(10, 1);
    const held = slot(limiter.acquire('a'));
    expect(held.countAlso('a')).toBe(true);
    expect(limiter.acquire('a')).toBe('key');
    held.release();
    slot(limiter.acquire('a'));
  });

  it('a released slot counts nowhere, whatever it is asked to count under', () => {
    const limiter = new InFlightLimiter(10, 1);
    const done = slot(limiter.acquire('a'));
    done.release();
    expect(done.countAlso('b')).toBe(true);
    expect(limiter.total).toBe(0);
    slot(limiter.acquire('b'));
    slot(limiter.acquire('a'));
    done.release();
    expect(limiter.total).toBe(2);
  });

  it('a slot counted under the credential too keeps its address full until it is released, then frees both', () => {
    const limiter = new InFlightLimiter(10, 1);
    const first = slot(limiter.acquire('address'));
    expect(first.countAlso('credential')).toBe(true);
    expect(limiter.acquire('credential')).toBe('key');
    expect(limiter.acquire('address')).toBe('key');
    const other = slot(limiter.acquire('elsewhere'));
    expect(other.countAlso('credential')).toBe(false);
    first.release();
    expect(limiter.total).toBe(1);
    expect(other.countAlso('credential')).toBe(true);
    slot(limiter.acquire('address'));
    expect(limiter.acquire('credential')).toBe('key');
  });
});
