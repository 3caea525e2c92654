import { describe, expect, it } from 'vitest';
import { CHECK_KINDS } from '../../../../src/conformance/rules/kinds/index.js';
import { contextOf, ruleCheck, surface } from '../../../support/rule-context.js';

/**
 * The schema kinds with the limits of rules/schema.json: each limit at its value and one past it,
 * each root keyword present and wrong, each kind of broken reference.
 */
const BOTH = ['modern', 'legacy'];
const LIMITS = ruleCheck('schema', 'schema/limits') as unknown as {
  kind: string;
  parts: string[];
  maxDepth: number;
  maxProperties: number;
  maxRefs: number;
};

function runRule(id: string, tools: ({ name: string } & Record<string, unknown>)[], bounded: unknown[] = []) {
  const { kind, ...params } = ruleCheck('schema', id);
  const surfaces = [surface('modern', tools), surface('legacy', tools), surface('witness', tools)].map((one) => ({
    ...one,
    observation: { bounded },
  }));
  return CHECK_KINDS[kind]!.run(params, contextOf([], {}, surfaces));
}

/** An object schema `depth` objects deep (the root counts as 1). */
function nested(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let level = 1; level < depth; level++) schema = { not: schema };
  return schema;
}

const ROOT = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {} };

describe('schema-root (schema/input-root)', () => {
  it('a declared dialect, type object and properties: conforms (which dialect is schema/json-schema-2020); outputSchema is not this rule', () => {
    expect(runRule('schema/input-root', [{ name: 'b2_x_y', inputSchema: ROOT, outputSchema: 'junk' }])).toEqual([]);
    expect(
      runRule('schema/input-root', [{ name: 'b2_x_y', inputSchema: { ...ROOT, $schema: 'http://json-schema.org/draft-07/schema#' } }]),
    ).toEqual([]);
  });

  it.each([
    [{ ...ROOT, type: 'array' }, [{ path: 'inputSchema.type', data: { expected: '"object"', actual: '"array"' } }]],
    [{ type: 'object', properties: {} }, [{ path: 'inputSchema.$schema', data: { expected: 'present', actual: 'absent' } }]],
    [{ $schema: ROOT.$schema, type: 'object' }, [{ path: 'inputSchema.properties', data: { expected: 'present', actual: 'absent' } }]],
  ])('%j is reported', (inputSchema, found) => {
    expect(runRule('schema/input-root', [{ name: 'b2_x_y', inputSchema }])).toEqual(
      found.map((finding) => ({ tool: 'b2_x_y', scope: BOTH, ...finding })),
    );
  });

  it('a missing or non-object input schema misses every root keyword', () => {
    for (const inputSchema of [undefined, 'junk', []]) {
      expect(runRule('schema/input-root', [{ name: 'b2_x_y', inputSchema }]).map((finding) => finding.path)).toEqual([
        'inputSchema.type',
        'inputSchema.$schema',
        'inputSchema.properties',
      ]);
    }
  });

  it('an output schema is judged when present only', () => {
    const params = { part: 'outputSchema', equals: { type: 'object' } };
    const tools = [{ name: 'b2_a_b' }, { name: 'b2_c_d', outputSchema: { type: 'array' } }];
    expect(CHECK_KINDS['schema-root']!.run(params, contextOf(tools))).toEqual([
      { tool: 'b2_c_d', path: 'outputSchema.type', scope: BOTH, data: { expected: '"object"', actual: '"array"' } },
    ]);
  });
});

describe('schema-limits (schema/limits)', () => {
  const run = (inputSchema: unknown, bounded: unknown[] = []) => runRule('schema/limits', [{ name: 'b2_x_y', inputSchema }], bounded);

  it(`nesting depth ${LIMITS.maxDepth} conforms, one more is reported`, () => {
    expect(run(nested(LIMITS.maxDepth))).toEqual([]);
    expect(run(nested(LIMITS.maxDepth + 1))).toEqual([
      {
        tool: 'b2_x_y',
        path: 'inputSchema',
        scope: BOTH,
        key: 'depth',
        data: { limit: 'nesting depth', actual: LIMITS.maxDepth + 1, max: LIMITS.maxDepth },
      },
    ]);
  });

  it(`${LIMITS.maxProperties} properties conform, one more is reported where the map is`, () => {
    const properties = (count: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, index) => [`p${index}`, { type: 'string' }]));
    expect(run({ type: 'object', properties: properties(LIMITS.maxProperties) })).toEqual([]);
    expect(run({ type: 'object', properties: { inner: { type: 'object', properties: properties(LIMITS.maxProperties + 1) } } })).toEqual([
      {
        tool: 'b2_x_y',
        path: 'inputSchema.properties.inner.properties',
        scope: BOTH,
        key: 'properties',
        data: { limit: 'property count', actual: LIMITS.maxProperties + 1, max: LIMITS.maxProperties },
      },
    ]);
  });

  it(`${LIMITS.maxRefs} references conform, one more is reported (and cycles are then not searched)`, () => {
    const refs = (count: number) => ({
      type: 'object',
      $defs: { s: { type: 'string' }, loop: { $ref: '#/$defs/loop' } },
      properties: Object.fromEntries(Array.from({ length: count }, (_, index) => [`p${index}`, { $ref: '#/$defs/s' }])),
    });
    expect(run(refs(LIMITS.maxRefs - 1)).map((finding) => finding.key)).toEqual(['ref-cycle']);
    expect(run(refs(LIMITS.maxRefs))).toEqual([
      {
        tool: 'b2_x_y',
        path: 'inputSchema',
        scope: BOTH,
        key: 'refs',
        data: { limit: '$ref count', actual: LIMITS.maxRefs + 1, max: LIMITS.maxRefs },
      },
    ]);
    const plain = (count: number) => ({
      type: 'object',
      $defs: { s: { type: 'string' } },
      properties: Object.fromEntries(Array.from({ length: count }, (_, index) => [`p${index}`, { $ref: '#/$defs/s' }])),
    });
    expect(run(plain(LIMITS.maxRefs))).toEqual([]);
  });

  it('a remote reference is reported; a local one is not', () => {
    expect(run({ type: 'object', properties: { a: { $ref: 'https://evil.example/s.json' }, b: { $ref: '#/properties/a' } } })).toEqual([
      {
        tool: 'b2_x_y',
        path: 'inputSchema.properties.a.$ref',
        scope: BOTH,
        key: 'remote-ref',
        data: { limit: 'local $ref only', actual: 'https://evil.example/s.json', max: '#…' },
      },
    ]);
  });

  it.each([
    ['itself', { $defs: { a: { $ref: '#/$defs/a' } } }, ['inputSchema.$defs.a.$ref']],
    [
      'a two-step loop',
      { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a', description: 'only prose' } } },
      ['inputSchema.$defs.a.$ref', 'inputSchema.$defs.b.$ref'],
    ],
    ['escaped pointer tokens', { $defs: { 'a/b': { $ref: '#/$defs/a~1b' } } }, ['inputSchema.$defs["a/b"].$ref']],
  ])('a reference cycle through %s is reported at each reference on it', (_name, inputSchema, paths) => {
    const found = run(inputSchema);
    expect(found.map((finding) => [finding.key, finding.path])).toEqual(paths.map((path) => ['ref-cycle', path]));
    const first = Object.values((inputSchema as { $defs: Record<string, { $ref: string }> }).$defs)[0]!.$ref;
    expect(found[0]!.data).toEqual({ limit: '$ref cycle', actual: `${first} leads back to itself`, max: 'none' });
  });

  it.each([
    [
      'a reference to a schema with its own keywords (it means something)',
      { $defs: { a: { $ref: '#/$defs/b' }, b: { type: 'string', $ref: '#/$defs/a' } } },
    ],
    ['a chain that ends', { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/c' }, c: { type: 'string' } } }],
    ['a dangling reference (the compile rule reports it)', { $defs: { a: { $ref: '#/$defs/missing' } } }],
    ['a remote step', { $defs: { a: { $ref: 'other.json#/a' } } }],
    [
      'a schema that is a $ref with more than prose (the root, an anchor)',
      { properties: { a: { $ref: '#' } }, $defs: { b: { $anchor: 'here', $ref: '#here' } } },
    ],
  ])('no cycle: %s', (_name, inputSchema) => {
    expect(run(inputSchema).filter((finding) => finding.key === 'ref-cycle')).toEqual([]);
  });

  it('a part cut on arrival for its depth is reported with its depth, for the parts judged', () => {
    const bounded = [
      { tool: 'b2_deep', part: 'inputSchema', depth: 900 },
      { tool: 'b2_deep', part: 'annotations', depth: 900 },
    ];
    expect(runRule('schema/limits', [], bounded)).toEqual([
      {
        tool: 'b2_deep',
        path: 'inputSchema',
        scope: BOTH,
        key: 'depth',
        data: { limit: 'nesting depth', actual: 900, max: LIMITS.maxDepth },
      },
    ]);
    expect(
      CHECK_KINDS['schema-limits']!.run(
        { parts: ['inputSchema'] },
        contextOf([], {}, [{ ...surface('modern', []), observation: { bounded } }] as never),
      ),
    ).toEqual([
      { tool: 'b2_deep', path: 'inputSchema', scope: ['modern'], key: 'depth', data: { limit: 'nesting depth', actual: 900, max: 256 } },
    ]);
  });

  it('without limits in the rule, only the arrival cut is judged', () => {
    const tools = [{ name: 'b2_x_y', inputSchema: { ...nested(300), properties: { a: { $ref: 'https://x.example/' } } } }];
    expect(
      CHECK_KINDS['schema-limits']!.run(
        { parts: ['inputSchema'] },
        contextOf([], {}, [{ ...surface('modern', tools), observation: { bounded: [] } }] as never),
      ),
    ).toEqual([]);
  });
});

describe('schema-patterns (schema/pattern-backtracking)', () => {
  const run = (inputSchema: unknown, outputSchema?: unknown) =>
    runRule('schema/pattern-backtracking', [{ name: 'b2_x_y', inputSchema, ...(outputSchema ? { outputSchema } : {}) }]);

  it.each(['(a+)+$', '^(\\w+\\s?)*$', '(x*)*y'])('%s (nested quantifiers) is reported', (pattern) => {
    expect(run({ type: 'object', properties: { a: { type: 'string', pattern } } })).toEqual([
      { tool: 'b2_x_y', path: 'inputSchema.properties.a.pattern', scope: BOTH, data: { pattern, elsewhere: '' } },
    ]);
  });

  it('a backtracking patternProperties key is reported at its key, in the output schema too', () => {
    expect(run({ type: 'object' }, { type: 'object', patternProperties: { '^ok$': {}, '(a+)+': {} } })).toEqual([
      { tool: 'b2_x_y', path: 'outputSchema.patternProperties["(a+)+"]', scope: BOTH, data: { pattern: '(a+)+', elsewhere: '' } },
    ]);
  });

  it('safe patterns, and a `pattern` that is a property name or not a string, are not reported', () => {
    expect(run({ type: 'object', properties: { pattern: { type: 'string', pattern: '^[a-z0-9-]{3,63}$' }, b: { pattern: 42 } } })).toEqual(
      [],
    );
  });

  it('one pattern in many places of one part is one finding at its first place, with the count of the others; each part and each pattern its own', () => {
    const bad = { type: 'string', pattern: '(a+)+' };
    const found = runRule('schema/pattern-backtracking', [
      {
        name: 'b2_x_y',
        inputSchema: { properties: { a: bad, b: bad, c: bad, d: { pattern: '(b*)*' } } },
        outputSchema: { properties: { e: bad } },
      },
    ]);
    expect(found.map((finding) => [finding.path, finding.data!.elsewhere])).toEqual([
      ['inputSchema.properties.a.pattern', ' (and 2 more places in inputSchema)'],
      ['inputSchema.properties.d.pattern', ''],
      ['outputSchema.properties.e.pattern', ''],
    ]);
  });

  it('the same pattern in two tools is reported for each', () => {
    const tool = (name: string) => ({ name, inputSchema: { properties: { a: { pattern: '(a+)+' } } } });
    expect(runRule('schema/pattern-backtracking', [tool('b2_a_b'), tool('b2_c_d')]).map((finding) => finding.tool)).toEqual([
      'b2_a_b',
      'b2_c_d',
    ]);
  });
});

describe('schema-compiles (schema/valid-in-dialect)', () => {
  const run = (tools: ({ name: string } & Record<string, unknown>)[]) => runRule('schema/valid-in-dialect', tools);

  it('the same broken schema in two tools is reported for each; a missing output schema is not judged', () => {
    const broken = { type: 'object', properties: { a: { type: 'strin' } } };
    const found = run([
      { name: 'b2_a_b', inputSchema: broken },
      { name: 'b2_c_d', inputSchema: broken, outputSchema: { type: 'object' } },
    ]);
    expect(found.map((finding) => [finding.tool, finding.path, finding.scope])).toEqual([
      ['b2_a_b', 'inputSchema.properties.a.type', BOTH],
      ['b2_c_d', 'inputSchema.properties.a.type', BOTH],
    ]);
  });

  it('the same schema in another part is judged there', () => {
    const found = run([{ name: 'b2_a_b', inputSchema: { type: 'object' }, outputSchema: { minLength: -1 } }]);
    expect(found.map((finding) => finding.path)).toEqual(['outputSchema.minLength']);
  });

  it.each([
    [
      { properties: { 'a/b': { $ref: '#/properties/a~1b/x' } } },
      'inputSchema.properties["a/b"].$ref',
      '$ref "#/properties/a~1b/x" does not resolve inside the schema',
    ],
    [
      { properties: { a: { $ref: '#/%E0%A4%A' } } },
      'inputSchema.properties.a.$ref',
      '$ref "#/%E0%A4%A" does not resolve inside the schema',
    ],
    [
      { patternProperties: { '(': {} } },
      'inputSchema.patternProperties["("]',
      /^patternProperties key is not a valid Unicode regular expression: /,
    ],
    [{ properties: { a: { pattern: '[' } } }, 'inputSchema.properties.a.pattern', /^pattern is not a valid Unicode regular expression: /],
  ])('%j is reported at %s', (inputSchema, path, problem) => {
    const [found, ...rest] = run([{ name: 'b2_x_y', inputSchema }]);
    expect(rest).toEqual([]);
    expect(found!.path).toBe(path);
    expect(found!.data!.problem).toEqual(typeof problem === 'string' ? problem : expect.stringMatching(problem));
  });

  it.each([
    [{ $defs: { 'a~b': { type: 'string' } }, properties: { a: { $ref: '#/$defs/a~0b' } } }],
    [{ $defs: { 'a b': { type: 'string' } }, properties: { a: { $ref: '#/$defs/a%20b' } } }],
    [{ items: [{ type: 'string' }], prefixItems: [{ type: 'string' }], properties: { a: { $ref: '#/prefixItems/0' } } }],
    [{ properties: { a: { $ref: '#' } } }],
    [
      {
        $defs: { x: { $anchor: 'first', type: 'string' }, y: { $anchor: 'second' } },
        properties: { a: { $ref: '#second' }, b: { $ref: '#first' } },
      },
    ],
    [{ properties: { a: { $ref: 'https://example.com/remote.json' } } }],
  ])('%j resolves', (inputSchema) => {
    expect(run([{ name: 'b2_x_y', inputSchema }]).filter((finding) => String(finding.data!.problem).includes('$ref'))).toEqual([]);
  });

  it('the meta-schema error is reported at the pointer it names, with its message', () => {
    const [found] = run([{ name: 'b2_x_y', inputSchema: { properties: { 'odd key': { items: { type: 5 } } } } }]);
    expect(found!.path).toBe('inputSchema.properties["odd key"].items.type');
    expect(typeof found!.data!.problem).toBe('string');
  });
});
