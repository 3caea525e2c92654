import { describe, expect, test } from 'vitest';
import { snapshotTools } from '../../../src/contract/normalize.js';
import { diffSchema } from '../../../src/conformance/diff/schema.js';
import { diffTools, explainDrift } from '../../../src/conformance/diff/diff.js';
import type { Change } from '../../../src/conformance/diff/changes.js';

function schemaChanges(before: unknown, after: unknown): Pick<Change, 'kind' | 'path'>[] {
  const out: Pick<Change, 'kind' | 'path'>[] = [];
  diffSchema(before, after, 'inputSchema', (kind, path) => out.push({ kind, path }));
  return out;
}

const prop = (schema: Record<string, unknown>, required?: string[]) => ({
  type: 'object',
  properties: { x: schema },
  ...(required ? { required } : {}),
});

describe('direction-aware schema diff (input schemas: tighter = breaking)', () => {
  test.each([
    ['integer → number widens', { type: 'integer' }, { type: 'number' }, 'type-widened'],
    ['number → integer narrows', { type: 'number' }, { type: 'integer' }, 'type-narrowed'],
    ['adding null to the types widens', { type: 'string' }, { type: ['string', 'null'] }, 'type-widened'],
    ['dropping the type widens', { type: 'string' }, {}, 'type-widened'],
    ['string → boolean is a narrowing change', { type: 'string' }, { type: 'boolean' }, 'type-narrowed'],
    ['removing an enum value narrows', { enum: ['a', 'b'] }, { enum: ['a'] }, 'enum-narrowed'],
    ['swapping an enum value narrows', { enum: ['a', 'b'] }, { enum: ['a', 'c'] }, 'enum-narrowed'],
    ['adding an enum where there was none narrows', {}, { enum: ['a'] }, 'enum-narrowed'],
    ['const → enum containing it widens', { const: 'a' }, { enum: ['a', 'b'] }, 'enum-widened'],
    ['reordering an enum changes no validation', { enum: ['a', 'b'] }, { enum: ['b', 'a'] }, 'meta-changed'],
    ['raising minimum tightens', { minimum: 1 }, { minimum: 2 }, 'bounds-tightened'],
    ['adding maxLength tightens', {}, { maxLength: 10 }, 'bounds-tightened'],
    ['raising maxItems loosens', { maxItems: 10 }, { maxItems: 20 }, 'bounds-loosened'],
    ['dropping exclusiveMinimum loosens', { exclusiveMinimum: 0 }, {}, 'bounds-loosened'],
    ['changing a pattern tightens (cannot be ordered)', { pattern: '^a' }, { pattern: '^b' }, 'bounds-tightened'],
    ['dropping a format loosens', { format: 'email' }, {}, 'bounds-loosened'],
    ['uniqueItems true tightens', {}, { uniqueItems: true }, 'bounds-tightened'],
    [
      'adding an anyOf alternative widens',
      { anyOf: [{ type: 'string' }] },
      { anyOf: [{ type: 'string' }, { type: 'null' }] },
      'type-widened',
    ],
    [
      'removing an anyOf alternative narrows',
      { anyOf: [{ type: 'string' }, { type: 'null' }] },
      { anyOf: [{ type: 'string' }] },
      'type-narrowed',
    ],
    ['a changed default is info', { default: 1 }, { default: 2 }, 'default-changed'],
    ['a changed title is model-visible text', { title: 'A' }, { title: 'B' }, 'description-changed'],
    ['an unknown keyword change is unclassified', { 'x-note': 1 }, { 'x-note': 2 }, 'schema-changed'],
  ])('%s', (_name, before, after, kind) => {
    expect(schemaChanges(prop(before), prop(after)).map((change) => change.kind)).toEqual([kind]);
  });

  test('required: added, removed, and a new required property is one change', () => {
    expect(schemaChanges(prop({}), prop({}, ['x']))).toEqual([{ kind: 'required-added', path: 'inputSchema.properties.x' }]);
    expect(schemaChanges(prop({}, ['x']), prop({}))).toEqual([{ kind: 'required-removed', path: 'inputSchema.properties.x' }]);
    expect(schemaChanges({ type: 'object', properties: {} }, prop({}, ['x']))).toEqual([
      { kind: 'required-added', path: 'inputSchema.properties.x' },
    ]);
    expect(schemaChanges(prop({}, ['x']), { type: 'object', properties: {} })).toEqual([
      { kind: 'property-removed', path: 'inputSchema.properties.x' },
    ]);
  });

  test('additionalProperties: closing, opening, and nested changes', () => {
    expect(schemaChanges({ type: 'object' }, { type: 'object', additionalProperties: false }).map((c) => c.kind)).toEqual([
      'additional-properties-closed',
    ]);
    expect(schemaChanges({ additionalProperties: false }, { additionalProperties: true }).map((c) => c.kind)).toEqual([
      'additional-properties-opened',
    ]);
    expect(schemaChanges({ additionalProperties: { type: 'string' } }, { additionalProperties: { type: 'string', maxLength: 5 } })).toEqual(
      [{ kind: 'bounds-tightened', path: 'inputSchema.additionalProperties.maxLength' }],
    );
  });

  test('paths reach into arrays of objects and quote odd keys', () => {
    const before = prop({ type: 'array', items: { type: 'object', properties: { 'a-b': { type: 'string' } } } });
    const after = prop({ type: 'array', items: { type: 'object', properties: { 'a-b': { type: 'integer' } } } });
    expect(schemaChanges(before, after)).toEqual([
      { kind: 'type-narrowed', path: 'inputSchema.properties.x.items.properties["a-b"].type' },
    ]);
  });
});

describe('tool-level diff', () => {
  const tool = (name: string, description = 'd', hints: Record<string, boolean> = {}) => ({
    name,
    description,
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true, ...hints },
  });

  test('rename is detected only for an identical definition', () => {
    const before = snapshotTools([tool('b2_old')]).tools;
    expect(diffTools(before, snapshotTools([tool('b2_new')]).tools).map((c) => c.kind)).toEqual(['tool-renamed']);
    expect(diffTools(before, snapshotTools([tool('b2_new', 'other text')]).tools).map((c) => c.kind)).toEqual([
      'tool-removed',
      'tool-added',
    ]);
  });

  test.each([
    ['destructiveHint true → false', { destructiveHint: false }, 'annotation-non-destructive-claimed'],
    ['readOnlyHint false → true', { readOnlyHint: true, destructiveHint: false }, 'annotation-read-only-claimed'],
    ['idempotentHint false → true', { idempotentHint: true }, 'annotation-idempotent-claimed'],
    ['openWorldHint true → false', { openWorldHint: false }, 'annotation-closed-world-claimed'],
  ])('%s is its own change kind', (_name, hints, kind) => {
    const changes = diffTools(snapshotTools([tool('t')]).tools, snapshotTools([tool('t', 'd', hints)]).tools);
    expect(changes.map((c) => c.kind)).toEqual([kind]);
  });

  test('destructiveHint false → true asks for more caution; spelling out a default is no change', () => {
    const safe = snapshotTools([tool('t', 'd', { destructiveHint: false })]).tools;
    expect(diffTools(safe, snapshotTools([tool('t')]).tools).map((c) => c.kind)).toEqual(['annotation-destructive-claimed']);
    const explicitDefault = snapshotTools([{ ...tool('t'), annotations: { destructiveHint: true } }]).tools;
    const absent = snapshotTools([{ ...tool('t'), annotations: {} }]).tools;
    expect(diffTools(explicitDefault, absent)).toEqual([]);
  });

  test('drift explanation names the tools and paths, or the tool set difference', () => {
    const before = snapshotTools([tool('a'), tool('b')]);
    const changed = snapshotTools([tool('a', 'new text'), tool('b')]);
    expect(explainDrift(before, changed, diffTools(before.tools, changed.tools))).toEqual({
      status: 'definitions-differ',
      tools: [{ tool: 'a', paths: ['description'] }],
    });
    const fewer = snapshotTools([tool('a')]);
    expect(explainDrift(before, fewer, [])).toEqual({ status: 'tool-set-differs', added: [], removed: ['b'] });
    expect(explainDrift(before, before, [])).toEqual({ status: 'match' });
    // A hint spelled out at its default is no change, and the evidence says why the hash moved.
    const spelled = snapshotTools([{ ...tool('a'), annotations: { ...tool('a').annotations, title: undefined } }, tool('b')]);
    const explicit = snapshotTools([tool('a'), { ...tool('b'), annotations: { readOnlyHint: false } }]);
    expect(diffTools(spelled.tools, explicit.tools)).toEqual([]);
    expect(explainDrift(spelled, explicit, [])).toEqual({
      status: 'definitions-differ',
      tools: [{ tool: 'b', paths: ['(same meaning, spelled differently)'] }],
    });
  });
});

describe('equivalent spellings of one schema are no change', () => {
  test.each([
    ['integer exclusiveMinimum n is minimum n+1', { type: 'integer', exclusiveMinimum: 0 }, { type: 'integer', minimum: 1 }],
    ['integer exclusiveMaximum n is maximum n-1', { type: 'integer', exclusiveMaximum: 101 }, { type: 'integer', maximum: 100 }],
    [
      'a nullable integer bound folds the same way',
      { type: ['integer', 'null'], exclusiveMinimum: 0 },
      { type: ['null', 'integer'], minimum: 1 },
    ],
    ['draft 4 boolean exclusiveMinimum', { type: 'number', minimum: 0, exclusiveMinimum: true }, { type: 'number', exclusiveMinimum: 0 }],
    [
      'the looser of two lower bounds is redundant',
      { type: 'number', minimum: 0, exclusiveMinimum: 5 },
      { type: 'number', exclusiveMinimum: 5 },
    ],
    ['anyOf of bare types is a type list', { anyOf: [{ type: 'string' }, { type: 'null' }] }, { type: ['string', 'null'] }],
    ['disjoint oneOf of bare types is a type list', { oneOf: [{ type: 'string' }, { type: 'integer' }] }, { type: ['integer', 'string'] }],
    [
      'single-type alternatives with their own keywords',
      { anyOf: [{ type: 'integer', minimum: 1, maximum: 10 }, { type: 'null' }] },
      { type: ['integer', 'null'], minimum: 1, maximum: 10 },
    ],
    ['a type list of one is that type', { type: ['string'] }, { type: 'string' }],
    ['type list order', { type: ['null', 'string'] }, { type: ['string', 'null'] }],
    ['additionalProperties true is absent', { type: 'object', additionalProperties: true }, { type: 'object' }],
    ['additionalProperties {} is absent', { type: 'object', additionalProperties: {} }, { type: 'object' }],
    ['uniqueItems false is absent', { type: 'array', uniqueItems: false }, { type: 'array' }],
    ['minLength 0 is absent', { type: 'string', minLength: 0 }, { type: 'string' }],
    ['items {} is absent', { type: 'array', items: {} }, { type: 'array' }],
    ['an empty required list is absent', { type: 'object', properties: {}, required: [] }, { type: 'object', properties: {} }],
    ['const is a one-value enum', { const: 'a' }, { enum: ['a'] }],
  ])('%s', (_name, before, after) => {
    expect(schemaChanges(prop(before), prop(after))).toEqual([]);
    expect(schemaChanges(prop(after), prop(before))).toEqual([]);
  });

  test('an integer bound moved between exclusive and inclusive and also changed is one finding', () => {
    expect(schemaChanges(prop({ type: 'integer', exclusiveMinimum: 0 }), prop({ type: 'integer', minimum: 0 }))).toEqual([
      { kind: 'bounds-loosened', path: 'inputSchema.properties.x.minimum' },
    ]);
    expect(schemaChanges(prop({ type: 'integer', minimum: 1 }), prop({ type: 'integer', exclusiveMinimum: 1 }))).toEqual([
      { kind: 'bounds-tightened', path: 'inputSchema.properties.x.minimum' },
    ]);
  });

  test('for numbers, exclusive and inclusive are one bound: moving between them is one change, in the right direction', () => {
    const out: Change[] = [];
    diffSchema(
      prop({ type: 'number', exclusiveMinimum: 0 }),
      prop({ type: 'number', minimum: 0 }),
      'inputSchema',
      (kind, path, before, after) => out.push({ kind, path, before, after }),
    );
    expect(out).toEqual([
      { kind: 'bounds-loosened', path: 'inputSchema.properties.x.minimum', before: { exclusiveMinimum: 0 }, after: { minimum: 0 } },
    ]);
    expect(
      schemaChanges(prop({ type: 'number', maximum: 5 }), prop({ type: 'number', exclusiveMaximum: 5 })).map((change) => change.kind),
    ).toEqual(['bounds-tightened']);
  });

  test('anyOf against a type list that differs is one type change, not two', () => {
    expect(schemaChanges(prop({ anyOf: [{ type: 'string' }, { type: 'null' }] }), prop({ type: 'string' }))).toEqual([
      { kind: 'type-narrowed', path: 'inputSchema.properties.x.type' },
    ]);
    expect(
      schemaChanges(
        prop({ anyOf: [{ type: 'integer', maximum: 10 }, { type: 'null' }] }),
        prop({ type: ['integer', 'null'], maximum: 20 }),
      ),
    ).toEqual([{ kind: 'bounds-loosened', path: 'inputSchema.properties.x.maximum' }]);
  });

  test('alternatives that do not merge into one schema are still compared as alternatives', () => {
    // integer and number overlap, so this oneOf rejects integers: not the same as the type list.
    expect(
      schemaChanges(prop({ oneOf: [{ type: 'integer' }, { type: 'number' }] }), prop({ type: ['integer', 'number'] })).length,
    ).toBeGreaterThan(0);
    // A bound on one of two numeric alternatives does not bind the other.
    expect(
      schemaChanges(
        prop({ anyOf: [{ type: 'integer', minimum: 1 }, { type: 'number' }] }),
        prop({ type: ['integer', 'number'], minimum: 1 }),
      ).length,
    ).toBeGreaterThan(0);
  });
});

describe('renames', () => {
  const withInputs = (name: string, properties: string[], required: string[], description = 'd') => ({
    name,
    description,
    inputSchema: { type: 'object', properties: Object.fromEntries(properties.map((key) => [key, { type: 'string' }])), required },
    annotations: { readOnlyHint: true },
  });
  const tools = (...list: ReturnType<typeof withInputs>[]) => snapshotTools(list).tools;

  test('a rename the contract records is one change, in either direction, and the pair is then diffed', () => {
    const renames = [{ from: 'b2_largest_files', to: 'b2_list_largest_files' }];
    const current = tools(withInputs('b2_list_largest_files', ['bucket', 'limit'], ['bucket']));
    const former = tools(withInputs('b2_largest_files', ['bucket'], ['bucket'], 'other words'));
    const back = diffTools(current, former, { renames });
    expect(back.map(({ kind, tool, path }) => ({ kind, tool, path }))).toEqual([
      { kind: 'tool-renamed', tool: 'b2_largest_files', path: '' },
      { kind: 'description-changed', tool: 'b2_largest_files', path: 'description' },
      { kind: 'property-removed', tool: 'b2_largest_files', path: 'inputSchema.properties.limit' },
    ]);
    expect(back[0]).toMatchObject({
      before: 'b2_list_largest_files',
      after: 'b2_largest_files',
      rename: { by: 'contract', reverted: true },
    });
    expect(diffTools(former, current, { renames })[0]).toMatchObject({ kind: 'tool-renamed', rename: { by: 'contract', reverted: false } });
    // Without the contract's word, these differ too much to be taken for one tool.
    expect(diffTools(current, former).map((change) => change.kind)).toEqual(['tool-removed', 'tool-added']);
  });

  test('by similarity: same required inputs and most input names, with a confidence', () => {
    const before = tools(withInputs('b2_list_keys', ['prefix', 'limit', 'cursor'], ['prefix']));
    const similar = diffTools(before, tools(withInputs('b2_get_keys', ['prefix', 'limit', 'cursor', 'extra'], ['prefix'], 'new words')));
    expect(similar[0]).toMatchObject({
      kind: 'tool-renamed',
      before: 'b2_list_keys',
      after: 'b2_get_keys',
      rename: { by: 'similarity', shared: 3, total: 4 },
    });
    const confidence = (similar[0]!.rename as { confidence: number }).confidence;
    expect(confidence).toBeGreaterThanOrEqual(0.6);
    expect(confidence).toBeLessThan(1);
    expect(similar.slice(1).map((change) => change.kind)).toEqual(['description-changed', 'property-added']);
    // Another required set, or too few input names in common: a removal and an addition.
    expect(diffTools(before, tools(withInputs('b2_get_keys', ['prefix', 'limit', 'cursor'], ['limit']))).map((c) => c.kind)).toEqual([
      'tool-removed',
      'tool-added',
    ]);
    expect(diffTools(before, tools(withInputs('b2_get_keys', ['prefix', 'a', 'b', 'c'], ['prefix']))).map((c) => c.kind)).toEqual([
      'tool-removed',
      'tool-added',
    ]);
  });

  test('the most similar pair wins, one to one', () => {
    const before = tools(withInputs('b2_list_files', ['bucket', 'prefix'], []), withInputs('b2_list_keys', ['prefix', 'limit'], []));
    const after = tools(withInputs('b2_get_files', ['bucket', 'prefix'], []), withInputs('b2_get_keys', ['prefix', 'limit'], []));
    const renames = diffTools(before, after).filter((change) => change.kind === 'tool-renamed');
    expect(renames.map((change) => [change.before, change.after]).sort()).toEqual([
      ['b2_list_files', 'b2_get_files'],
      ['b2_list_keys', 'b2_get_keys'],
    ]);
  });

  test('beyond the pair budget only recorded renames and identical definitions are matched, so a huge list stays linear', () => {
    const many = (prefix: string, description: string) =>
      Array.from({ length: 120 }, (_, i) => withInputs(`${prefix}_${i}_item`, [`p${i}`], [], description));
    const identical = diffTools(tools(...many('b2_list', 'd')), tools(...many('b2_get', 'd')));
    expect(identical.filter((change) => change.kind === 'tool-renamed')).toHaveLength(120);
    // Same inputs, other descriptions: similar enough below the budget (see above), not compared above it.
    const similar = diffTools(tools(...many('b2_list', 'd')), tools(...many('b2_get', 'other')));
    expect(similar.some((change) => change.kind === 'tool-renamed')).toBe(false);
    expect(similar.filter((change) => change.kind === 'tool-removed')).toHaveLength(120);
  });

  test('an equivalent definition under a new name is a rename by definition', () => {
    const before = snapshotTools([
      {
        name: 'b2_a_thing',
        description: 'd',
        inputSchema: { type: 'object', properties: { n: { type: 'integer', exclusiveMinimum: 0 } } },
      },
    ]).tools;
    const after = snapshotTools([
      { name: 'b2_z_other', description: 'd', inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } } } },
    ]).tools;
    expect(diffTools(before, after)).toEqual([
      { kind: 'tool-renamed', tool: 'b2_z_other', path: '', before: 'b2_a_thing', after: 'b2_z_other', rename: { by: 'definition' } },
    ]);
  });
});
