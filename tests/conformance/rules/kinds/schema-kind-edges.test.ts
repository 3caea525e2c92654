import { describe, expect, it } from 'vitest';
import { CHECK_KINDS } from '../../../../src/conformance/rules/kinds/index.js';
import { metaSchemaErrors } from '../../../../src/conformance/connect/schema-dialects.js';
import { contextOf, surface } from '../../../support/rule-context.js';

/** The schema kinds' edges: reference resolution, meta-schema paths, which keys are judged at all. */
function run(kind: string, params: Record<string, unknown>, inputSchema: unknown) {
  const tools = [{ name: 'b2_x_y', inputSchema }];
  return CHECK_KINDS[kind]!.run(params, contextOf([], {}, [{ ...surface('modern', tools), observation: { bounded: [] } }] as never));
}
const compiles = (inputSchema: unknown) =>
  run('schema-compiles', { parts: ['inputSchema'] }, inputSchema).map(({ path, data }) => [path, data!.problem]);
const paths = (inputSchema: unknown) => compiles(inputSchema).map(([path]) => path);

describe('schema-compiles: where a meta-schema error is', () => {
  it.each([
    [{ properties: { 'a/b': { type: 5 } } }, 'inputSchema.properties["a/b"].type'],
    [{ properties: { 'a~b': { type: 5 } } }, 'inputSchema.properties["a~b"].type'],
    [{ allOf: [{}, { type: 5 }] }, 'inputSchema.allOf[1].type'],
    [{ properties: { a1: { type: 5 } } }, 'inputSchema.properties.a1.type'],
    [{ properties: { '1a': { type: 5 } } }, 'inputSchema.properties["1a"].type'],
    [{ properties: { '12': { type: 5 } } }, 'inputSchema.properties[12].type'],
  ])('%j → %s', (schema, path) => {
    expect(paths(schema)).toEqual([path]);
  });

  it('2020-12 (with or without #) and no $schema are judged by the precompiled 2020-12 validator', () => {
    expect(metaSchemaErrors({ type: 'string' }, '2020-12')).toBeUndefined();
    for (const declared of [
      { $schema: 'https://json-schema.org/draft/2020-12/schema' },
      { $schema: 'https://json-schema.org/draft/2020-12/schema#' },
      {},
    ]) {
      expect(metaSchemaErrors({ ...declared, type: 5 }, '2020-12')?.[0]).toMatchObject({ instancePath: '/type' });
      expect(metaSchemaErrors({ ...declared, type: 'string' }, '2020-12')).toBeUndefined();
    }
    expect(metaSchemaErrors(true, '2020-12')).toBeUndefined();
  });
});

describe('schema-compiles: local references', () => {
  it.each([
    [{ properties: { a: { type: 'string' } }, $ref: '#/properties/a/type/length' }],
    [{ properties: { a: { default: null } }, $ref: '#/properties/a/default/x' }],
    [{ properties: { a: {} }, $ref: '#/properties/b' }],
  ])('%j dangles', (schema) => {
    expect(compiles(schema)).toEqual([['inputSchema.$ref', `$ref "${schema.$ref}" does not resolve inside the schema`]]);
  });

  it('an anchor inside a list resolves', () => {
    expect(compiles({ allOf: [{ $anchor: 'inner', type: 'string' }], properties: { a: { $ref: '#inner' } } })).toEqual([]);
  });

  it('only the first problem is reported', () => {
    expect(paths({ properties: { a: { $ref: '#/nope' }, b: { pattern: '(' } } })).toEqual(['inputSchema.properties.a.$ref']);
  });

  it('strings that look like references or patterns elsewhere are not judged', () => {
    expect(compiles({ description: '#nowhere', title: '(', properties: { '(': { type: 'string' } }, $comment: '#/x' })).toEqual([]);
    expect(compiles({ patternProperties: { '^ok$': {}, '[a-z]+': {} } })).toEqual([]);
    expect(compiles({ properties: { a: { $ref: 'https://example.com/x.json' } } })).toEqual([]);
  });
});

describe('schema-limits: what counts', () => {
  const limits = (params: Record<string, unknown>, schema: unknown) =>
    run('schema-limits', { parts: ['inputSchema'], ...params }, schema).map(({ key, path, data }) => [key, path, data!.actual]);

  it('only `properties` maps are counted, and only objects', () => {
    expect(limits({ maxProperties: 1 }, { $defs: { a: {}, b: {} }, properties: { a: {} } })).toEqual([]);
    expect(limits({ maxProperties: 1 }, { properties: [{}, {}] })).toEqual([]);
    expect(limits({ maxProperties: 1 }, { properties: { a: {}, b: {} } })).toEqual([['properties', 'inputSchema.properties', 2]]);
  });

  it('a non-string $ref is not a reference', () => {
    expect(limits({ maxRefs: 0, localRefsOnly: true, noRefCycles: true }, { $ref: 5 })).toEqual([]);
  });

  it('cycles through prose-only neighbours are cycles; a title gives the schema a meaning', () => {
    expect(
      limits({ noRefCycles: true }, { $defs: { a: { $ref: '#/$defs/b', $comment: 'c' }, b: { $ref: '#/$defs/a' } } }).map(([key]) => key),
    ).toEqual(['ref-cycle', 'ref-cycle']);
    expect(limits({ noRefCycles: true }, { $defs: { a: { $ref: '#/$defs/b', title: 't' }, b: { $ref: '#/$defs/a' } } })).toEqual([]);
  });

  it('the depth limit is the one the rule gives', () => {
    expect(limits({ maxDepth: 2 }, { not: { not: {} } })).toEqual([['depth', 'inputSchema', 3]]);
    expect(limits({ maxDepth: 3 }, { not: { not: {} } })).toEqual([]);
  });
});

describe('schema-patterns: what is judged', () => {
  const patterns = (schema: unknown) => run('schema-patterns', { parts: ['inputSchema'] }, schema).map(({ path }) => path);

  it('a pattern the analyser cannot read counts as backtracking', () => {
    expect(patterns({ properties: { a: { pattern: '(' } } })).toEqual(['inputSchema.properties.a.pattern']);
  });

  it('other keys and property names are not patterns', () => {
    expect(patterns({ 'x-pattern': '(a+)+', properties: { '(a+)+': { type: 'string' } }, description: '(a+)+' })).toEqual([]);
  });
});
