import { describe, expect, test } from 'vitest';
import { snapshotTools } from '../../src/contract/normalize.js';
import { diffSchema, diffTools, explainDrift, type Change } from '../../src/conformance/diff.js';

function schemaChanges(before: unknown, after: unknown): Pick<Change, 'kind' | 'path'>[] {
  const out: Pick<Change, 'kind' | 'path'>[] = [];
  diffSchema(before, after, 'inputSchema', (kind, path) => out.push({ kind, path }));
  return out;
}

const prop = (schema: Record<string, unknown>, required?: string[]) => ({ type: 'object', properties: { x: schema }, ...(required ? { required } : {}) });

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
    ['adding an anyOf alternative widens', { anyOf: [{ type: 'string' }] }, { anyOf: [{ type: 'string' }, { type: 'null' }] }, 'type-widened'],
    ['removing an anyOf alternative narrows', { anyOf: [{ type: 'string' }, { type: 'null' }] }, { anyOf: [{ type: 'string' }] }, 'type-narrowed'],
    ['a changed default is info', { default: 1 }, { default: 2 }, 'default-changed'],
    ['a changed title is model-visible text', { title: 'A' }, { title: 'B' }, 'description-changed'],
    ['an unknown keyword change is unclassified', { 'x-note': 1 }, { 'x-note': 2 }, 'schema-changed'],
  ])('%s', (_name, before, after, kind) => {
    expect(schemaChanges(prop(before), prop(after)).map((change) => change.kind)).toEqual([kind]);
  });

  test('required: added, removed, and a new required property is one change', () => {
    expect(schemaChanges(prop({}), prop({}, ['x']))).toEqual([{ kind: 'required-added', path: 'inputSchema.properties.x' }]);
    expect(schemaChanges(prop({}, ['x']), prop({}))).toEqual([{ kind: 'required-removed', path: 'inputSchema.properties.x' }]);
    expect(schemaChanges({ type: 'object', properties: {} }, prop({}, ['x']))).toEqual([{ kind: 'required-added', path: 'inputSchema.properties.x' }]);
    expect(schemaChanges(prop({}, ['x']), { type: 'object', properties: {} })).toEqual([{ kind: 'property-removed', path: 'inputSchema.properties.x' }]);
  });

  test('additionalProperties: closing, opening, and nested changes', () => {
    expect(schemaChanges({ type: 'object' }, { type: 'object', additionalProperties: false }).map((c) => c.kind)).toEqual(['additional-properties-closed']);
    expect(schemaChanges({ additionalProperties: false }, { additionalProperties: true }).map((c) => c.kind)).toEqual(['additional-properties-opened']);
    expect(schemaChanges({ additionalProperties: { type: 'string' } }, { additionalProperties: { type: 'string', maxLength: 5 } })).toEqual([
      { kind: 'bounds-tightened', path: 'inputSchema.additionalProperties.maxLength' },
    ]);
  });

  test('paths reach into arrays of objects and quote odd keys', () => {
    const before = prop({ type: 'array', items: { type: 'object', properties: { 'a-b': { type: 'string' } } } });
    const after = prop({ type: 'array', items: { type: 'object', properties: { 'a-b': { type: 'integer' } } } });
    expect(schemaChanges(before, after)).toEqual([{ kind: 'type-narrowed', path: 'inputSchema.properties.x.items.properties["a-b"].type' }]);
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
    expect(diffTools(before, snapshotTools([tool('b2_new', 'other text')]).tools).map((c) => c.kind)).toEqual(['tool-removed', 'tool-added']);
  });

  test.each([
    ['destructiveHint true → false', { destructiveHint: false }, 'annotation-toward-danger'],
    ['readOnlyHint false → true', { readOnlyHint: true, destructiveHint: false }, 'annotation-toward-danger'],
    ['idempotentHint false → true', { idempotentHint: true }, 'annotation-toward-danger'],
    ['openWorldHint true → false', { openWorldHint: false }, 'annotation-toward-danger'],
  ])('%s moves toward danger', (_name, hints, kind) => {
    const changes = diffTools(snapshotTools([tool('t')]).tools, snapshotTools([tool('t', 'd', hints)]).tools);
    expect(changes.map((c) => c.kind)).toContain(kind);
  });

  test('destructiveHint false → true is toward caution; an absent hint means its protocol default', () => {
    const safe = snapshotTools([tool('t', 'd', { destructiveHint: false })]).tools;
    expect(diffTools(safe, snapshotTools([tool('t')]).tools).map((c) => c.kind)).toEqual(['annotation-toward-caution']);
    const explicitDefault = snapshotTools([{ ...tool('t'), annotations: { destructiveHint: true } }]).tools;
    const absent = snapshotTools([{ ...tool('t'), annotations: {} }]).tools;
    expect(diffTools(explicitDefault, absent).map((c) => c.kind)).toEqual(['meta-changed']);
  });

  test('drift explanation names the tools and paths, or the tool set difference', () => {
    const before = snapshotTools([tool('a'), tool('b')]);
    const changed = snapshotTools([tool('a', 'new text'), tool('b')]);
    expect(explainDrift(before, changed, diffTools(before.tools, changed.tools))).toEqual({ status: 'definitions-differ', tools: [{ tool: 'a', paths: ['description'] }] });
    const fewer = snapshotTools([tool('a')]);
    expect(explainDrift(before, fewer, [])).toEqual({ status: 'tool-set-differs', added: [], removed: ['b'] });
    expect(explainDrift(before, before, [])).toEqual({ status: 'match' });
  });
});
