import { describe, expect, it } from 'vitest';
import { diffSchema } from '../../../src/conformance/diff/schema.js';
import type { SchemaChangeKind } from '../../../src/conformance/diff/changes.js';
import { CHECK_KINDS } from '../../../src/conformance/rules/kinds/index.js';
import {
  DEFAULT_DIALECT,
  declaredDialect,
  dialectOutputValidator,
  metaSchemaErrors,
} from '../../../src/conformance/connect/schema-dialects.js';
import { contextOf, ruleCheck, surface } from '../../support/rule-context.js';

/**
 * Every JSON Schema dialect a server may declare is judged by its own meta-schema: a schema valid
 * in its dialect passes, one invalid there is a finding, and an unknown dialect is a finding too,
 * never an internal error.
 */
const DRAFT_04 = 'http://json-schema.org/draft-04/schema#';
const DRAFT_06 = 'http://json-schema.org/draft-06/schema#';
const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
const DRAFT_2019 = 'https://json-schema.org/draft/2019-09/schema';
const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';

/** Run one rule of rules/schema.json on one tool's input schema, seen alike in both eras. */
function findings(id: string, inputSchema: unknown): { path?: string; data?: Record<string, unknown> }[] {
  const { kind, ...params } = ruleCheck('schema', id);
  const tools = [{ name: 'x_y', inputSchema }];
  const surfaces = [surface('modern', tools), surface('legacy', tools)].map((one) => ({ ...one, observation: { bounded: [] } }));
  return CHECK_KINDS[kind]!.run(params, contextOf([], {}, surfaces)).map(({ path, data }) => ({ path, data }));
}
const inDialect = (inputSchema: unknown) => findings('schema/valid-in-dialect', inputSchema);

/** Per dialect: a schema valid only in that dialect (or in it and later ones), and one invalid in it. */
const CASES: [string, string, Record<string, unknown>, Record<string, unknown>, string][] = [
  // draft-04: exclusiveMinimum is a flag beside minimum; `required` may not be empty.
  [
    'draft-04',
    DRAFT_04,
    { type: 'object', properties: { n: { type: 'number', minimum: 0, exclusiveMinimum: true } } },
    { type: 'object', required: [] },
    'inputSchema.required',
  ],
  // draft-06: exclusiveMinimum is a number, `const` and `examples` exist; a flag is wrong.
  [
    'draft-06',
    DRAFT_06,
    { type: 'object', properties: { n: { type: 'number', exclusiveMinimum: 0, const: 3, examples: [3] } } },
    { type: 'object', properties: { n: { exclusiveMinimum: true } } },
    'inputSchema.properties.n.exclusiveMinimum',
  ],
  // draft-07: if/then/else, `items` as a list of schemas; an unknown type name is wrong.
  [
    'draft-07',
    DRAFT_07,
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keywords, not a promise
    { type: 'array', items: [{ type: 'string' }], if: { minItems: 1 }, then: { maxItems: 3 } },
    { type: 'object', properties: { a: { type: 'strin' } } },
    'inputSchema.properties.a.type',
  ],
  // 2019-09: $defs, $anchor, dependentRequired; a negative minContains is wrong.
  [
    '2019-09',
    DRAFT_2019,
    {
      type: 'object',
      $defs: { id: { $anchor: 'id', type: 'string' } },
      properties: { a: { $ref: '#id' } },
      dependentRequired: { a: ['b'] },
    },
    { type: 'array', minContains: -1 },
    'inputSchema.minContains',
  ],
  // 2020-12: prefixItems; `items` as a list (draft-07's form) is wrong.
  [
    '2020-12',
    DRAFT_2020,
    { type: 'array', prefixItems: [{ type: 'string' }], items: false },
    { type: 'array', items: [{ type: 'string' }] },
    'inputSchema.items',
  ],
];

describe('each dialect is judged by its own meta-schema', () => {
  it.each(CASES)('%s: valid in its dialect passes', (_name, uri, valid) => {
    expect(inDialect({ $schema: uri, ...valid })).toEqual([]);
  });

  it.each(CASES)('%s: invalid in its dialect is a finding at its path, naming the dialect', (name, uri, _valid, invalid, path) => {
    expect(inDialect({ $schema: uri, ...invalid })).toEqual([{ path, data: { problem: expect.any(String), dialect: name } }]);
  });

  it('the same schema is valid in one dialect and invalid in another', () => {
    const listItems = { type: 'array', items: [{ type: 'string' }] };
    expect(inDialect({ $schema: DRAFT_07, ...listItems })).toEqual([]);
    expect(inDialect({ $schema: DRAFT_2020, ...listItems }).map((finding) => finding.data?.dialect)).toEqual(['2020-12']);
    const flag = { type: 'number', minimum: 0, exclusiveMinimum: true };
    expect(inDialect({ $schema: DRAFT_04, ...flag })).toEqual([]);
    expect(inDialect({ $schema: DRAFT_07, ...flag }).map((finding) => finding.path)).toEqual(['inputSchema.exclusiveMinimum']);
  });

  it('a draft-07 schema that is nothing but its $schema (no type) is valid', () => {
    expect(inDialect({ $schema: DRAFT_07 })).toEqual([]);
  });

  it('a schema without $schema is 2020-12, MCP’s default', () => {
    expect(declaredDialect({ type: 'object' })).toEqual({ known: true, name: DEFAULT_DIALECT });
    expect(inDialect({ type: 'array', items: [{ type: 'string' }] }).map((finding) => finding.data?.dialect)).toEqual(['2020-12']);
  });

  it.each([
    ['https://json-schema.org/draft-07/schema#', 'draft-07'],
    ['http://json-schema.org/draft-07/schema', 'draft-07'],
    ['https://json-schema.org/draft-04/schema', 'draft-04'],
    ['http://json-schema.org/draft/2020-12/schema#', '2020-12'],
    ['https://json-schema.org/draft/2019-09/schema#', '2019-09'],
  ])('%s names %s (http or https, with or without #)', (uri, name) => {
    expect(declaredDialect({ $schema: uri })).toEqual({ known: true, name });
  });

  it('a plain-name fragment resolves through the dialect’s own keyword: id in draft-04, $id in draft-06/07', () => {
    const uses = { properties: { a: { $ref: '#name' } } };
    expect(inDialect({ $schema: DRAFT_04, definitions: { n: { id: '#name', type: 'string' } }, ...uses })).toEqual([]);
    expect(inDialect({ $schema: DRAFT_07, definitions: { n: { $id: '#name', type: 'string' } }, ...uses })).toEqual([]);
    expect(
      inDialect({ $schema: DRAFT_07, definitions: { n: { $anchor: 'name', type: 'string' } }, ...uses }).map((finding) => finding.path),
    ).toEqual(['inputSchema.properties.a.$ref']);
  });

  it('the meta-schema validators answer directly too, per dialect', () => {
    expect(metaSchemaErrors({ type: 5 }, 'draft-06')?.[0]).toMatchObject({ instancePath: '/type' });
    expect(metaSchemaErrors({ type: 'string' }, 'draft-04')).toBeUndefined();
  });
});

describe('an unknown dialect is a finding, never an internal error', () => {
  it.each([['https://example.com/my-dialect'], ['http://json-schema.org/draft-03/schema#'], [7]])('$schema %j', (declared) => {
    expect(inDialect({ $schema: declared, type: 'object' })).toEqual([
      {
        path: 'inputSchema.$schema',
        data: { problem: expect.stringContaining('names no JSON Schema dialect a client knows'), dialect: 'unknown' },
      },
    ]);
  });
});

describe('the contract’s dialect (schema/json-schema-2020)', () => {
  it('2020-12, with or without #, or no $schema, is the contract’s dialect', () => {
    for (const schema of [{ $schema: DRAFT_2020 }, { $schema: `${DRAFT_2020}#` }, {}])
      expect(findings('schema/json-schema-2020', { ...schema, type: 'object' })).toEqual([]);
  });

  it('any other dialect, known or not, is reported at $schema', () => {
    expect(findings('schema/json-schema-2020', { $schema: DRAFT_07, type: 'object' })).toEqual([
      { path: 'inputSchema.$schema', data: { problem: 'it declares draft-07', dialect: 'draft-07', allowed: '2020-12' } },
    ]);
    expect(findings('schema/json-schema-2020', { $schema: 'urn:x', type: 'object' }).map((finding) => finding.data?.dialect)).toEqual([
      'unknown',
    ]);
  });
});

describe('a change of dialect is its own diff class', () => {
  const changes = (before: unknown, after: unknown) => {
    const found: [SchemaChangeKind, string, unknown, unknown][] = [];
    diffSchema(before, after, 'inputSchema', (kind, path, was, now) => found.push([kind, path, was, now]));
    return found;
  };

  it('draft-07 to 2020-12 (declared or by default) is named, with both dialects', () => {
    expect(changes({ $schema: DRAFT_07, type: 'object' }, { $schema: DRAFT_2020, type: 'object' })).toEqual([
      ['schema-dialect-changed', 'inputSchema.$schema', 'draft-07', '2020-12'],
    ]);
    expect(changes({ $schema: DRAFT_07, type: 'object' }, { type: 'object' })).toEqual([
      ['schema-dialect-changed', 'inputSchema.$schema', 'draft-07', '2020-12 (no $schema)'],
    ]);
    expect(changes({ $schema: DRAFT_07 }, { $schema: 'urn:x' })).toEqual([
      ['schema-dialect-changed', 'inputSchema.$schema', 'draft-07', 'unknown "urn:x"'],
    ]);
  });

  it('another spelling of the same dialect is no change', () => {
    expect(changes({ $schema: DRAFT_07, type: 'object' }, { $schema: 'https://json-schema.org/draft-07/schema', type: 'object' })).toEqual(
      [],
    );
    expect(changes({ $schema: DRAFT_2020, type: 'object' }, { type: 'object' })).toEqual([]);
  });
});

describe('the output-schema validator the SDK clients are given', () => {
  const check = (schema: unknown, input: unknown) => dialectOutputValidator().getValidator(schema as never)(input);

  it('validates in the dialect the schema declares', () => {
    const flag = { type: 'object', properties: { n: { type: 'number', maximum: 5, exclusiveMaximum: true } } };
    expect(check({ $schema: DRAFT_04, ...flag }, { n: 5 })).toMatchObject({ valid: false, errorMessage: '/n must be < 5' });
    expect(check({ $schema: DRAFT_04, ...flag }, { n: 4 })).toEqual({ valid: true, data: { n: 4 }, errorMessage: undefined });
    const listItems = { type: 'array', items: [{ type: 'string' }] };
    expect(check({ $schema: DRAFT_07, ...listItems }, [1])).toMatchObject({ valid: false });
    expect(check({ $schema: DRAFT_07, ...listItems }, ['a', 1])).toMatchObject({ valid: true });
  });

  it('checks formats, as the clients do', () => {
    expect(check({ $schema: DRAFT_2019, type: 'string', format: 'email' }, 'nobody')).toMatchObject({ valid: false });
  });

  it('a schema it cannot compile checks nothing instead of throwing: the schema rules report it', () => {
    expect(check({ $schema: 'https://example.com/my-dialect', type: 'object' }, 5)).toMatchObject({ valid: true });
    expect(check({ $schema: DRAFT_07, type: 'object', properties: { a: { pattern: '(' } } }, { a: 'x' })).toMatchObject({ valid: true });
    expect(check({ $schema: DRAFT_07, exclusiveMinimum: true }, 1)).toMatchObject({ valid: true });
  });
});
