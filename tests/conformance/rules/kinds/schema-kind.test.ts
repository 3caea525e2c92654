import { describe, expect, test } from 'vitest';
import { CHECK_KINDS } from '../../../../src/conformance/rules/kinds/index.js';
import type { RuleContext } from '../../../../src/conformance/rules/types.js';

/** Run the schema-compiles kind on one input schema, as if one tool listed it in one era. */
function problems(inputSchema: unknown): { path?: string; problem?: unknown }[] {
  const context = {
    mode: 'check',
    profile: 'default',
    surfaces: [{ connection: 'modern', listed: [{ name: 'b2_x_y', inputSchema }] }],
    changes: [],
  } as unknown as RuleContext;
  return CHECK_KINDS['schema-compiles']!.run({ parts: ['inputSchema'] }, context).map((finding) => ({
    path: finding.path,
    problem: finding.data?.problem,
  }));
}

describe('JSON Schema 2020-12 validity (ajv + ajv-formats)', () => {
  test('a valid schema with local refs, anchors and a Unicode pattern passes', () => {
    expect(
      problems({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { name: { $anchor: 'name', type: 'string', pattern: '^\\p{L}+$' } },
        properties: { a: { $ref: '#/$defs/name' }, b: { $ref: '#name' }, c: { format: 'email', type: 'string' } },
      }),
    ).toEqual([]);
  });

  test.each([
    ['an unknown type', { type: 'object', properties: { a: { type: 'strin' } } }, 'inputSchema.properties.a.type'],
    ['an invalid regex', { type: 'object', properties: { a: { type: 'string', pattern: '(' } } }, 'inputSchema.properties.a.pattern'],
    [
      'a regex invalid in Unicode mode',
      { type: 'object', properties: { a: { type: 'string', pattern: '\\-x\\q' } } },
      'inputSchema.properties.a.pattern',
    ],
    [
      'a negative minLength',
      { type: 'object', properties: { a: { type: 'string', minLength: -1 } } },
      'inputSchema.properties.a.minLength',
    ],
    ['required that is not a list', { type: 'object', required: 'a' }, 'inputSchema.required'],
    ['a dangling local $ref', { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }, 'inputSchema.properties.a.$ref'],
    ['a dangling anchor', { type: 'object', properties: { a: { $ref: '#nowhere' } } }, 'inputSchema.properties.a.$ref'],
  ])('%s is reported at its path', (_name, schema, path) => {
    const found = problems(schema);
    expect(found).toHaveLength(1);
    expect(found[0]!.path).toBe(path);
    expect(String(found[0]!.problem).length).toBeGreaterThan(5);
  });
});
