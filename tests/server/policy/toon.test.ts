import { describe, expect, it } from 'vitest';
import { TOON_BOUNDS, TOON_SPEC_VERSION, encodeToon, exceedsToonBounds } from '../../../src/server/policy/toon.js';

// Worked examples of the TOON rules of docs/contract.md §10.2 (`⏎` written as `\n`).
const WORKED_EXAMPLES: Array<[input: string, expected: string]> = [
  ['{"ok":true}', 'ok: true'],
  [
    '{"n":1,"s":"hello world","e":"","num":"123","b":"true","c":"a:b","d":"-x","k":"a,b","sp":" x"}',
    'n: 1\ns: hello world\ne: ""\nnum: "123"\nb: "true"\nc: "a:b"\nd: "-x"\nk: "a,b"\nsp: " x"',
  ],
  ['{"nested":{"a":1,"empty":{}},"arr":[1,"two",null,false],"none":[]}', 'nested:\n  a: 1\n  empty:\narr[4]: 1,two,null,false\nnone: []'],
  [
    '{"files":[{"name":"a.txt","size":10},{"name":"b, c","size":20}],"truncated":false}',
    'files[2]{name,size}:\n  a.txt,10\n  "b, c",20\ntruncated: false',
  ],
  ['{"rows":[{"id":1,"meta":{"x":1,"y":"a"}},{"id":2,"meta":{"x":2,"y":"b"}}]}', 'rows[2]{id,meta{x,y}}:\n  1,1,a\n  2,2,b'],
  ['{"byBucket":{"bkt1":{"gb":1.5,"files":3},"bkt2":{"gb":2,"files":4}}}', 'byBucket[2:]{gb,files}:\n  bkt1: 1.5,3\n  bkt2: 2,4'],
  ['{"items":[{"a":1},{"b":2},3,[1,2],[{"x":1}]]}', 'items[5]:\n  - a: 1\n  - b: 2\n  - 3\n  - [2]: 1,2\n  - [1]:\n    - x: 1'],
  ['{"items":[{"a":1,"b":{"c":2}},{"a":3}]}', 'items[2]:\n  - a: 1\n    b:\n      c: 2\n  - a: 3'],
  [
    '{"items":[{"rows":[{"x":1},{"x":2}],"tag":"t"},{"other":1}]}',
    'items[2]:\n  - rows[2]{x}:\n      1\n      2\n    tag: t\n  - other: 1',
  ],
  ['{"m":[[1,2],[3]]}', 'm[2]:\n  - [2]: 1,2\n  - [1]: 3'],
  ['[{"a":1},{"a":2}]', '[2]{a}:\n  1\n  2'],
  ['{"my-key":1,"a.b":2,"9x":3,"_ok":4}', '"my-key": 1\na.b: 2\n"9x": 3\n_ok: 4'],
  [
    '{"s":"line\\nbreak \\"q\\" \\\\","h":"#tag","br":"[x]","e5":"1e5","v":"1.2.3","c":"\\u0001"}',
    's: "line\\nbreak \\"q\\" \\\\"\nh: "#tag"\nbr: "[x]"\ne5: "1e5"\nv: 1.2.3\nc: "\\u0001"',
  ],
  // The serializer turns this empty text into `{}`.
  ['{}', ''],
];

describe('encodeToon: §10.2 worked examples', () => {
  it.each(WORKED_EXAMPLES)('%s', (input, expected) => {
    expect(encodeToon(JSON.parse(input))).toBe(expected);
  });
});

describe('encodeToon: further forms', () => {
  it('encodes top-level primitives and arrays without a key', () => {
    expect(encodeToon(null)).toBe('null');
    expect(encodeToon(true)).toBe('true');
    expect(encodeToon(1e21)).toBe('1e+21');
    expect(encodeToon(-0)).toBe('0');
    expect(encodeToon({ n: Number.NaN, i: Number.POSITIVE_INFINITY })).toBe('n: null\ni: null');
    expect(encodeToon('plain text')).toBe('plain text');
    expect(encodeToon('')).toBe('""');
    expect(encodeToon([])).toBe('[]');
    expect(encodeToon([1, 'a b', null])).toBe('[3]: 1,a b,null');
    expect(encodeToon([[1], []])).toBe('[2]:\n  - [1]: 1\n  - [0]:');
  });

  it('uses the keyed table at the top level, never for a keyless list item', () => {
    expect(encodeToon({ a: { x: 1 }, b: { x: 2 } })).toBe('[2:]{x}:\n  a: 1\n  b: 2');
    // A list item that is itself such an object falls back to fields under the dash.
    expect(encodeToon({ l: [{ a: { x: 1 }, b: { x: 2 } }, 1] })).toBe('l[2]:\n  - a:\n      x: 1\n    b:\n      x: 2\n  - 1');
  });

  it('puts a keyed table as the first list-item field on the dash line', () => {
    expect(encodeToon([{ t: { p: { n: 1 }, q: { n: 2 } }, z: 0 }, 'x'])).toBe(
      '[2]:\n  - t[2:]{n}:\n      p: 1\n      q: 2\n    z: 0\n  - x',
    );
  });

  it('requires ≥ 2 non-empty object entries for the keyed table', () => {
    expect(encodeToon({ o: { only: { x: 1 } } })).toBe('o:\n  only:\n    x: 1');
    expect(encodeToon({ o: { a: { x: 1 }, b: {} } })).toBe('o:\n  a:\n    x: 1\n  b:');
    expect(encodeToon({ o: { a: { x: 1 }, b: 2 } })).toBe('o:\n  a:\n    x: 1\n  b: 2');
  });

  it('uses the first row key order and compares key sets, not orders', () => {
    expect(
      encodeToon({
        r: [
          { a: 1, b: 2 },
          { b: 4, a: 3 },
        ],
      }),
    ).toBe('r[2]{a,b}:\n  1,2\n  3,4');
  });

  it('falls back to list items when rows are not uniform', () => {
    expect(encodeToon({ r: [{ a: 1 }, { a: 1, b: 2 }] })).toBe('r[2]:\n  - a: 1\n  - a: 1\n    b: 2');
    expect(encodeToon({ r: [{ a: 1 }, { b: 1 }] })).toBe('r[2]:\n  - a: 1\n  - b: 1');
    expect(encodeToon({ r: [{}, {}] })).toBe('r[2]:\n  -\n  -');
    // A column mixing objects and primitives, or holding arrays, is not tabular.
    expect(encodeToon({ r: [{ a: { x: 1 } }, { a: 2 }] })).toBe('r[2]:\n  - a:\n      x: 1\n  - a: 2');
    expect(encodeToon({ r: [{ a: [1] }, { a: [2] }] })).toBe('r[2]:\n  - a[1]: 1\n  - a[1]: 2');
    expect(encodeToon({ r: [{ a: {} }, { a: {} }] })).toBe('r[2]:\n  - a:\n  - a:');
  });

  it('nests field groups more than one level deep', () => {
    const rows = [
      { id: 1, m: { p: { q: 'a' }, r: true } },
      { id: 2, m: { p: { q: 'b' }, r: false } },
    ];
    expect(encodeToon({ rows })).toBe('rows[2]{id,m{p{q},r}}:\n  1,a,true\n  2,b,false');
  });

  it('quotes hostile keys and header field names', () => {
    expect(encodeToon({ 'a b': 1, '': 2, 'k:"q"': 3 })).toBe('"a b": 1\n"": 2\n"k:\\"q\\"": 3');
    expect(encodeToon([{ 'x,y': 1 }, { 'x,y': 2 }])).toBe('[2]{"x,y"}:\n  1\n  2');
  });

  it('applies the string quoting rule', () => {
    const cases: Array<[string, string]> = [
      ['1.5', '"1.5"'],
      ['+2', '"+2"'],
      ['1E-3', '"1E-3"'],
      ['05', '"05"'],
      ['1.', '1.'],
      ['.5', '.5'],
      ['1e', '1e'],
      ['Infinity', 'Infinity'],
      ['null', '"null"'],
      ['nullish', 'nullish'],
      ['trailing\t', '"trailing\\t"'],
      ['a\tb', '"a\\tb"'],
      ['x ', '"x "'],
      ['mid#dle-x', 'mid#dle-x'],
      ['{', '"{"'],
      ['\u001f\u007f', '"\\u001f\u007f"'],
      ['emoji 😀 עברית', 'emoji 😀 עברית'],
    ];
    for (const [text, expected] of cases) expect(encodeToon({ v: text }), text).toBe(`v: ${expected}`);
  });

  it('keeps a byte-order mark at the start of the document quoted', () => {
    expect(encodeToon('\ufeffx')).toBe('"\ufeffx"');
    expect(encodeToon({ v: '\ufeffx' })).toBe('v: \ufeffx');
  });

  it('throws on lone surrogates in values and keys, accepts pairs', () => {
    expect(() => encodeToon({ v: 'a\ud800b' })).toThrow(/lone surrogate/);
    expect(() => encodeToon({ v: 'tail\udc00' })).toThrow(Error);
    expect(() => encodeToon(['\ud83d'])).toThrow(Error);
    expect(() => encodeToon({ 'k\udfff': 1 })).toThrow(Error);
    expect(() => encodeToon([{ a: '"\ud800' }, { a: 'x' }])).toThrow(Error);
    expect(encodeToon({ v: '\ud83d\ude00' })).toBe('v: 😀');
  });

  it('exposes the spec version', () => {
    expect(TOON_SPEC_VERSION).toBe('4.1');
  });
});

function nestedArrays(depth: number): unknown {
  let value: unknown = 0;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe('exceedsToonBounds', () => {
  it('has the contract limits', () => {
    expect(TOON_BOUNDS).toEqual({ maxJsonChars: 200_000, maxDepth: 64, maxNodes: 50_000 });
  });

  it('triggers on compact JSON length above 200,000', () => {
    expect(exceedsToonBounds({ a: 1 }, 200_000)).toBe(false);
    expect(exceedsToonBounds({ a: 1 }, 200_001)).toBe(true);
  });

  it('triggers on container depth above 64 (root container = 1)', () => {
    const at = nestedArrays(64);
    const over = nestedArrays(65);
    expect(exceedsToonBounds(at, JSON.stringify(at).length)).toBe(false);
    expect(exceedsToonBounds(over, JSON.stringify(over).length)).toBe(true);
    expect(exceedsToonBounds({ a: over }, 10)).toBe(true);
  });

  it('triggers on more than 50,000 values (root included)', () => {
    const at = new Array(49_999).fill(0); // 49,999 items + the array = 50,000
    const over = new Array(50_000).fill(0);
    expect(exceedsToonBounds(at, JSON.stringify(at).length)).toBe(false);
    expect(exceedsToonBounds(over, JSON.stringify(over).length)).toBe(true);
    const objects = Array.from({ length: 25_000 }, () => ({ k: 1 })); // 1 + 25,000 × 2
    expect(exceedsToonBounds(objects, 10)).toBe(true);
  });

  it('accepts primitives and small values', () => {
    expect(exceedsToonBounds('x', 3)).toBe(false);
    expect(exceedsToonBounds({ files: [{ a: 1 }] }, 20)).toBe(false);
  });
});
