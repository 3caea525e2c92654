import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { jsonSchemaValidator } from '../../../src/conformance/connect/json-schema.js';
import { metaSchemaErrors } from '../../../src/conformance/connect/schema-dialects.js';

const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'tool-contract');
const META = 'https://json-schema.org/draft/2020-12/schema';

/** What Ajv itself says, compiling the meta-schema at run time. */
function ajvErrors(schema: unknown): unknown {
  const ajv = jsonSchemaValidator();
  return ajv.validateSchema(schema as object) ? undefined : ajv.errors;
}

const HAND_MADE: [string, unknown][] = [
  ['an empty schema', {}],
  [
    'a nested valid schema',
    {
      type: 'object',
      properties: { a: { type: 'array', items: { enum: ['x', 1] }, uniqueItems: true } },
      required: ['a'],
      additionalProperties: false,
    },
  ],
  ['dynamic refs', { $schema: META, $dynamicAnchor: 'meta', $defs: { x: { $dynamicRef: '#meta' } } }],
  ['the meta-schema named with a trailing #', { $schema: `${META}#`, type: 'strin' }],
  ['an unknown type', { type: 'object', properties: { a: { type: 'strin' } } }],
  ['a negative minLength deep inside', { type: 'object', properties: { a: { anyOf: [{ type: 'string', minLength: -1 }] } } }],
  ['required as a string', { type: 'object', required: 'a' }],
  ['required with duplicates', { type: 'object', required: ['a', 'a'] }],
  ['a non-integer maxItems', { type: 'array', maxItems: 1.5 }],
  ['properties as an array', { type: 'object', properties: [] }],
  ['enum that is not a list', { enum: 'a' }],
  ['an $id that is not a string', { $id: 7 }],
  ['a type list with an unknown member', { type: ['string', 'nope'] }],
  // Two or more members run the uniqueness check, the one place the code calls its equality helper.
  ['a type list of two', { type: ['string', 'null'] }],
  ['a type list with a duplicate', { type: ['string', 'string'] }],
  ['a boolean subschema', { type: 'object', properties: { a: false, b: true } }],
];

function fixtureSchemas(): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const file of readdirSync(FIXTURES).filter((name) => name.endsWith('.json'))) {
    const fixture = JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as {
      tools: { name: string; inputSchema?: unknown; outputSchema?: unknown }[];
    };
    for (const tool of fixture.tools) {
      for (const part of ['inputSchema', 'outputSchema'] as const)
        if (tool[part] !== undefined) out.push([`${file} ${tool.name} ${part}`, tool[part]]);
    }
  }
  return out;
}

describe('the precompiled JSON Schema 2020-12 meta-schema validator', () => {
  test.each(HAND_MADE)('%s: the same verdict and errors as Ajv', (_name, schema) => {
    expect(metaSchemaErrors(schema, '2020-12')).toEqual(ajvErrors(schema));
  });

  test('every schema of the bundled fixtures: the same verdict as Ajv (all valid)', () => {
    const schemas = fixtureSchemas();
    expect(schemas.length).toBeGreaterThan(40);
    for (const [name, schema] of schemas) expect(metaSchemaErrors(schema, '2020-12'), name).toEqual(ajvErrors(schema));
  });

  test('the invalid cases do fail, with a path and a message', () => {
    const errors = metaSchemaErrors({ type: 'object', properties: { a: { type: 'strin' } } }, '2020-12');
    expect(errors?.[0]?.instancePath).toBe('/properties/a/type');
    expect(errors?.[0]?.message).toMatch(/must be equal to one of the allowed values|must match/);
  });
});
