import { decode, encode } from '@toon-format/toon';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeToon } from '../../../src/server/policy/toon.js';

/** Key-order-independent, type-exact text form; keeps an own `__proto__` key visible. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
}

function expectRoundTrip(value: unknown): void {
  const expected = JSON.parse(JSON.stringify(value)) as unknown;
  const text = encodeToon(expected);
  let decoded: unknown;
  try {
    decoded = decode(text);
  } catch (error) {
    throw new Error(`official decoder rejected ${JSON.stringify(text)}: ${String(error)}`);
  }
  // An empty top-level object encodes to "" (the serializer substitutes `{}`); the decoder reads "" as {}.
  expect(canonical(decoded), text).toBe(canonical(expected));
}

const HOSTILE_STRINGS = [
  ',',
  ':',
  '[',
  ']',
  '{',
  '}',
  'a,b',
  'a:b',
  'a: b',
  'k[2]: x',
  'x{y}',
  '[]',
  '{}',
  '[1]:',
  '- item',
  '-',
  '--',
  '#comment',
  '# x',
  '"',
  '""',
  '"quoted"',
  "it's",
  '\\',
  'C:\\path\\',
  '\\n',
  'line\nbreak',
  'cr\rlf\r\n',
  'tab\there',
  '\t',
  '\u0000',
  '\u0001\u001f',
  '\u007f',
  '\u2028\u2029',
  '\ufeffbom',
  'zero\u200bwidth',
  'café',
  '😀',
  '👩‍👩‍👧 family',
  'עברית',
  'مرحبا',
  '\u202eRTL override',
  '日本語',
  '123',
  '1e5',
  '1E+5',
  '-1',
  '+2',
  '0.5',
  '1.2.3',
  '05',
  '.5',
  '5.',
  '-0',
  '0',
  'NaN',
  'Infinity',
  '0x1f',
  'true',
  'false',
  'null',
  'True',
  'NULL',
  ' ',
  '  lead',
  'trail  ',
  ' both ',
  '',
  'plain',
  'two words',
  '=SUM(A1)',
  '+cmd',
  '@at',
  'a|b',
  'semi;colon',
  'hyphen-ated',
  'dot.ted',
  '__proto__',
  'constructor',
];

const HOSTILE_KEYS = [
  'a b',
  'my-key',
  '9x',
  '__proto__',
  '',
  'k:v',
  'k"q',
  "k'q",
  'k\\b',
  'a.b',
  '_ok',
  'x[1]',
  'x{y}',
  'a,b',
  '-dash',
  '#hash',
  'new\nline',
  ' spaced ',
  'true',
  '123',
  'ключ',
  '😀',
];

/** Own-property objects, `__proto__` included (Object.fromEntries defines data properties). */
function object(entries: Array<[string, unknown]>): Record<string, unknown> {
  return Object.fromEntries(entries);
}

describe('round trip through the official decoder: hostile strings', () => {
  it.each(HOSTILE_STRINGS.map((text) => [text]))('string %j in every position', (text) => {
    expectRoundTrip(text);
    expectRoundTrip([text]);
    expectRoundTrip({ v: text, after: 1 });
    expectRoundTrip({ list: [text, 1, text] });
    expectRoundTrip({
      table: [
        { a: text, b: 1 },
        { a: 'x', b: text },
      ],
    });
    expectRoundTrip({
      group: [
        { id: text, m: { k: text } },
        { id: 2, m: { k: text } },
      ],
    });
    expectRoundTrip({ nested: { deeper: { value: text } } });
    expectRoundTrip({ keyed: { one: { a: text, b: 1 }, two: { a: 2, b: text } } });
    expectRoundTrip({ items: [text, { a: text }, [text, text], { a: { b: text }, c: text }, {}] });
    expectRoundTrip({ items: [{ rows: [{ x: text }, { x: text }], tag: text }, [{ y: text }]] });
    expectRoundTrip([[text], [text, 1]]);
  });

  it.each(HOSTILE_KEYS.map((key) => [key]))('key %j in every position', (key) => {
    expectRoundTrip(object([[key, 1]]));
    expectRoundTrip(
      object([
        ['first', 0],
        [key, 'v'],
      ]),
    );
    expectRoundTrip({ nested: object([[key, object([[key, null]])]]) });
    expectRoundTrip({
      table: [
        object([
          [key, 1],
          ['b', 2],
        ]),
        object([
          ['b', 3],
          [key, 4],
        ]),
      ],
    });
    expectRoundTrip({ group: [{ g: object([[key, 1]]) }, { g: object([[key, 2]]) }] });
    expectRoundTrip({
      keyed: object([
        [key, { a: 1 }],
        ['other', { a: 2 }],
      ]),
    });
    expectRoundTrip({ keyedFields: { p: object([[key, 1]]), q: object([[key, 2]]) } });
    expectRoundTrip({
      items: [
        object([
          [key, 1],
          ['z', 2],
        ]),
        object([[key, [1, 2]]]),
        object([[key, {}]]),
      ],
    });
    expectRoundTrip({
      items: [
        object([
          [key, [{ x: 1 }, { x: 2 }]],
          ['z', 1],
        ]),
        'tail',
      ],
    });
    expectRoundTrip([object([[key, { a: { x: 1 }, b: { x: 2 } }]]), 1]);
    expectRoundTrip(
      object([
        [key, []],
        ['arr', [object([[key, 'x']])]],
      ]),
    );
  });

  it('keeps an own __proto__ key parsed from JSON', () => {
    const value = JSON.parse('{"__proto__":{"polluted":true},"rows":[{"__proto__":1},{"__proto__":2}]}') as unknown;
    expectRoundTrip(value);
    expect(encodeToon(value)).toBe('__proto__:\n  polluted: true\nrows[2]{__proto__}:\n  1\n  2');
  });
});

// One-character units biased towards characters that matter to the TOON syntax.
const hostileUnit = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...',:[]{}"\\ \t\n\r\u0001-#+.e0159tfnul'.split(''), '\u007f', '\ufeff') },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom('😀', 'é', 'ש', 'ع', '\u2028') },
);
const jsonValues = fc.jsonValue({ maxDepth: 5, stringUnit: hostileUnit });
const cellValue = fc.oneof(
  fc.string({ unit: hostileUnit, maxLength: 8 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);

describe('round trip through the official decoder: properties', () => {
  it('arbitrary JSON values', () => {
    fc.assert(
      fc.property(jsonValues, (value) => {
        expectRoundTrip(value);
      }),
      { numRuns: 600 },
    );
  });

  it('uniform arrays of objects (tabular, nested field groups, keyed tables)', () => {
    const keys = fc.uniqueArray(fc.string({ unit: hostileUnit, maxLength: 4 }), { minLength: 1, maxLength: 4 });
    const uniformRows = keys.chain((columns) => {
      const row = fc.tuple(
        ...columns.map(() =>
          fc.oneof({ weight: 4, arbitrary: cellValue }, { weight: 1, arbitrary: fc.record({ x: cellValue, y: cellValue }) }),
        ),
      );
      return fc.array(row, { minLength: 1, maxLength: 6 }).map((rows) => ({ columns, rows }));
    });
    fc.assert(
      fc.property(uniformRows, fc.string({ unit: hostileUnit, maxLength: 4 }), ({ columns, rows }, entryPrefix) => {
        const objects = rows.map((cells) => object(columns.map((column, i) => [column, cells[i]])));
        expectRoundTrip({ rows: objects });
        expectRoundTrip(objects);
        expectRoundTrip({ items: [{ rows: objects, after: true }, 'x'] });
        expectRoundTrip({ keyed: object(objects.map((row, i) => [`${entryPrefix}${i}`, row])) });
      }),
      { numRuns: 500 },
    );
  });

  it('produces the same text as the official encoder (differential check)', () => {
    fc.assert(
      fc.property(jsonValues, (value) => {
        const normalized = JSON.parse(JSON.stringify(value)) as unknown;
        expect(encodeToon(normalized)).toBe(encode(normalized as never));
      }),
      { numRuns: 500 },
    );
  });
});
