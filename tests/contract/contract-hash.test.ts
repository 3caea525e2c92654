import { describe, expect, it } from 'vitest';
import { compareCodePoints } from '../../src/contract/code-point-order.js';
import { compareCodeUnits, profileHash, snapshotTools, stable } from '../../src/contract/normalize.js';

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

describe('profile hash', () => {
  it('reproduces the worked test vector of the contract', () => {
    const snapshot = snapshotTools([
      {
        name: 's3_demo_b',
        description: 'Demo B é',
        inputSchema: {
          type: 'object',
          properties: { zeta: { type: 'string' }, alpha: { type: 'integer', minimum: 1, maximum: 10 } },
          required: ['zeta', 'alpha'],
          $schema: DIALECT,
        },
        annotations: { readOnlyHint: true, openWorldHint: true, destructiveHint: false, idempotentHint: true },
      },
      {
        name: 'b2_demo_a',
        description: '',
        inputSchema: { $schema: DIALECT, type: 'object', properties: {} },
        annotations: { destructiveHint: true, readOnlyHint: false, idempotentHint: false, openWorldHint: true },
      },
    ]);
    const hashed =
      '{"names":["b2_demo_a","s3_demo_b"],"tools":[{"name":"b2_demo_a","descriptionSha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{},"type":"object"},"annotations":{"destructiveHint":true,"idempotentHint":false,"openWorldHint":true,"readOnlyHint":false}},{"name":"s3_demo_b","descriptionSha256":"a51e835911c601a2aec5d50b26b61d35bb670a70f0aef987fde935120fecf33f","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"alpha":{"maximum":10,"minimum":1,"type":"integer"},"zeta":{"type":"string"}},"required":["alpha","zeta"],"type":"object"},"annotations":{"destructiveHint":false,"idempotentHint":true,"openWorldHint":true,"readOnlyHint":true}}]}';
    expect(JSON.stringify({ names: snapshot.names, tools: snapshot.tools })).toBe(hashed);
    expect(snapshot.hash).toBe('4280aedd92066a4bbaccb7c82a81a3865bcba6b48057ea2ad5090500cec3a3da');
    expect(profileHash(snapshot.names, snapshot.tools)).toBe(snapshot.hash);
  });

  it('sorts only arrays under a required key and keeps enum order', () => {
    const value = stable({ required: ['b', 'a'], enum: ['z', 'a'], items: { required: ['y', 'x'] } });
    expect(value).toEqual({ enum: ['z', 'a'], items: { required: ['x', 'y'] }, required: ['a', 'b'] });
  });

  it('uses UTF-16 code-unit order, which differs from locale order for mixed case and underscores', () => {
    const keys = ['b', 'B', '_x', 'a', 'A'];
    expect([...keys].sort(compareCodeUnits)).toEqual(['A', 'B', '_x', 'a', 'b']);
    // The guard: if these ever agree, normalization would silently depend on the locale.
    expect([...keys].sort((x, y) => x.localeCompare(y))).not.toEqual([...keys].sort(compareCodeUnits));
  });

  it('keeps the order every fixture was hashed in: an astral character before U+FFxx, unlike code-point order', () => {
    const astral = '\u{1F680}';
    const fullwidth = '\uFF21';
    expect([fullwidth, astral].sort(compareCodeUnits)).toEqual([astral, fullwidth]);
    expect([fullwidth, astral].sort(compareCodePoints)).toEqual([fullwidth, astral]);
    expect(Object.keys(stable({ [fullwidth]: 1, [astral]: 2 }) as object)).toEqual([astral, fullwidth]);
    const snapshot = snapshotTools([
      {
        name: `b2_${fullwidth}`,
        description: '',
        inputSchema: {
          $schema: DIALECT,
          type: 'object',
          properties: { '\uFF5E': { type: 'string' }, [astral]: { type: 'string' } },
          required: ['\uFF5E', astral],
        },
      },
      { name: `b2_${astral}`, description: '', inputSchema: { $schema: DIALECT, type: 'object', properties: {} } },
    ]);
    expect(snapshot.names).toEqual([`b2_${astral}`, `b2_${fullwidth}`]);
    expect(Object.keys((snapshot.tools[1]!.inputSchema as { properties: object }).properties)).toEqual([astral, '\uFF5E']);
    expect(snapshot.hash).toBe('4d622487efdc05992c88683c1c1228ef6b861326d042faa6ff3c1aa31efa3099');
  });
});
