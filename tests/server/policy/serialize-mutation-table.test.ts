/**
 * The result serializer's choices, each pinned: non-object results wrapped as `{ result }`,
 * `json` never TOON, `toon` always TOON when it can encode, `auto` TOON only when estimated
 * strictly cheaper (a tie keeps JSON), fallbacks without a listener, the error line.
 */
import { describe, expect, it } from 'vitest';
import { formatToolError, successResult } from '../../../src/server/policy/serialize.js';
import { ToolError } from '../../../src/server/errors.js';

const listing = { files: Array.from({ length: 20 }, (_, i) => ({ fileName: `f-${i}.jpg`, size: 100 + i })) };
const nested = { account: { id: 'a', limits: { buckets: { max: 100, used: [1, 2, { deep: { deeper: 'x' } }] } } } };

describe('the structured value', () => {
  it.each([
    [undefined, { result: null }],
    [null, { result: null }],
    ['text', { result: 'text' }],
    [42, { result: 42 }],
    [[1, { a: 2 }], { result: [1, { a: 2 }] }],
    [{ a: 1 }, { a: 1 }],
  ])('%j is structured as %j, the JSON text equal to it', (value, structured) => {
    expect(successResult({ structured: value }, { format: 'json' })).toEqual({
      content: [{ type: 'text', text: JSON.stringify(structured) }],
      structuredContent: structured,
    });
  });
});

describe('the text format', () => {
  const text = (value: unknown, format: 'json' | 'toon' | 'auto') =>
    (successResult({ structured: value }, { format }).content[0] as { text: string }).text;

  it('json is compact JSON even where TOON is far smaller', () => {
    expect(text(listing, 'json')).toBe(JSON.stringify(listing));
  });

  it('toon is TOON even where it costs more than JSON', () => {
    expect(text(nested, 'toon')).not.toBe(JSON.stringify(nested));
    expect(text(nested, 'toon')).toMatch(/^account:\n/);
    expect(text(nested, 'auto')).toBe(JSON.stringify(nested));
  });

  it('auto keeps JSON on a tie of the estimates and takes TOON when strictly cheaper', () => {
    // Both "a[2]: 1,2" and {"a":[1,2]} are estimated at 7 tokens.
    expect(text({ a: [1, 2] }, 'toon')).toBe('a[2]: 1,2');
    expect(text({ a: [1, 2] }, 'auto')).toBe('{"a":[1,2]}');
    expect(text(listing, 'auto')).toMatch(/^files\[20\]\{fileName,size\}:/);
  });

  it('an empty object is "{}" in TOON too', () => {
    expect(text({}, 'toon')).toBe('{}');
  });

  it('a value TOON cannot encode falls back to JSON even without a fallback listener', () => {
    expect(text({ bad: 'x\ud800y' }, 'toon')).toBe('{"bad":"x\\ud800y"}');
  });
});

describe('the error line', () => {
  it('names the request id only when there is one', () => {
    expect(formatToolError(new ToolError(403, 'missing_capability', 'No listFiles'))).toBe(
      'B2 Error [missing_capability] (HTTP 403): No listFiles',
    );
    expect(formatToolError(new ToolError(500, 'internal', 'Boom', 'req-9'))).toBe(
      'B2 Error [internal] (HTTP 500): Boom (requestId: req-9)',
    );
  });
});
