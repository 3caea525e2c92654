import { decode } from '@toon-format/toon';
import { describe, expect, it } from 'vitest';
import { errorResult, formatToolError, successResult } from '../../../src/server/policy/serialize.js';
import { ToolError } from '../../../src/server/errors.js';

const listing = {
  files: Array.from({ length: 50 }, (_, i) => ({
    fileName: `photos/2026/img-${i}.jpg`,
    size: 1000 + i,
    uploaded: `2026-01-${String((i % 28) + 1).padStart(2, '0')}`,
  })),
  truncated: false,
};
const nested = { account: { id: 'a', limits: { buckets: { max: 100, used: [1, 2, { deep: { deeper: 'x' } }] } } } };
const text = (r: ReturnType<typeof successResult>) => (r.content[0] as { text: string }).text;

describe('result serializer', () => {
  it('json: compact JSON equal to structuredContent, values normalized through JSON', () => {
    const result = successResult({ structured: { a: 1, skip: undefined, n: Number.NaN, when: new Date(0) } }, { format: 'json' });
    expect(result.structuredContent).toEqual({ a: 1, n: null, when: '1970-01-01T00:00:00.000Z' });
    expect(text(result)).toBe(JSON.stringify(result.structuredContent));
  });

  it('toon: the text decodes to structuredContent', () => {
    const result = successResult({ structured: listing }, { format: 'toon' });
    expect(text(result)).toMatch(/^files\[50\]\{fileName,size,uploaded\}:/);
    expect(decode(text(result))).toEqual(result.structuredContent);
  });

  it('toon falls back to compact JSON beyond the bounds, once per reason', () => {
    const reasons: string[] = [];
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 70; i += 1) deep = { d: deep };
    const encoder = { format: 'toon' as const, onToonFallback: (r: string) => reasons.push(r) };
    expect(text(successResult({ structured: deep }, encoder))).toBe(JSON.stringify(deep));
    expect(text(successResult({ structured: { bad: 'x\ud800y' } }, encoder))).toBe('{"bad":"x\\ud800y"}');
    expect(reasons).toEqual(['bounds', 'encode_error']);
  });

  it('auto: TOON for a table, compact JSON when TOON would not be smaller', () => {
    const table = successResult({ structured: listing }, { format: 'auto' });
    expect(text(table).startsWith('files[50]')).toBe(true);
    // Deep, keyed, non-tabular data: indentation costs TOON more than JSON's braces.
    const deep = successResult({ structured: nested }, { format: 'auto' });
    expect(text(deep)).toBe(JSON.stringify(nested));
  });

  it('errors and plain status lines stay plain text', () => {
    expect(successResult({ text: 'Deleted.' }, { format: 'toon' })).toEqual({ content: [{ type: 'text', text: 'Deleted.' }] });
    const error = errorResult(formatToolError(new ToolError(404, 'not_found', 'No such bucket', 'req-1')));
    expect(error).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'B2 Error [not_found] (HTTP 404): No such bucket (requestId: req-1)' }],
    });
  });
});
