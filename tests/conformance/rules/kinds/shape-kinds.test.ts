import { describe, expect, it } from 'vitest';
import { CHECK_KINDS } from '../../../../src/conformance/rules/kinds/index.js';
import type { RuleContext } from '../../../../src/conformance/rules/types.js';
import { contextOf, publishedContract, ruleCheck, surface, type ToolLike } from '../../../support/rule-context.js';

/**
 * The kinds that judge one tool's shape (keys, property names, annotations, text length,
 * contract counts and hash), run directly on hand-built tools with the parameters the rules in
 * rules/*.json pass. Each clause has a case that fires and a near miss that does not.
 */
const BOTH = ['modern', 'legacy'];

function runRule(file: string, id: string, tools: ToolLike[], extra: Partial<RuleContext> = {}) {
  const { kind, ...params } = ruleCheck(file, id);
  return CHECK_KINDS[kind]!.run(params, contextOf(tools, extra));
}

const tool = (name: string, parts: Record<string, unknown>): ToolLike => ({ name, ...parts });
const input = (properties: Record<string, unknown>, required?: string[]) => ({
  type: 'object',
  properties,
  ...(required ? { required } : {}),
});

describe('forbidden-keys (credentials/prohibited-field, credentials/x-mcp-header)', () => {
  const { keys } = ruleCheck('credentials', 'credentials/prohibited-field') as unknown as { keys: string[] };

  it.each(keys)('%s as a key anywhere in the input schema is reported with its path', (key) => {
    const found = runRule('credentials', 'credentials/prohibited-field', [
      tool('b2_x_y', { inputSchema: input({ outer: { type: 'object', properties: { [key]: { type: 'string' } } } }) }),
    ]);
    expect(found).toEqual([{ tool: 'b2_x_y', path: `inputSchema.properties.outer.properties.${key}`, scope: BOTH, data: { key } }]);
  });

  it.each(['outputSchema', 'annotations', '_meta'])('the key is found in %s, and inside arrays', (part) => {
    const found = runRule('credentials', 'credentials/prohibited-field', [
      tool('b2_x_y', { [part]: { list: [{ note: 1 }, { password: 'x' }] } }),
    ]);
    expect(found).toEqual([{ tool: 'b2_x_y', path: `${part}.list[1].password`, scope: BOTH, data: { key: 'password' } }]);
  });

  it('near misses: another case, a longer name, the key in a description or a value, not a key', () => {
    const found = runRule('credentials', 'credentials/prohibited-field', [
      tool('b2_x_y', {
        description: 'password',
        inputSchema: input({ Password: { type: 'string' }, passwords: {}, note: { enum: ['password'] } }),
      }),
    ]);
    expect(found).toEqual([]);
  });

  it('x-mcp-header is matched in any case', () => {
    const found = runRule('credentials', 'credentials/x-mcp-header', [
      tool('b2_x_y', { _meta: { 'X-MCP-Header': 'a' }, inputSchema: input({ 'x-mcp-headers': {} }) }),
    ]);
    expect(found).toEqual([{ tool: 'b2_x_y', path: '_meta["X-MCP-Header"]', scope: BOTH, data: { key: 'X-MCP-Header' } }]);
  });

  it('without caseInsensitive, another case does not match', () => {
    const found = CHECK_KINDS['forbidden-keys']!.run(
      { keys: ['x-mcp-header'], parts: ['_meta'] },
      contextOf([tool('b2_x_y', { _meta: { 'X-MCP-Header': 'a', 'x-mcp-header': 'b' } })]),
    );
    expect(found).toEqual([{ tool: 'b2_x_y', path: '_meta["x-mcp-header"]', scope: BOTH, data: { key: 'x-mcp-header' } }]);
  });

  it('only the named parts are searched', () => {
    const found = CHECK_KINDS['forbidden-keys']!.run(
      { keys: ['password'], parts: ['inputSchema'] },
      contextOf([tool('b2_x_y', { _meta: { password: 1 }, outputSchema: { password: 1 } })]),
    );
    expect(found).toEqual([]);
  });
});

describe('property-name-pattern (credentials/secret-input, credentials/secret-like-nested)', () => {
  it.each(['password', 'userPassword', 'SECRET', 'clientSecret'])('top-level input %s is reported', (name) => {
    const found = runRule('credentials', 'credentials/secret-input', [
      tool('b2_x_y', { inputSchema: input({ [name]: { type: 'string' } }) }),
    ]);
    expect(found).toHaveLength(1);
    expect(found[0]).toEqual({
      tool: 'b2_x_y',
      path: `inputSchema.properties.${name}`,
      scope: BOTH,
      data: { field: name, pattern: /pass/i.test(name) ? 'password' : 'secret' },
    });
  });

  it('a nested password is not a top-level input, and a harmless top-level name is not reported', () => {
    const found = runRule('credentials', 'credentials/secret-input', [
      tool('b2_x_y', { inputSchema: input({ options: { type: 'object', properties: { password: {} } }, passage: {} }) }),
    ]);
    expect(found).toEqual([]);
  });

  it.each([
    ['token', 'token'],
    ['sessionToken', 'token'],
    ['passwd', 'passw(or)?d'],
    ['apiKey', '(api|access|application|master|private|secret|signing|encryption|session|auth)[_-]?key$'],
    ['signing_key', '(api|access|application|master|private|secret|signing|encryption|session|auth)[_-]?key$'],
    ['AUTH-KEY', '(api|access|application|master|private|secret|signing|encryption|session|auth)[_-]?key$'],
  ])('nested %s matches %s', (name, pattern) => {
    const found = runRule('credentials', 'credentials/secret-like-nested', [
      tool('b2_x_y', { inputSchema: input({ outer: { type: 'object', properties: { [name]: { type: 'string' } } } }) }),
    ]);
    expect(found).toEqual([
      {
        tool: 'b2_x_y',
        path: `inputSchema.properties.outer.properties[${JSON.stringify(name)}]`.replace(
          /\[("[A-Za-z_$][A-Za-z0-9_$]*")\]$/,
          (_m, q: string) => `.${JSON.parse(q)}`,
        ),
        scope: BOTH,
        data: { field: name, pattern },
      },
    ]);
  });

  it('nested near misses: a key that does not end the name, and top-level secrets (the other rule)', () => {
    const found = runRule('credentials', 'credentials/secret-like-nested', [
      tool('b2_x_y', { inputSchema: input({ token: {}, outer: { type: 'object', properties: { apiKeyId: {}, keyName: {} } } }) }),
    ]);
    expect(found).toEqual([]);
  });

  it('allow exempts a name; only the first matching pattern is named', () => {
    const params = { patterns: ['sec', 'secret'], scope: 'top-level', parts: ['inputSchema'], allow: ['secretName'] };
    const found = CHECK_KINDS['property-name-pattern']!.run(
      params,
      contextOf([tool('b2_x_y', { inputSchema: input({ secretName: {}, secretValue: {} }) })]),
    );
    expect(found).toEqual([
      { tool: 'b2_x_y', path: 'inputSchema.properties.secretValue', scope: BOTH, data: { field: 'secretValue', pattern: 'sec' } },
    ]);
  });

  it('without flags the patterns are case-sensitive; nested depth counts from the input object', () => {
    const params = { patterns: ['secret'], scope: 'nested', parts: ['inputSchema'] };
    const schema = input({ a: { type: 'array', items: { type: 'object', properties: { Secret: {}, secret: {} } } } });
    expect(CHECK_KINDS['property-name-pattern']!.run(params, contextOf([tool('b2_x_y', { inputSchema: schema })]))).toEqual([
      {
        tool: 'b2_x_y',
        path: 'inputSchema.properties.a.items.properties.secret',
        scope: BOTH,
        data: { field: 'secret', pattern: 'secret' },
      },
    ]);
  });
});

describe('property-iff-annotation (gating/confirm-iff-destructive)', () => {
  const run = (parts: Record<string, unknown>) => runRule('gating', 'gating/confirm-iff-destructive', [tool('b2_delete_bucket', parts)]);

  it('confirm with destructiveHint: true, and neither: conform', () => {
    expect(run({ inputSchema: input({ confirm: { type: 'boolean' } }), annotations: { destructiveHint: true } })).toEqual([]);
    expect(run({ inputSchema: input({ bucketId: {} }), annotations: { destructiveHint: false } })).toEqual([]);
    expect(run({})).toEqual([]);
  });

  it('confirm without destructiveHint: true is reported at the property', () => {
    for (const annotations of [{ destructiveHint: false }, { destructiveHint: 'true' }, {}, undefined]) {
      expect(run({ inputSchema: input({ confirm: { type: 'boolean' } }), annotations })).toEqual([
        {
          tool: 'b2_delete_bucket',
          path: 'inputSchema.properties.confirm',
          scope: BOTH,
          data: {
            property: 'confirm',
            annotation: 'destructiveHint',
            value: 'true',
            situation: 'offers "confirm" without destructiveHint: true',
          },
        },
      ]);
    }
  });

  it('destructiveHint: true without a confirm input is reported at the annotation', () => {
    for (const inputSchema of [input({ bucketId: {} }), { type: 'object' }, undefined, 'junk']) {
      expect(run({ inputSchema, annotations: { destructiveHint: true } })).toEqual([
        {
          tool: 'b2_delete_bucket',
          path: 'annotations.destructiveHint',
          scope: BOTH,
          data: {
            property: 'confirm',
            annotation: 'destructiveHint',
            value: 'true',
            situation: 'has destructiveHint: true but no "confirm" input',
          },
        },
      ]);
    }
  });
});

describe('property-shape (gating/confirm-boolean, gating/confirm-optional)', () => {
  it('a boolean, optional confirm conforms; a tool without confirm is not judged', () => {
    expect(
      runRule('gating', 'gating/confirm-boolean', [
        tool('b2_x_y', { inputSchema: input({ confirm: { type: 'boolean' } }) }),
        tool('b2_a_b', { inputSchema: input({ id: {} }, ['id']) }),
      ]),
    ).toEqual([]);
    expect(
      runRule('gating', 'gating/confirm-optional', [tool('b2_x_y', { inputSchema: input({ confirm: { type: 'boolean' } }, ['other']) })]),
    ).toEqual([]);
  });

  it.each([
    [{ type: 'string' }, '"string"'],
    [{ type: ['boolean', 'null'] }, '["boolean","null"]'],
    [{}, 'absent'],
    [true, 'true'],
  ])('confirm with schema %j is reported with the type found (%s)', (schema, actual) => {
    expect(runRule('gating', 'gating/confirm-boolean', [tool('b2_x_y', { inputSchema: input({ confirm: schema }) })])).toEqual([
      {
        tool: 'b2_x_y',
        path: 'inputSchema.properties.confirm.type',
        scope: BOTH,
        data: { property: 'confirm', expected: 'boolean', actual },
      },
    ]);
  });

  it('a required confirm is reported at inputSchema.required; the type rule does not judge requiredness', () => {
    const required = tool('b2_x_y', { inputSchema: input({ confirm: { type: 'boolean' } }, ['confirm']) });
    expect(runRule('gating', 'gating/confirm-optional', [required])).toEqual([
      { tool: 'b2_x_y', path: 'inputSchema.required', scope: BOTH, data: { property: 'confirm' } },
    ]);
    expect(runRule('gating', 'gating/confirm-boolean', [required])).toEqual([]);
    const wrongType = tool('b2_x_y', { inputSchema: input({ confirm: { type: 'string' } }) });
    expect(runRule('gating', 'gating/confirm-optional', [wrongType])).toEqual([]);
  });
});

describe('annotations-present (annotations/complete)', () => {
  const all = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true };

  it('all four boolean hints conform', () => {
    expect(runRule('annotations', 'annotations/complete', [tool('b2_x_y', { annotations: all })])).toEqual([]);
  });

  it.each(Object.keys(all))('%s missing, or not a boolean, is reported', (key) => {
    const { [key]: _gone, ...rest } = all as Record<string, unknown>;
    expect(runRule('annotations', 'annotations/complete', [tool('b2_x_y', { annotations: rest })])).toEqual([
      { tool: 'b2_x_y', path: `annotations.${key}`, scope: BOTH, data: { key, type: 'boolean', actual: 'absent' } },
    ]);
    expect(runRule('annotations', 'annotations/complete', [tool('b2_x_y', { annotations: { ...rest, [key]: 'false' } })])).toEqual([
      { tool: 'b2_x_y', path: `annotations.${key}`, scope: BOTH, data: { key, type: 'boolean', actual: '"false"' } },
    ]);
  });

  it('no annotations at all: one finding per hint', () => {
    expect(
      runRule('annotations', 'annotations/complete', [tool('b2_x_y', { annotations: [true] })]).map((finding) => finding.path),
    ).toEqual(Object.keys(all).map((key) => `annotations.${key}`));
  });
});

describe('annotations-exclusive (annotations/read-only-and-destructive)', () => {
  it('read-only and destructive at once is reported; either alone is not', () => {
    expect(
      runRule('annotations', 'annotations/read-only-and-destructive', [
        tool('b2_x_y', { annotations: { readOnlyHint: true, destructiveHint: true } }),
      ]),
    ).toEqual([{ tool: 'b2_x_y', path: 'annotations', scope: BOTH, data: { keys: 'readOnlyHint and destructiveHint', value: 'true' } }]);
    expect(
      runRule('annotations', 'annotations/read-only-and-destructive', [
        tool('b2_a_b', { annotations: { readOnlyHint: true, destructiveHint: false } }),
        tool('b2_c_d', { annotations: { destructiveHint: true } }),
        tool('b2_e_f', {}),
      ]),
    ).toEqual([]);
  });
});

describe('text-length (description/present, description/length)', () => {
  const described = (description: unknown) => [tool('b2_x_y', { description })];

  it('present: a missing, non-string or blank description is reported', () => {
    for (const description of [undefined, 42, '', '   \n']) {
      expect(runRule('description', 'description/present', described(description))).toEqual([
        { tool: 'b2_x_y', path: 'description', scope: BOTH, data: { length: 0, min: 1, max: 'none' } },
      ]);
    }
    expect(runRule('description', 'description/present', described('x'))).toEqual([]);
  });

  it.each([
    [19, true],
    [20, false],
    [1024, false],
    [1025, true],
  ])('length: %i characters → reported: %s', (length, reported) => {
    const found = runRule('description', 'description/length', described(`  ${'d'.repeat(length)}  `));
    expect(found).toEqual(reported ? [{ tool: 'b2_x_y', path: 'description', scope: BOTH, data: { length, min: 20, max: 1024 } }] : []);
  });

  it('length skips a missing description (present reports it)', () => {
    expect(runRule('description', 'description/length', described(undefined))).toEqual([]);
    expect(CHECK_KINDS['text-length']!.run({ field: 'title', min: 2 }, contextOf(described('irrelevant')))).toEqual([
      { tool: 'b2_x_y', path: 'title', scope: BOTH, data: { length: 0, min: 2, max: 'none' } },
    ]);
  });
});

describe('counts-equal-contract and hash-equal-contract (contract/*)', () => {
  const CONTRACT = publishedContract();
  const profile = CONTRACT.profiles.full;
  const names = profile.names!;
  const backing = CONTRACT.toolBacking as Record<string, string>;
  const contextFor = (listed: string[], hash = profile.hash) =>
    contextOf([], { contract: CONTRACT }, [
      {
        ...surface(
          'modern',
          listed.map((name) => ({ name })),
          hash,
        ),
        names: listed,
      },
      {
        ...surface(
          'legacy',
          listed.map((name) => ({ name })),
          hash,
        ),
        names: listed,
      },
    ]);

  it('the full profile as published matches its counts and its hash', () => {
    for (const id of ['contract/prefix-counts', 'contract/backing-counts', 'contract/profile-hash']) {
      const { kind, ...params } = ruleCheck('contract', id);
      expect(CHECK_KINDS[kind]!.run(params, contextFor(names)), id).toEqual([]);
    }
  });

  it('one tool fewer: its prefix and its backing category are each one short', () => {
    const dropped = names.find((name) => name.startsWith('s3_'))!;
    const listed = names.filter((name) => name !== dropped);
    const prefix = ruleCheck('contract', 'contract/prefix-counts');
    const expectedPrefix = profile.counts as Record<string, number>;
    expect(CHECK_KINDS['counts-equal-contract']!.run({ groupBy: prefix.groupBy }, contextFor(listed))).toEqual([
      { scope: BOTH, key: 's3', data: { group: 's3', expected: expectedPrefix.s3, actual: expectedPrefix.s3! - 1 } },
    ]);
    const category = backing[dropped]!;
    const expectedBacking = profile.backingCounts as Record<string, number>;
    expect(CHECK_KINDS['counts-equal-contract']!.run({ groupBy: 'backing' }, contextFor(listed))).toEqual([
      {
        scope: BOTH,
        key: category,
        data: { group: category, expected: expectedBacking[category], actual: expectedBacking[category]! - 1 },
      },
    ]);
  });

  it('a tool the contract does not map counts as unmapped; a bz_ tool is one more in its group; an unknown prefix is no group', () => {
    expect(CHECK_KINDS['counts-equal-contract']!.run({ groupBy: 'backing' }, contextFor([...names, 'b2_new_tool']))).toEqual([
      { scope: BOTH, key: 'unmapped', data: { group: 'unmapped', expected: 0, actual: 1 } },
    ]);
    const bz = (profile.counts as Record<string, number>).bz ?? 0;
    expect(CHECK_KINDS['counts-equal-contract']!.run({ groupBy: 'prefix' }, contextFor([...names, 'bz_new_tool']))).toEqual([
      { scope: BOTH, key: 'bz', data: { group: 'bz', expected: bz, actual: bz + 1 } },
    ]);
    expect(CHECK_KINDS['counts-equal-contract']!.run({ groupBy: 'prefix' }, contextFor([...names, 'gcs_new_tool']))).toEqual([]);
  });

  it('a profile the contract does not know, or no contract: nothing to compare', () => {
    const unknown = { ...contextFor(names.slice(1), 'other'), profile: 'nonesuch' } as RuleContext;
    expect(CHECK_KINDS['counts-equal-contract']!.run({ groupBy: 'prefix' }, unknown)).toEqual([]);
    expect(CHECK_KINDS['hash-equal-contract']!.run({}, unknown)).toEqual([]);
    const none = { ...contextFor(names.slice(1), 'other'), contract: undefined } as RuleContext;
    expect(CHECK_KINDS['hash-equal-contract']!.run({}, none)).toEqual([]);
  });

  it('a different hash is reported per judged surface with both hashes shortened to 12', () => {
    const live = 'f'.repeat(64);
    expect(CHECK_KINDS['hash-equal-contract']!.run({}, contextFor(names, live))).toEqual([
      { scope: BOTH, data: { expected: profile.hash.slice(0, 12), actual: 'f'.repeat(12) } },
    ]);
  });
});
