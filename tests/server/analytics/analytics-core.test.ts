import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ScanDeadline, withDeadline } from '../../../src/server/analytics/deadline.js';
import { compareCodePoints } from '../../../src/contract/code-point-order.js';
import { byEach } from '../../../src/server/analytics/order.js';
import { BoundedTopK } from '../../../src/server/analytics/top-k.js';
import { bytesToGb, formatBytes, parseGbToBytes } from '../../../src/server/analytics/units.js';

const utf8Order = (a: string, b: string) => Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));

describe('compareCodePoints', () => {
  it('agrees with UTF-8 byte order (the order B2 lists names in)', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 8 });
    fc.assert(
      fc.property(text, text, (a, b) => Math.sign(compareCodePoints(a, b)) === utf8Order(a, b)),
      { numRuns: 2000 },
    );
  });

  it('puts astral characters after U+E000–U+FFFF, unlike UTF-16 comparison', () => {
    const astral = '🚀'; // U+1F680
    const privateUse = '\uFFFD';
    expect(astral < privateUse).toBe(true); // what plain JS comparison says
    expect(compareCodePoints(astral, privateUse)).toBeGreaterThan(0);
  });
});

describe('BoundedTopK', () => {
  interface Item {
    size: number;
    name: string;
  }
  const rank = byEach<Item>(
    (a, b) => b.size - a.size,
    (a, b) => compareCodePoints(a.name, b.name),
  );

  it('keeps exactly the k best of any stream, in order, whatever the arrival order (many ties)', () => {
    const item = fc.record({ size: fc.integer({ min: 0, max: 5 }), name: fc.string({ maxLength: 3 }) });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 300 }), fc.integer({ min: 1, max: 40 }), (items, k) => {
        const top = new BoundedTopK(k, rank);
        for (const i of items) top.offer(i);
        const expected = [...items].sort(rank).slice(0, k);
        expect(top.sorted()).toEqual(expected);
        expect(top.size).toBe(Math.min(k, items.length));
      }),
      { numRuns: 500 },
    );
  });

  it('never holds more than k items', () => {
    const top = new BoundedTopK<Item>(3, rank);
    for (let i = 0; i < 10_000; i++) top.offer({ size: i % 97, name: String(i) });
    expect(top.size).toBe(3);
    expect(top.sorted().map((i) => i.size)).toEqual([96, 96, 96]);
    expect(top.sorted().map((i) => i.name)).toEqual(['1066', '1163', '1260']);
  });

  it('rejects a capacity below 1', () => {
    expect(() => new BoundedTopK<Item>(0, rank)).toThrow(RangeError);
  });
});

describe('GB units (1 GB = 1e9 bytes)', () => {
  it('parses decimal GB to exact bytes', () => {
    expect(parseGbToBytes('42.000000')).toBe(42_000_000_000n);
    expect(parseGbToBytes('0.000001')).toBe(1_000n);
    expect(parseGbToBytes('1.5')).toBe(1_500_000_000n);
    expect(parseGbToBytes('52000')).toBe(52_000_000_000_000n);
    expect(parseGbToBytes('0.0000000014')).toBe(1n);
    expect(parseGbToBytes('0.0000000015')).toBe(2n);
  });

  it('refuses what is not a non-negative decimal', () => {
    for (const bad of ['', '-1', '1e9', 'abc', '1.', '.5', ' 1', '1,5', 'NaN']) expect(parseGbToBytes(bad), bad).toBeUndefined();
  });

  it('renders bytes as GB with six decimals, exactly for sums', () => {
    const parts = ['0.1', '0.2', '0.3'].map((t) => parseGbToBytes(t)!);
    expect(bytesToGb(parts.reduce((a, b) => a + b, 0n))).toBe(0.6);
    expect(bytesToGb(1_234_567_890_123n)).toBe(1234.56789);
    expect(bytesToGb(-35_000_000_000n)).toBe(-35);
    expect(bytesToGb(499)).toBe(0);
    expect(bytesToGb(500)).toBe(0.000001);
  });

  it('formats sizes for people in decimal units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(20_480)).toBe('20.5 KB');
    expect(formatBytes(48_000_000)).toBe('48 MB');
    expect(formatBytes(123_456_789_000)).toBe('123 GB');
  });
});

describe('ScanDeadline', () => {
  it('absorbs its own expiry and reports it', async () => {
    const caller = new AbortController();
    const outcome = await withDeadline(caller.signal, 20, async (deadline) => {
      try {
        await new Promise((_, reject) => deadline.signal.addEventListener('abort', () => reject(deadline.signal.reason)));
        return 'finished';
      } catch (error) {
        expect(deadline.expired).toBe(true);
        return deadline.absorbExpiry(error) ? 'stopped' : 'unreachable';
      }
    });
    expect(outcome).toBe('stopped');
  });

  it('rethrows the caller cancellation rather than treating it as the budget', async () => {
    const caller = new AbortController();
    const deadline = new ScanDeadline(caller.signal, 60_000);
    const cancelled = new Error('client cancelled');
    caller.abort(cancelled);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.expired).toBe(false);
    expect(() => deadline.absorbExpiry(new Error('aborted fetch'))).toThrow(cancelled);
    deadline.dispose();
  });

  it('rethrows ordinary failures while the budget lasts', () => {
    const deadline = new ScanDeadline(new AbortController().signal, 60_000);
    const failure = new Error('B2 said no');
    expect(() => deadline.absorbExpiry(failure)).toThrow(failure);
    deadline.dispose();
  });
});
