import { describe, expect, it } from 'vitest';
import { canonicalSchema, diffSchema, joinPath } from '../../../src/conformance/diff/schema.js';
import { diffModernBlock, diffTools, driftParts, explainDrift, renameSimilarity } from '../../../src/conformance/diff/diff.js';
import type { Change } from '../../../src/conformance/diff/changes.js';
import type { NormalizedTool } from '../../../src/contract/normalize.js';

/**
 * The schema differ, clause by clause, with JSON Schema's own semantics as the oracle: a change
 * that rejects a call the old schema accepted is a tightening, the reverse a loosening, and two
 * spellings that accept the same values are no change at all. Every case names the full change
 * (kind, path, before, after), so a wrong path or value fails as surely as a wrong kind.
 */
function changes(before: unknown, after: unknown): [string, string, unknown, unknown][] {
  const out: [string, string, unknown, unknown][] = [];
  diffSchema(before, after, 'in', (kind, path, was, now) => out.push([kind, path, was, now]));
  return out;
}

describe('types', () => {
  it.each([
    [{ type: 'integer' }, { type: ['integer', 'null'] }, [['type-widened', 'in.type', 'integer', ['integer', 'null']]]],
    [{ type: ['string', 'number'] }, { type: 'number' }, [['type-narrowed', 'in.type', ['number', 'string'], 'number']]],
    [
      { type: ['integer', 'string'] },
      { type: ['number', 'string'] },
      [['type-widened', 'in.type', ['integer', 'string'], ['number', 'string']]],
    ],
    [{ type: 'number' }, { type: 'integer' }, [['type-narrowed', 'in.type', 'number', 'integer']]],
    [{}, { type: 'string' }, [['type-narrowed', 'in.type', undefined, 'string']]],
    [{ type: 'string' }, {}, [['type-widened', 'in.type', 'string', undefined]]],
    [{ type: ['null', 'string'] }, { type: ['string', 'null'] }, []],
    [{ type: ['string'] }, { type: 'string' }, []],
    [{ type: ['string', 'string'] }, { type: 'string' }, []],
  ])('%j → %j', (before, after, expected) => {
    expect(changes(before, after)).toEqual(expected);
  });
});

describe('enum and const', () => {
  it.each([
    [{ enum: ['a'] }, { enum: ['a', 'b'] }, [['enum-widened', 'in.enum', ['a'], ['a', 'b']]]],
    [{ enum: ['a', 'b'] }, { const: 'a' }, [['enum-narrowed', 'in.enum', ['a', 'b'], ['a']]]],
    [{ const: 'a' }, { const: 'b' }, [['enum-narrowed', 'in.const', ['a'], ['b']]]],
    [{ const: 'a' }, {}, [['enum-widened', 'in.const', ['a'], undefined]]],
    [{}, { const: null }, [['enum-narrowed', 'in.const', undefined, [null]]]],
    [{ enum: [{ k: 1 }, 2] }, { enum: [2, { k: 1 }] }, [['meta-changed', 'in.enum', [{ k: 1 }, 2], [2, { k: 1 }]]]],
    [{ enum: [1, 2] }, { enum: [1, 2, 2] }, [['meta-changed', 'in.enum', [1, 2], [1, 2, 2]]]],
    [{ enum: ['a', 'b'] }, {}, [['enum-widened', 'in.enum', ['a', 'b'], undefined]]],
    [
      { enum: ['a'] },
      { const: 'a' },
      [
        ['schema-changed', 'in.const', undefined, 'a'],
        ['schema-changed', 'in.enum', ['a'], undefined],
      ].slice(0, 0),
    ],
  ])('%j → %j', (before, after, expected) => {
    const found = changes(before, after).filter(([kind]) => kind !== 'schema-changed');
    expect(found).toEqual(expected);
  });
});

describe('numeric bounds (one lower and one upper bound, inclusive or exclusive)', () => {
  it.each([
    [{ minimum: 1 }, { minimum: 2 }, [['bounds-tightened', 'in.minimum', 1, 2]]],
    [{ minimum: 2 }, { minimum: 1 }, [['bounds-loosened', 'in.minimum', 2, 1]]],
    [{ maximum: 5 }, { maximum: 4 }, [['bounds-tightened', 'in.maximum', 5, 4]]],
    [{ maximum: 4 }, { maximum: 5 }, [['bounds-loosened', 'in.maximum', 4, 5]]],
    [{}, { maximum: 5 }, [['bounds-tightened', 'in.maximum', undefined, 5]]],
    [{ maximum: 5 }, {}, [['bounds-loosened', 'in.maximum', 5, undefined]]],
    [
      { type: 'number', minimum: 1 },
      { type: 'number', exclusiveMinimum: 1 },
      [['bounds-tightened', 'in.exclusiveMinimum', { minimum: 1 }, { exclusiveMinimum: 1 }]],
    ],
    [
      { type: 'number', exclusiveMaximum: 5 },
      { type: 'number', maximum: 5 },
      [['bounds-loosened', 'in.maximum', { exclusiveMaximum: 5 }, { maximum: 5 }]],
    ],
    [
      { type: 'number', exclusiveMinimum: 1 },
      { type: 'number', minimum: 3 },
      [['bounds-tightened', 'in.minimum', { exclusiveMinimum: 1 }, { minimum: 3 }]],
    ],
    [
      { type: 'number', maximum: 3 },
      { type: 'number', exclusiveMaximum: 9 },
      [['bounds-loosened', 'in.exclusiveMaximum', { maximum: 3 }, { exclusiveMaximum: 9 }]],
    ],
    [{ minimum: 'a' }, { minimum: 'b' }, [['bounds-tightened', 'in.minimum', 'a', 'b']]],
    [{ minimum: 1 }, { minimum: '1' }, [['bounds-tightened', 'in.minimum', 1, '1']]],
    [{ minimum: 1 }, { minimum: 1, description: 'd' }, [['description-changed', 'in.description', undefined, 'd']]],
  ])('%j → %j', (before, after, expected) => {
    expect(changes(before, after)).toEqual(expected);
  });
});

describe('the other bounds', () => {
  it.each([
    [{ minLength: 1 }, { minLength: 2 }, [['bounds-tightened', 'in.minLength', 1, 2]]],
    [{ minLength: 2 }, { minLength: 1 }, [['bounds-loosened', 'in.minLength', 2, 1]]],
    [{ maxLength: 2 }, { maxLength: 1 }, [['bounds-tightened', 'in.maxLength', 2, 1]]],
    [{ maxItems: 1 }, { maxItems: 2 }, [['bounds-loosened', 'in.maxItems', 1, 2]]],
    [{}, { minItems: 1 }, [['bounds-tightened', 'in.minItems', undefined, 1]]],
    [{ minProperties: 1 }, {}, [['bounds-loosened', 'in.minProperties', 1, undefined]]],
    [{ maxContains: 3 }, { maxContains: 3 }, []],
    [{ minContains: 1 }, { minContains: 'x' }, [['bounds-tightened', 'in.minContains', 1, 'x']]],
    [{ maxProperties: 'x' }, { maxProperties: 2 }, [['bounds-tightened', 'in.maxProperties', 'x', 2]]],
    [{ pattern: '^a' }, {}, [['bounds-loosened', 'in.pattern', '^a', undefined]]],
    [{}, { multipleOf: 2 }, [['bounds-tightened', 'in.multipleOf', undefined, 2]]],
    [{ format: 'date' }, { format: 'email' }, [['bounds-tightened', 'in.format', 'date', 'email']]],
    [{ uniqueItems: true }, {}, [['bounds-loosened', 'in.uniqueItems', true, undefined]]],
    [{}, { uniqueItems: true }, [['bounds-tightened', 'in.uniqueItems', undefined, true]]],
    [{ uniqueItems: 'yes' }, { uniqueItems: 'no' }, [['bounds-loosened', 'in.uniqueItems', 'yes', 'no']]],
  ])('%j → %j', (before, after, expected) => {
    expect(changes(before, after)).toEqual(expected);
  });
});

describe('equivalent spellings are no change (canonicalSchema)', () => {
  it.each([
    [{ additionalProperties: true }, {}],
    [{ additionalProperties: {} }, {}],
    [{ items: true }, {}],
    [{ items: {} }, {}],
    [{ propertyNames: true }, {}],
    [{ propertyNames: {} }, {}],
    [{ uniqueItems: false }, {}],
    [{ minLength: 0 }, {}],
    [{ minItems: 0 }, {}],
    [{ minProperties: 0 }, {}],
    [{ required: [] }, {}],
    [
      { type: 'integer', exclusiveMinimum: 0 },
      { type: 'integer', minimum: 1 },
    ],
    [
      { type: 'integer', exclusiveMaximum: 10 },
      { type: 'integer', maximum: 9 },
    ],
    [
      { type: 'integer', minimum: 0.5 },
      { type: 'integer', minimum: 1 },
    ],
    [
      { type: 'integer', maximum: 9.5 },
      { type: 'integer', maximum: 9 },
    ],
    [
      { type: 'integer', exclusiveMinimum: 0.5 },
      { type: 'integer', minimum: 1 },
    ],
    [
      { type: 'integer', exclusiveMaximum: 9.5 },
      { type: 'integer', maximum: 9 },
    ],
    [
      { type: 'integer', minimum: 3, exclusiveMinimum: 1 },
      { type: 'integer', minimum: 3 },
    ],
    [
      { type: 'integer', maximum: 3, exclusiveMaximum: 10 },
      { type: 'integer', maximum: 3 },
    ],
    [
      { type: ['integer', 'null'], exclusiveMinimum: 0 },
      { type: ['integer', 'null'], minimum: 1 },
    ],
    [
      { type: 'number', minimum: 1, exclusiveMinimum: 0 },
      { type: 'number', minimum: 1 },
    ],
    [
      { type: 'number', minimum: 1, exclusiveMinimum: 1 },
      { type: 'number', exclusiveMinimum: 1 },
    ],
    [
      { type: 'number', maximum: 5, exclusiveMaximum: 9 },
      { type: 'number', maximum: 5 },
    ],
    [
      { type: 'number', maximum: 5, exclusiveMaximum: 5 },
      { type: 'number', exclusiveMaximum: 5 },
    ],
    [{ minimum: 1, exclusiveMinimum: true }, { exclusiveMinimum: 1 }],
    [{ maximum: 9, exclusiveMaximum: true }, { exclusiveMaximum: 9 }],
    [{ minimum: 1, exclusiveMinimum: false }, { minimum: 1 }],
    [{ exclusiveMaximum: true }, {}],
    [{ anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] }, { type: ['integer', 'null'], minimum: 1 }],
    [{ oneOf: [{ type: 'string' }, { type: 'null' }] }, { type: ['null', 'string'] }],
    [{ anyOf: [{ type: 'string', description: 'text' }, { type: 'null' }] }, { type: ['string', 'null'], description: 'text' }],
    [{ anyOf: [{ type: ['string', 'null'] }] }, { type: ['null', 'string'] }],
    [{ anyOf: [{ type: 'array', items: {} }, { type: 'null' }] }, { type: ['array', 'null'] }],
  ])('%j is %j', (before, after) => {
    expect(changes(before, after)).toEqual([]);
    expect(changes(after, before)).toEqual([]);
  });

  it.each([
    [
      { type: 'number', exclusiveMinimum: 0 },
      { type: 'number', minimum: 1 },
    ],
    [{ type: 'integer', minimum: Number.POSITIVE_INFINITY }, { type: 'integer' }],
    [
      { type: 'integer', minimum: 'x', exclusiveMinimum: 1 },
      { type: 'integer', minimum: 2 },
    ],
    [
      { type: 'integer', minimum: 1, exclusiveMinimum: 'x' },
      { type: 'integer', minimum: 1 },
    ],
    [
      { type: 'string', minimum: 1.5 },
      { type: 'string', minimum: 2 },
    ],
    [
      { type: ['integer', 'number'], minimum: 1.5 },
      { type: ['integer', 'number'], minimum: 2 },
    ],
    [{ minimum: 1, exclusiveMinimum: true }, { minimum: 1 }],
    [{ anyOf: [{ type: 'integer', minimum: 1 }, { type: 'number' }] }, { type: ['integer', 'number'], minimum: 1 }],
    [{ anyOf: [{ type: 'string', minLength: 1 }, { type: 'string' }] }, { type: 'string', minLength: 1 }],
    [{ anyOf: [{ type: 'string' }, { type: 'string', minLength: 1 }] }, { type: 'string', minLength: 1 }],
    [{ anyOf: [{ type: ['string', 'integer'], minLength: 1 }] }, { type: ['integer', 'string'], minLength: 1 }],
    [{ anyOf: [{ type: 'string', minimum: 1 }, { type: 'null' }] }, { type: ['null', 'string'], minimum: 1 }],
    [
      {
        anyOf: [
          { type: 'string', minLength: 1 },
          { type: 'null', minLength: 2 },
        ],
      },
      { type: ['null', 'string'], minLength: 1 },
    ],
    [
      { anyOf: [{ type: 'string', minLength: 1 }], minLength: 1 },
      { type: 'string', minLength: 1 },
    ],
    [{ anyOf: [{ type: 'string' }, 'x'] }, { type: 'string' }],
    [{ anyOf: [{ minLength: 1 }] }, { minLength: 1 }],
    [{ anyOf: [{ type: [] }] }, {}],
    [{ anyOf: [{ type: [1] }] }, { type: '1' }],
    [{ anyOf: [] }, {}],
    [{ type: 'string', anyOf: [{ type: 'null' }] }, { type: ['null', 'string'] }],
    [{ oneOf: [{ type: 'integer' }, { type: 'number' }] }, { type: ['integer', 'number'] }],
    [{ oneOf: [{ type: 'string' }, { type: 'string' }] }, { type: 'string' }],
  ])('%j is not the same schema as %j', (before, after) => {
    expect(changes(before, after)).not.toEqual([]);
  });

  it('canonicalSchema keeps the no-op keywords that do constrain, and leaves its input alone', () => {
    const input = {
      items: { type: 'string' },
      propertyNames: { pattern: '^a' },
      additionalProperties: false,
      minLength: 1,
      minItems: 2,
      minProperties: 3,
      uniqueItems: true,
      required: ['a'],
    };
    expect(canonicalSchema(input)).toEqual(input);
    const spelled = { type: 'integer', exclusiveMinimum: 0 };
    canonicalSchema(spelled);
    expect(spelled).toEqual({ type: 'integer', exclusiveMinimum: 0 });
    expect(canonicalSchema({ anyOf: [{ type: 'string', minLength: 0 }, { type: 'null' }] })).toEqual({ type: ['null', 'string'] });
    expect(canonicalSchema({ anyOf: [{ type: 'string' }], oneOf: [{ type: 'null' }] })).toEqual({
      type: 'string',
      oneOf: [{ type: 'null' }],
    });
    expect(canonicalSchema({ type: [2, 'a'] })).toEqual({ type: [2, 'a'] });
    expect(canonicalSchema({ type: ['b', 1] })).toEqual({ type: ['b', 1] });
  });
});

describe('schemas that only look alike: the exact change', () => {
  it.each([
    [
      { type: 'integer', minimum: Number.POSITIVE_INFINITY },
      { type: 'integer' },
      [['bounds-loosened', 'in.minimum', Number.POSITIVE_INFINITY, undefined]],
    ],
    [
      { type: 'integer', minimum: 'x', exclusiveMinimum: 1 },
      { type: 'integer', minimum: 2 },
      [['bounds-tightened', 'in.minimum', { exclusiveMinimum: 1 }, { minimum: 2 }]],
    ],
    [
      { type: 'integer', minimum: 1, exclusiveMinimum: 'x' },
      { type: 'integer', minimum: 1 },
      [['bounds-tightened', 'in.minimum', { exclusiveMinimum: 'x' }, { minimum: 1 }]],
    ],
    [{ type: 'string', minimum: 1.5 }, { type: 'string', minimum: 2 }, [['bounds-tightened', 'in.minimum', 1.5, 2]]],
    [
      { type: ['integer', 'number'], minimum: 1.5 },
      { type: ['integer', 'number'], minimum: 2 },
      [['bounds-tightened', 'in.minimum', 1.5, 2]],
    ],
    [{ minimum: 1, exclusiveMinimum: true }, { minimum: 1 }, [['bounds-loosened', 'in.minimum', { exclusiveMinimum: 1 }, { minimum: 1 }]]],
    [
      { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'number' }] },
      { type: ['integer', 'number'], minimum: 1 },
      [
        ['type-narrowed', 'in.type', undefined, ['integer', 'number']],
        ['bounds-tightened', 'in.minimum', undefined, 1],
        ['type-widened', 'in.anyOf', [{ type: 'integer', minimum: 1 }, { type: 'number' }], undefined],
      ],
    ],
    [
      { anyOf: [{ type: 'string', minLength: 1 }, { type: 'string' }] },
      { type: 'string', minLength: 1 },
      [
        ['type-narrowed', 'in.type', undefined, 'string'],
        ['bounds-tightened', 'in.minLength', undefined, 1],
        ['type-widened', 'in.anyOf', [{ type: 'string', minLength: 1 }, { type: 'string' }], undefined],
      ],
    ],
    [
      { anyOf: [{ type: 'string' }, { type: 'string', minLength: 1 }] },
      { type: 'string', minLength: 1 },
      [
        ['type-narrowed', 'in.type', undefined, 'string'],
        ['bounds-tightened', 'in.minLength', undefined, 1],
        ['type-widened', 'in.anyOf', [{ type: 'string' }, { type: 'string', minLength: 1 }], undefined],
      ],
    ],
    [
      { anyOf: [{ type: ['string', 'integer'], minLength: 1 }] },
      { type: ['integer', 'string'], minLength: 1 },
      [
        ['type-narrowed', 'in.type', undefined, ['integer', 'string']],
        ['bounds-tightened', 'in.minLength', undefined, 1],
        ['type-widened', 'in.anyOf', [{ type: ['string', 'integer'], minLength: 1 }], undefined],
      ],
    ],
    [
      { anyOf: [{ type: 'string', minimum: 1 }, { type: 'null' }] },
      { type: ['null', 'string'], minimum: 1 },
      [
        ['type-narrowed', 'in.type', undefined, ['null', 'string']],
        ['bounds-tightened', 'in.minimum', undefined, 1],
        ['type-widened', 'in.anyOf', [{ type: 'string', minimum: 1 }, { type: 'null' }], undefined],
      ],
    ],
    [
      {
        anyOf: [
          { type: 'string', minLength: 1 },
          { type: 'null', minLength: 2 },
        ],
      },
      { type: ['null', 'string'], minLength: 1 },
      [
        ['type-narrowed', 'in.type', undefined, ['null', 'string']],
        ['bounds-tightened', 'in.minLength', undefined, 1],
        [
          'type-widened',
          'in.anyOf',
          [
            { type: 'string', minLength: 1 },
            { type: 'null', minLength: 2 },
          ],
          undefined,
        ],
      ],
    ],
    [
      { anyOf: [{ type: 'string', minLength: 1 }], minLength: 1 },
      { type: 'string', minLength: 1 },
      [
        ['type-narrowed', 'in.type', undefined, 'string'],
        ['type-widened', 'in.anyOf', [{ type: 'string', minLength: 1 }], undefined],
      ],
    ],
    [
      { anyOf: [{ type: 'string' }, 'x'] },
      { type: 'string' },
      [
        ['type-narrowed', 'in.type', undefined, 'string'],
        ['type-widened', 'in.anyOf', [{ type: 'string' }, 'x'], undefined],
      ],
    ],
    [
      { anyOf: [{ minLength: 1 }] },
      { minLength: 1 },
      [
        ['bounds-tightened', 'in.minLength', undefined, 1],
        ['type-widened', 'in.anyOf', [{ minLength: 1 }], undefined],
      ],
    ],
    [{ anyOf: [{ type: [] }] }, {}, [['type-widened', 'in.anyOf', [{ type: [] }], undefined]]],
    [
      { anyOf: [{ type: [1] }] },
      { type: '1' },
      [
        ['type-narrowed', 'in.type', undefined, '1'],
        ['type-widened', 'in.anyOf', [{ type: [1] }], undefined],
      ],
    ],
    [{ anyOf: [] }, {}, [['type-widened', 'in.anyOf', [], undefined]]],
    [
      { type: 'string', anyOf: [{ type: 'null' }] },
      { type: ['null', 'string'] },
      [
        ['type-widened', 'in.type', 'string', ['null', 'string']],
        ['type-widened', 'in.anyOf', [{ type: 'null' }], undefined],
      ],
    ],
    [
      { oneOf: [{ type: 'integer' }, { type: 'number' }] },
      { type: ['integer', 'number'] },
      [
        ['type-narrowed', 'in.type', undefined, ['integer', 'number']],
        ['type-widened', 'in.oneOf', [{ type: 'integer' }, { type: 'number' }], undefined],
      ],
    ],
    [
      { oneOf: [{ type: 'string' }, { type: 'string' }] },
      { type: 'string' },
      [
        ['type-narrowed', 'in.type', undefined, 'string'],
        ['type-widened', 'in.oneOf', [{ type: 'string' }, { type: 'string' }], undefined],
      ],
    ],
    [{ type: 'string', anyOf: [{ type: 'null' }] }, { type: 'string' }, [['type-widened', 'in.anyOf', [{ type: 'null' }], undefined]]],
    [{ anyOf: [] }, {}, [['type-widened', 'in.anyOf', [], undefined]]],
    [{ anyOf: [{ type: [1, 'string'] }] }, {}, [['type-widened', 'in.anyOf', [{ type: [1, 'string'] }], undefined]]],
    [
      { anyOf: [{ type: 'string', minLength: 1, minimum: 2 }, { type: 'null' }] },
      {},
      [['type-widened', 'in.anyOf', [{ type: 'string', minLength: 1, minimum: 2 }, { type: 'null' }], undefined]],
    ],
    [[1], [2], [['schema-changed', 'in', [1], [2]]]],
    [{ properties: { a: null } }, { properties: { a: {} } }, [['schema-changed', 'in.properties.a', null, {}]]],
    [{ anyOf: [{ type: 'integer' }, { type: 'number' }] }, { type: ['integer', 'number'] }, []],
    [
      { anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }] },
      { type: ['null', 'string'] },
      [['bounds-loosened', 'in.minLength', 1, undefined]],
    ],
    [{ 'x-a': 1, type: 'string' }, { 'x-a': 1, type: 'integer' }, [['type-narrowed', 'in.type', 'string', 'integer']]],
    [{ minimum: 'b' }, { minimum: 'a' }, [['bounds-tightened', 'in.minimum', 'b', 'a']]],
  ])('%j → %j', (before, after, expected) => {
    expect(changes(before, after)).toEqual(expected);
  });
});

describe('properties and required', () => {
  const object = (properties: Record<string, unknown>, required?: string[]) => ({
    type: 'object',
    properties,
    ...(required ? { required } : {}),
  });

  it.each([
    [object({ a: { type: 'string' } }), object({}), [['property-removed', 'in.properties.a', { type: 'string' }, undefined]]],
    [object({}), object({ a: { type: 'string' } }), [['property-added', 'in.properties.a', undefined, { type: 'string' }]]],
    [object({ a: {} }), object({ a: {} }, ['a']), [['required-added', 'in.properties.a', 'optional', 'required']]],
    [object({ a: {} }, ['a']), object({ a: {} }), [['required-removed', 'in.properties.a', 'required', 'optional']]],
    [object({}, ['ghost']), object({}), []],
    [object({}), object({}, ['ghost']), [['required-added', 'in.properties.ghost', undefined, undefined]]],
    [
      object({ b: { type: 'string' }, a: { type: 'string' } }),
      object({ a: { type: 'integer' }, b: { type: 'integer' } }),
      [
        ['type-narrowed', 'in.properties.a.type', 'string', 'integer'],
        ['type-narrowed', 'in.properties.b.type', 'string', 'integer'],
      ],
    ],
    [object({ 'a b': {} }), object({}), [['property-removed', 'in.properties["a b"]', {}, undefined]]],
    [{ properties: 'junk' }, { properties: { a: {} } }, [['property-added', 'in.properties.a', undefined, {}]]],
    [{ required: 'a' }, { required: ['a'] }, [['required-added', 'in.properties.a', undefined, undefined]]],
    [object({ constructor: {} }), object({}), [['property-removed', 'in.properties.constructor', {}, undefined]]],
  ])('%j → %j', (before, after, expected) => {
    expect(changes(before, after)).toEqual(expected);
  });
});

describe('additionalProperties and subschemas', () => {
  it.each([
    [{}, { additionalProperties: false }, [['additional-properties-closed', 'in.additionalProperties', undefined, false]]],
    [
      { additionalProperties: { type: 'string' } },
      { additionalProperties: false },
      [['additional-properties-closed', 'in.additionalProperties', { type: 'string' }, false]],
    ],
    [
      { additionalProperties: false },
      { additionalProperties: { type: 'string' } },
      [['additional-properties-opened', 'in.additionalProperties', false, { type: 'string' }]],
    ],
    [{ additionalProperties: false }, {}, [['additional-properties-opened', 'in.additionalProperties', false, undefined]]],
    [{}, { additionalProperties: { type: 'string' } }, [['bounds-tightened', 'in.additionalProperties', undefined, { type: 'string' }]]],
    [{ additionalProperties: { type: 'string' } }, {}, [['bounds-loosened', 'in.additionalProperties', { type: 'string' }, undefined]]],
    [
      { additionalProperties: { type: 'string' } },
      { additionalProperties: { type: 'integer' } },
      [['type-narrowed', 'in.additionalProperties.type', 'string', 'integer']],
    ],
    [{}, { items: { type: 'string' } }, [['bounds-tightened', 'in.items', undefined, { type: 'string' }]]],
    [{ contains: { type: 'string' } }, {}, [['bounds-loosened', 'in.contains', { type: 'string' }, undefined]]],
    [{}, { not: { type: 'string' } }, [['schema-changed', 'in.not', undefined, { type: 'string' }]]],
    [{ not: { type: 'string' } }, {}, [['schema-changed', 'in.not', { type: 'string' }, undefined]]],
    [{ items: { maxLength: 5 } }, { items: { maxLength: 4 } }, [['bounds-tightened', 'in.items.maxLength', 5, 4]]],
    [
      { unevaluatedProperties: false },
      { unevaluatedProperties: { type: 'string' } },
      [['schema-changed', 'in.unevaluatedProperties', false, { type: 'string' }]],
    ],
  ])('%j → %j', (before, after, expected) => {
    expect(changes(before, after)).toEqual(expected);
  });
});

describe('alternatives that do not merge into a type list', () => {
  const a = { required: ['a'] };
  const b = { required: ['b'] };
  const c = { required: ['c'] };

  it.each([
    [{ anyOf: [a] }, { anyOf: [a, b] }, [['type-widened', 'in.anyOf', [a], [a, b]]]],
    [{ anyOf: [a, b] }, { anyOf: [b] }, [['type-narrowed', 'in.anyOf', [a, b], [b]]]],
    [{ oneOf: [a, b] }, { oneOf: [c] }, [['schema-changed', 'in.oneOf', [a, b], [c]]]],
    [{ anyOf: [a, b] }, { anyOf: [a, c] }, [['required-added', 'in.anyOf[1].properties.c', undefined, undefined]]],
    [{ oneOf: [a, b] }, { oneOf: [a, b, c] }, [['type-widened', 'in.oneOf', [a, b], [a, b, c]]]],
    [{}, { anyOf: [a, b] }, [['type-narrowed', 'in.anyOf', undefined, [a, b]]]],
    [{ oneOf: [a, b] }, {}, [['type-widened', 'in.oneOf', [a, b], undefined]]],
    [{ anyOf: 'junk' }, { anyOf: [a, b] }, [['type-widened', 'in.anyOf', 'junk', [a, b]]]],
  ])('%j → %j', (before, after, expected) => {
    expect(changes(before, after)).toEqual(expected);
  });
});

describe('prose, defaults and unknown keywords', () => {
  it.each([
    [{ description: 'a' }, { description: 'b' }, [['description-changed', 'in.description', 'a', 'b']]],
    [{ examples: [1] }, {}, [['description-changed', 'in.examples', [1], undefined]]],
    [{ $comment: 'x' }, { $comment: 'y' }, [['description-changed', 'in.$comment', 'x', 'y']]],
    [{ default: 1 }, {}, [['default-changed', 'in.default', 1, undefined]]],
    [
      { 'x-b': 1, 'x-a': 1 },
      { 'x-b': 2, 'x-a': 2 },
      [
        ['schema-changed', 'in["x-a"]', 1, 2],
        ['schema-changed', 'in["x-b"]', 1, 2],
      ],
    ],
    [{ $id: 'a' }, {}, [['schema-changed', 'in.$id', 'a', undefined]]],
    [{ type: 'string' }, 'string', [['schema-changed', 'in', { type: 'string' }, 'string']]],
    [true, { type: 'string' }, [['schema-changed', 'in', true, { type: 'string' }]]],
    [[1], [1], []],
  ])('%j → %j', (before, after, expected) => {
    expect(changes(before, after)).toEqual(expected);
  });

  it('a keyword inherited from the prototype is not a keyword', () => {
    expect(changes({ type: 'string' }, JSON.parse('{"type":"string","__proto__":{"x":1}}'))).toEqual([
      ['schema-changed', 'in.__proto__', undefined, { x: 1 }],
    ]);
  });
});

function tool(name: string, extra: Partial<NormalizedTool> = {}): NormalizedTool {
  return { name, descriptionSha256: 'd', inputSchema: { type: 'object', properties: {} }, annotations: {}, ...extra } as NormalizedTool;
}

describe('tool annotations', () => {
  const one = (before: Record<string, unknown>, after: Record<string, unknown>) =>
    diffTools([tool('t', { annotations: before })], [tool('t', { annotations: after })]).map(({ kind, path, before: was, after: now }) => [
      kind,
      path,
      was,
      now,
    ]);

  it.each([
    [{ readOnlyHint: false }, { readOnlyHint: true }, 'annotation-read-only-claimed'],
    [{}, { readOnlyHint: true }, 'annotation-read-only-claimed'],
    [{ readOnlyHint: true }, {}, 'annotation-read-only-withdrawn'],
    [{ destructiveHint: true }, { destructiveHint: false }, 'annotation-non-destructive-claimed'],
    [{}, { destructiveHint: false }, 'annotation-non-destructive-claimed'],
    [{ destructiveHint: false }, { destructiveHint: true }, 'annotation-destructive-claimed'],
    [{ idempotentHint: false }, { idempotentHint: true }, 'annotation-idempotent-claimed'],
    [{ idempotentHint: true }, {}, 'annotation-idempotent-withdrawn'],
    [{ openWorldHint: true }, { openWorldHint: false }, 'annotation-closed-world-claimed'],
    [{ openWorldHint: false }, {}, 'annotation-open-world-claimed'],
    [{ readOnlyHint: 'yes' }, { readOnlyHint: true }, 'annotation-read-only-claimed'],
    [{ title: 'A' }, { title: 'B' }, 'description-changed'],
    [{ custom: 1 }, { custom: 2 }, 'meta-changed'],
  ])('%j → %j is %s', (before, after, kind) => {
    const key = Object.keys({ ...before, ...after })[0]!;
    expect(one(before, after)).toEqual([
      [kind, `annotations.${key}`, (before as Record<string, unknown>)[key], (after as Record<string, unknown>)[key]],
    ]);
  });

  it.each([
    [{}, { readOnlyHint: false }],
    [{ destructiveHint: true }, {}],
    [{}, { openWorldHint: true, idempotentHint: false }],
    [{ readOnlyHint: 'yes' }, { readOnlyHint: false }],
  ])('an absent hint is its protocol default: %j → %j is no change', (before, after) => {
    expect(one(before, after)).toEqual([]);
  });

  it('destructiveHint and idempotentHint carry no meaning on a read-only tool, and a tool newly claimed read-only is that one claim', () => {
    expect(
      one({ readOnlyHint: true, destructiveHint: true }, { readOnlyHint: true, destructiveHint: false, idempotentHint: true }),
    ).toEqual([]);
    expect(one({ destructiveHint: true }, { readOnlyHint: true, destructiveHint: false }).map(([kind]) => kind)).toEqual([
      'annotation-read-only-claimed',
    ]);
    // Once the tool is no longer read-only, its hints are compared again.
    expect(one({ readOnlyHint: true, destructiveHint: false }, { destructiveHint: true }).map(([kind, path]) => `${kind} ${path}`)).toEqual(
      ['annotation-destructive-claimed annotations.destructiveHint', 'annotation-read-only-withdrawn annotations.readOnlyHint'],
    );
  });

  it('non-object annotations count as none', () => {
    expect(
      diffTools([tool('t', { annotations: 'x' as never })], [tool('t', { annotations: { readOnlyHint: true } })]).map(({ kind }) => kind),
    ).toEqual(['annotation-read-only-claimed']);
  });
});

describe('tool definitions', () => {
  it('every changed part is one change under the tool; the first carries both input schemas', () => {
    const before = tool('t', {
      descriptionSha256: 'a',
      outputSchema: { type: 'object' },
      _meta: { a: 1 },
      inputSchema: { type: 'object', properties: { x: { type: 'string' } } },
    });
    const after = tool('t', {
      descriptionSha256: 'b',
      outputSchema: { type: 'array' },
      _meta: { a: 2 },
      inputSchema: { type: 'object', properties: { x: { type: 'integer' } } },
    });
    expect(diffTools([before], [after])).toEqual([
      {
        kind: 'description-changed',
        tool: 't',
        path: 'description',
        before: undefined,
        after: undefined,
        schemas: { before: before.inputSchema, after: after.inputSchema },
      },
      { kind: 'type-narrowed', tool: 't', path: 'inputSchema.properties.x.type', before: 'string', after: 'integer' },
      { kind: 'output-changed', tool: 't', path: 'outputSchema.type', before: 'object', after: 'array' },
      { kind: 'meta-changed', tool: 't', path: '_meta', before: { a: 1 }, after: { a: 2 } },
    ]);
  });

  it('an equivalent input schema is no change; a part the classifier does not know is a whole-tool change', () => {
    expect(diffTools([tool('t', { inputSchema: { type: 'object', properties: {}, additionalProperties: true } })], [tool('t')])).toEqual(
      [],
    );
    const rest = { name: '', descriptionSha256: 'd', inputSchema: null, outputSchema: null, annotations: null };
    expect(diffTools([tool('t')], [tool('t', { unknownPart: { a: 1 } } as never)])).toEqual([
      {
        kind: 'schema-changed',
        tool: 't',
        path: '',
        before: rest,
        after: { ...rest, unknownPart: { a: 1 } },
        schemas: { before: tool('t').inputSchema, after: tool('t').inputSchema },
      },
    ]);
  });

  it('tools removed and added, in list order', () => {
    const found = diffTools(
      [tool('b2_a', { descriptionSha256: '1' }), tool('b2_b', { descriptionSha256: '2' })],
      [
        tool('b2_b', { descriptionSha256: '2' }),
        tool('s3_z', { descriptionSha256: '3', annotations: { x: 1 } }),
        tool('s3_y', { descriptionSha256: '4', annotations: { y: 1 } }),
      ],
    );
    expect(found).toEqual([
      { kind: 'tool-removed', tool: 'b2_a', path: '' },
      { kind: 'tool-added', tool: 's3_z', path: '' },
      { kind: 'tool-added', tool: 's3_y', path: '' },
    ]);
  });
});

describe('renames', () => {
  const withInputs = (name: string, properties: string[], required: string[] = [], extra: Partial<NormalizedTool> = {}) =>
    tool(name, {
      inputSchema: { type: 'object', properties: Object.fromEntries(properties.map((p) => [p, { type: 'string' }])), required },
      ...extra,
    });

  it('the contract records the rename, either way round; an identical definition is a rename too', () => {
    const renames = [{ from: 'b2_old', to: 'b2_new' }];
    expect(diffTools([tool('b2_old', { descriptionSha256: 'x' })], [tool('b2_new', { descriptionSha256: 'y' })], { renames })[0]).toEqual({
      kind: 'tool-renamed',
      tool: 'b2_new',
      path: '',
      before: 'b2_old',
      after: 'b2_new',
      rename: { by: 'contract', reverted: false },
    });
    expect(diffTools([tool('b2_new', { descriptionSha256: 'x' })], [tool('b2_old', { descriptionSha256: 'y' })], { renames })[0]).toEqual({
      kind: 'tool-renamed',
      tool: 'b2_old',
      path: '',
      before: 'b2_new',
      after: 'b2_old',
      rename: { by: 'contract', reverted: true },
    });
    expect(diffTools([tool('b2_one')], [tool('b2_two')])).toEqual([
      { kind: 'tool-renamed', tool: 'b2_two', path: '', before: 'b2_one', after: 'b2_two', rename: { by: 'definition' } },
    ]);
  });

  it('a contract rename whose successor is already taken is not used twice', () => {
    const renames = [
      { from: 'b2_a', to: 'b2_c' },
      { from: 'b2_b', to: 'b2_c' },
    ];
    const found = diffTools(
      [tool('b2_a', { descriptionSha256: '1' }), tool('b2_b', { descriptionSha256: '2', annotations: { z: 1 } })],
      [tool('b2_c', { descriptionSha256: '3', annotations: { q: 2 } })],
      { renames },
    );
    expect(
      found
        .filter(({ kind }) => kind === 'tool-renamed' || kind === 'tool-removed')
        .map(({ kind, before, tool: name }) => `${kind} ${String(before ?? name)}`),
    ).toEqual(['tool-renamed b2_a', 'tool-removed b2_b']);
  });

  it('an equivalent definition under a new name is a rename, and the definitions are then compared', () => {
    const before = withInputs('b2_list_things', ['a'], [], {
      inputSchema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
    });
    const after = withInputs('b2_enumerate_stuff', ['a']);
    expect(diffTools([before], [after])).toEqual([
      {
        kind: 'tool-renamed',
        tool: 'b2_enumerate_stuff',
        path: '',
        before: 'b2_list_things',
        after: 'b2_enumerate_stuff',
        rename: { by: 'definition' },
      },
    ]);
  });

  it('similar tools pair by confidence, best first', () => {
    const removed = withInputs('b2_list_files', ['bucket', 'prefix', 'limit'], ['bucket'], { descriptionSha256: 'r' });
    const close = withInputs('b2_list_file_names', ['bucket', 'prefix', 'limit', 'start'], ['bucket'], { descriptionSha256: 'r' });
    const far = withInputs('b2_get_files', ['bucket', 'prefix', 'limit', 'x', 'y'], ['bucket'], { descriptionSha256: 'r' });
    expect(renameSimilarity(removed, close)).toEqual({ by: 'similarity', confidence: 0.75, shared: 3, total: 4 });
    expect(renameSimilarity(removed, far)).toEqual({ by: 'similarity', confidence: 0.69, shared: 3, total: 5 });
    const found = diffTools([removed], [far, close]);
    expect(found.find(({ kind }) => kind === 'tool-renamed')).toEqual({
      kind: 'tool-renamed',
      tool: 'b2_list_file_names',
      path: '',
      before: 'b2_list_files',
      after: 'b2_list_file_names',
      rename: { by: 'similarity', confidence: 0.75, shared: 3, total: 4 },
    });
    expect(found.find(({ kind }) => kind === 'tool-added')).toMatchObject({ tool: 'b2_get_files' });
  });

  it('contract renames are found past unrelated entries, and keep their basis when the definitions are identical', () => {
    const renames = [
      { from: 'b2_x', to: 'b2_y' },
      { from: 'b2_old', to: 'b2_new' },
    ];
    expect(diffTools([tool('b2_old')], [tool('b2_new')], { renames })[0]!.rename).toEqual({ by: 'contract', reverted: false });
    expect(diffTools([tool('b2_new')], [tool('b2_old')], { renames: [{ from: 'b2_q', to: 'b2_r' }, ...renames] })[0]!.rename).toEqual({
      by: 'contract',
      reverted: true,
    });
  });

  it('a contract rename is the entry for this tool, not the first that names an added tool', () => {
    const distinct = (name: string, sha: string) => tool(name, { descriptionSha256: sha, annotations: { [sha]: 1 } });
    const renames = [
      { from: 'b2_zzz', to: 'b2_extra' },
      { from: 'b2_old', to: 'b2_new' },
    ];
    expect(
      diffTools([distinct('b2_old', '1')], [distinct('b2_extra', '2'), distinct('b2_new', '3')], { renames }).find(
        ({ kind }) => kind === 'tool-renamed',
      ),
    ).toMatchObject({ tool: 'b2_new', before: 'b2_old' });
    const back = [
      { from: 'b2_extra', to: 'b2_zzz' },
      { from: 'b2_old', to: 'b2_new' },
    ];
    expect(
      diffTools([distinct('b2_new', '1')], [distinct('b2_extra', '2'), distinct('b2_old', '3')], { renames: back }).find(
        ({ kind }) => kind === 'tool-renamed',
      ),
    ).toMatchObject({ tool: 'b2_old', before: 'b2_new', rename: { by: 'contract', reverted: true } });
  });

  it('a tool whose properties are not an object has no input names', () => {
    const junk = tool('b2_list_big_files', { inputSchema: { type: 'object', properties: 'junk' } as never });
    expect(renameSimilarity(junk, tool('b2_list_large_files'))).toEqual({ by: 'similarity', confidence: 0.83, shared: 0, total: 0 });
  });

  it('of two identical added tools, the first listed is the successor', () => {
    const found = diffTools([tool('b2_gone')], [tool('b2_first'), tool('b2_second')]);
    expect(found.map(({ kind, tool: name }) => `${kind} ${name}`)).toEqual(['tool-renamed b2_first', 'tool-added b2_second']);
  });

  it('renameSimilarity: required inputs must be the same set; tools without name words; exactly half the inputs', () => {
    expect(renameSimilarity(withInputs('b2_a_b', ['a', 'b'], ['a']), withInputs('b2_a_c', ['a', 'b'], ['a', 'b']))).toBeNull();
    expect(renameSimilarity(withInputs('b2', ['a']), withInputs('s3', ['a']))).toEqual({
      by: 'similarity',
      confidence: 0.83,
      shared: 1,
      total: 1,
    });
    expect(renameSimilarity(withInputs('b2_list_x', ['a', 'b', 'c']), withInputs('b2_list_y', ['a', 'b', 'd']))).toEqual({
      by: 'similarity',
      confidence: 0.64,
      shared: 2,
      total: 4,
    });
    expect(renameSimilarity(withInputs('b2_list_files', ['a', 'b']), withInputs('s3_list_files', ['a', 'c']))).toBeNull();
  });

  it('past the pair budget only contract and identical-definition renames are matched', () => {
    const removed = Array.from({ length: 101 }, (_, index) =>
      withInputs(`b2_old_${index}`, ['a', 'b'], [], { descriptionSha256: `o${index}` }),
    );
    const added = Array.from({ length: 100 }, (_, index) =>
      withInputs(`b2_new_${index}`, ['a', 'b'], [], { descriptionSha256: `n${index}` }),
    );
    const kinds = new Set(diffTools(removed, added).map(({ kind }) => kind));
    expect([...kinds].sort()).toEqual(['tool-added', 'tool-removed']);
    const fewer = diffTools(removed.slice(0, 100), added).map(({ kind }) => kind);
    expect(fewer).toContain('tool-renamed');
  });

  it.each([
    [
      'same required inputs and all input names, different words',
      withInputs('b2_x_y', ['a', 'b'], ['a']),
      withInputs('b2_p_q', ['a', 'b'], ['a']),
      { by: 'similarity', confidence: 0.83, shared: 2, total: 2 },
    ],
    [
      'half the input names',
      withInputs('b2_list_a', ['a', 'b'], [], { descriptionSha256: '1' }),
      withInputs('b2_list_b', ['a', 'c'], [], { descriptionSha256: '2' }),
      null,
    ],
    ['different required inputs', withInputs('b2_x', ['a'], ['a']), withInputs('b2_x2', ['a'], []), null],
    ['same count of required, another name', withInputs('b2_x', ['a', 'b'], ['a']), withInputs('b2_x2', ['a', 'b'], ['b']), null],
    ['less than half the input names in common', withInputs('b2_q', ['a', 'b', 'c'], []), withInputs('b2_r', ['a', 'x', 'y'], []), null],
    [
      'no inputs, most name words',
      tool('b2_list_big_files'),
      tool('b2_list_large_files'),
      { by: 'similarity', confidence: 0.83, shared: 0, total: 0 },
    ],
    [
      'no inputs, few name words',
      tool('b2_list_big_files', { descriptionSha256: '1' }),
      tool('b2_get_other_things', { descriptionSha256: '2' }),
      null,
    ],
    ['no inputs, no name words', tool('b2', { descriptionSha256: '1' }), tool('s3', { descriptionSha256: '1' }), null],
    [
      'inputs in common, other annotations and description: below 0.6',
      withInputs('b2_a_b', ['a', 'b', 'c'], [], { descriptionSha256: '1', annotations: { x: 1 } }),
      withInputs('b2_a_c', ['a', 'b', 'c'], [], { descriptionSha256: '2' }),
      null,
    ],
    [
      'inputs in common and the description, other annotations: 0.72',
      withInputs('b2_a_b', ['a', 'b', 'c'], [], { annotations: { x: 1 } }),
      withInputs('b2_a_c', ['a', 'b', 'c']),
      { by: 'similarity', confidence: 0.72, shared: 3, total: 3 },
    ],
  ])('renameSimilarity: %s', (_name, removed, added, expected) => {
    expect(renameSimilarity(removed, added)).toEqual(expected);
  });
});

describe('the modern block', () => {
  const block = {
    toolsListCacheHint: { ttlMs: 1, cacheScope: 'private' },
    discover: { supportedVersions: ['v'], capabilities: { tools: {}, prompts: {} }, ttlMs: 1, cacheScope: 'private' },
  };

  it('each differing part is one change; the prompts capability is not one', () => {
    expect(diffModernBlock(block as never, block as never)).toEqual([]);
    expect(diffModernBlock(undefined, block as never)).toEqual([]);
    expect(diffModernBlock(block as never, undefined)).toEqual([]);
    expect(diffModernBlock(block as never, { ...block, discover: { ...block.discover, capabilities: { tools: {} } } } as never)).toEqual(
      [],
    );
    const after = {
      toolsListCacheHint: { ttlMs: 2, cacheScope: 'private' },
      discover: { supportedVersions: ['w'], capabilities: { tools: { listChanged: true } }, ttlMs: 3, cacheScope: 'public' },
    };
    expect(diffModernBlock(block as never, after as never)).toEqual([
      {
        kind: 'modern-block-changed',
        path: 'modern.toolsListCacheHint',
        before: block.toolsListCacheHint,
        after: after.toolsListCacheHint,
      },
      { kind: 'modern-block-changed', path: 'modern.discover.supportedVersions', before: ['v'], after: ['w'] },
      {
        kind: 'modern-block-changed',
        path: 'modern.discover.capabilities',
        before: { tools: {} },
        after: { tools: { listChanged: true } },
      },
      { kind: 'modern-block-changed', path: 'modern.discover.ttlMs', before: 1, after: 3 },
      { kind: 'modern-block-changed', path: 'modern.discover.cacheScope', before: 'private', after: 'public' },
    ]);
    expect(diffModernBlock({ ...block, discover: undefined } as never, block as never).map(({ path }) => path)).toEqual([
      'modern.discover.supportedVersions',
      'modern.discover.capabilities',
      'modern.discover.ttlMs',
      'modern.discover.cacheScope',
    ]);
    expect(
      diffModernBlock({ ...block, discover: { ...block.discover, capabilities: 'x' } } as never, block as never).map(({ path, before }) => [
        path,
        before,
      ]),
    ).toEqual([['modern.discover.capabilities', 'x']]);
  });
});

describe('drift explanations', () => {
  const change = (tool: string | undefined, path: string): Change => ({ kind: 'meta-changed', ...(tool ? { tool } : {}), path });

  it('driftParts: names only one side has, and the paths of each changed subject', () => {
    expect(
      driftParts(['a', 'b'], ['b', 'c'], [change('b', 'x'), change('b', ''), change(undefined, 'y'), change('a', 'z')], (c) => c.tool),
    ).toEqual({
      added: ['c'],
      removed: ['a'],
      paths: [
        ['b', ['x', '']],
        ['a', ['z']],
      ],
    });
  });

  it('explainDrift: a match, a different tool set, or definitions that differ', () => {
    expect(explainDrift({ names: ['a'], hash: 'h' }, { names: ['b'], hash: 'h' }, [])).toEqual({ status: 'match' });
    expect(explainDrift({ names: ['a'], hash: 'h' }, { names: ['a', 'b'], hash: 'g' }, [])).toEqual({
      status: 'tool-set-differs',
      added: ['b'],
      removed: [],
    });
    expect(explainDrift({ names: ['a', 'b'], hash: 'h' }, { names: ['a'], hash: 'g' }, [])).toEqual({
      status: 'tool-set-differs',
      added: [],
      removed: ['b'],
    });
    expect(explainDrift({ names: ['a'], hash: 'h' }, { names: ['a'], hash: 'g' }, [change('a', ''), change('a', 'inputSchema.x')])).toEqual(
      { status: 'definitions-differ', tools: [{ tool: 'a', paths: ['(whole tool)', 'inputSchema.x'] }] },
    );
  });
});

describe('joinPath', () => {
  it.each([
    ['', 'a', 'a'],
    ['a', 'b', 'a.b'],
    ['a', 0, 'a[0]'],
    ['', 3, '[3]'],
    ['a', 'b-c', 'a["b-c"]'],
    ['a', '$ok_1', 'a.$ok_1'],
    ['a', '1x', 'a["1x"]'],
    ['a', '', 'a[""]'],
    ['a', 'x\ny', 'a["x\\ny"]'],
  ])('joinPath(%j, %j) = %s', (base, key, path) => {
    expect(joinPath(base, key)).toBe(path);
  });
});
