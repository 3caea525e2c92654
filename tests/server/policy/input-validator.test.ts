/**
 * Tool arguments are validated against the advertised schema by Ajv's 2020-12 dialect with
 * formats, every error reported, unknown keywords tolerated, each schema compiled once. Each test
 * imports a fresh copy of the module, so the lazily loaded Ajv is loaded under that test.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { JsonSchemaType } from '@modelcontextprotocol/server';

let validatorFor: <T>(
  schema: JsonSchemaType,
) => (input: unknown) => { valid: boolean; data: T | undefined; errorMessage: string | undefined };

beforeEach(async () => {
  vi.resetModules();
  const { lazyInputValidator } = await import('../../../src/server/policy/input-validator.js');
  validatorFor = (schema) => lazyInputValidator.getValidator(schema);
});

const schema = (extra: object = {}): JsonSchemaType =>
  ({
    type: 'object',
    properties: { bucket: { type: 'string', minLength: 1 }, email: { type: 'string', format: 'email' }, count: { type: 'integer' } },
    required: ['bucket'],
    additionalProperties: false,
    ...extra,
  }) as JsonSchemaType;

describe('argument validation', () => {
  it('valid input comes back as the data, with no message', () => {
    const input = { bucket: 'b', email: 'a@example.com', count: 2 };
    expect(validatorFor(schema())(input)).toEqual({ valid: true, data: input, errorMessage: undefined });
  });

  it('invalid input is refused with every error named, formats included', () => {
    const result = validatorFor(schema())({ email: 'not-an-email', count: 1.5, extra: true });
    expect(result.valid).toBe(false);
    expect(result.data).toBeUndefined();
    expect(result.errorMessage).toContain("must have required property 'bucket'");
    expect(result.errorMessage).toContain('must NOT have additional properties');
    expect(result.errorMessage).toContain('must match format "email"');
    expect(result.errorMessage).toContain('must be integer');
  });

  it('the 2020-12 dialect is used (prefixItems), and unknown keywords do not break compilation', () => {
    const tuple = validatorFor({ type: 'array', prefixItems: [{ type: 'string' }], 'x-note': 'ignored' } as unknown as JsonSchemaType);
    expect(tuple(['a']).valid).toBe(true);
    expect(tuple([1]).valid).toBe(false);
  });

  it('a schema is compiled once however many validators and calls use it', () => {
    const shared = schema({ $id: 'https://example.com/one-schema' });
    const first = validatorFor(shared);
    const second = validatorFor(shared);
    expect([first({ bucket: 'b' }).valid, first({}).valid, second({ bucket: 'b' }).valid, second({ bucket: '' }).valid]).toEqual([
      true,
      false,
      true,
      false,
    ]);
  });
});
