/**
 * Shorter tool descriptions must never be bought by dropping constraints: every enum value,
 * bound, pattern, required field and closed object of the full surface is counted here, and each
 * count may only grow.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

type Schema = Record<string, unknown>;

/** Constraint keywords and how many constraints one occurrence carries. */
const WEIGHT: Record<string, (value: unknown) => number> = {
  enum: (v) => (Array.isArray(v) ? v.length : 0),
  const: () => 1,
  minimum: () => 1,
  maximum: () => 1,
  exclusiveMinimum: () => 1,
  exclusiveMaximum: () => 1,
  minLength: () => 1,
  maxLength: () => 1,
  pattern: () => 1,
  format: () => 1,
  minItems: () => 1,
  maxItems: () => 1,
  minProperties: () => 1,
  maxProperties: () => 1,
  required: (v) => (Array.isArray(v) ? v.length : 0),
  additionalProperties: (v) => (v === false ? 1 : 0),
};

/** The counts of the frozen full surface when descriptions were last shortened. */
const FLOOR: Record<string, number> = {
  enum: 44,
  const: 1,
  minimum: 38,
  maximum: 38,
  minLength: 94,
  maxLength: 30,
  pattern: 7,
  format: 1,
  minItems: 8,
  maxItems: 21,
  maxProperties: 5,
  required: 109,
  additionalProperties: 63,
};

/** Count the constraint keywords of a schema and of every subschema it holds (not of property names). */
function countConstraints(root: Schema): Record<string, number> {
  const counts: Record<string, number> = {};
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const schema = pending.pop();
    if (!schema || typeof schema !== 'object' || Array.isArray(schema)) continue;
    for (const [keyword, value] of Object.entries(schema as Schema)) {
      const weight = Object.hasOwn(WEIGHT, keyword) ? WEIGHT[keyword]!(value) : 0;
      if (weight > 0) counts[keyword] = (counts[keyword] ?? 0) + weight;
      if (keyword === 'properties' || keyword === '$defs') pending.push(...Object.values(value as Schema));
      else if (keyword === 'items' || keyword === 'additionalProperties' || keyword === 'propertyNames' || keyword === 'not')
        pending.push(value);
      else if (keyword === 'anyOf' || keyword === 'oneOf' || keyword === 'allOf' || keyword === 'prefixItems')
        pending.push(...(value as unknown[]));
    }
  }
  return counts;
}

function surfaceCounts(): Record<string, number> {
  const fixture = JSON.parse(
    readFileSync(join(import.meta.dirname, '..', '..', '..', 'fixtures', 'tool-contract', 'full.modern.json'), 'utf8'),
  ) as { tools: { inputSchema: Schema }[] };
  const total: Record<string, number> = {};
  for (const tool of fixture.tools) {
    for (const [keyword, n] of Object.entries(countConstraints(tool.inputSchema))) total[keyword] = (total[keyword] ?? 0) + n;
  }
  return total;
}

describe('tool constraints of the full surface', () => {
  const counts = surfaceCounts();
  it.each(Object.entries(FLOOR))('%s count does not fall below %i', (keyword, floor) => {
    expect(counts[keyword] ?? 0).toBeGreaterThanOrEqual(floor);
  });

  it('counts subschemas but not property names that look like keywords', () => {
    const schema = {
      type: 'object',
      properties: { pattern: { type: 'string', minLength: 1 }, required: { type: 'array', items: { enum: ['a', 'b'] }, maxItems: 2 } },
      required: ['pattern'],
      additionalProperties: false,
    };
    expect(countConstraints(schema)).toEqual({ minLength: 1, enum: 2, maxItems: 1, required: 1, additionalProperties: 1 });
    expect(countConstraints({ anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] })).toEqual({ minimum: 1 });
  });
});
