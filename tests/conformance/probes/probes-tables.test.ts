import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encode } from '@toon-format/toon';
import { describe, expect, test } from 'vitest';
import { PROFILE_NAMES } from '../../../src/contract/constants.js';
import { BUNDLED } from '../../../src/conformance/package-root.js';
import { loadFixtureSet } from '../../../src/conformance/diff/fixtures.js';
import { judgeFormat } from '../../../src/conformance/probes/format.js';
import { canarySecret } from '../../../src/conformance/probes/sandbox.js';
import { CanaryScanner } from '../../../src/conformance/probes/secrets.js';
import type { CallOutcome } from '../../../src/conformance/probes/sessions.js';
import { PROBE_TABLES_DIR, fillTemplate, loadProbeTables, referencedNames } from '../../../src/conformance/probes/table.js';
import { TargetSeeder } from '../../../src/conformance/probes/targets.js';
import { undeclaredArgument } from '../../../src/conformance/probes/arguments.js';

const tables = loadProbeTables(undefined, { validate: true });

describe('probe tables (rules/probes/) are complete data', () => {
  test.each(PROFILE_NAMES)('every tool the %s fixture gates has a gate probe; every read-only tool has a read probe', (profile) => {
    const fixture = loadFixtureSet(BUNDLED.fixturesDir, profile, ['modern']).byEra.modern!;
    const gated = new Set(tables.gates.map((spec) => spec.tool));
    expect(fixture.confirmTools.filter((tool) => !gated.has(tool))).toEqual([]);
    const read = new Set(tables.reads.filter((spec) => spec.expect !== 'error').map((spec) => spec.tool));
    const readOnly = fixture.tools
      .filter((tool) => (tool.annotations as { readOnlyHint?: boolean } | undefined)?.readOnlyHint === true)
      .map((tool) => tool.name);
    expect(readOnly.filter((tool) => !read.has(tool))).toEqual([]);
  });

  test.each(PROFILE_NAMES)('every %s tool that is neither gated nor read-only has a write-effect probe', (profile) => {
    const fixture = loadFixtureSet(BUNDLED.fixturesDir, profile, ['modern']).byEra.modern!;
    const covered = new Set([...tables.gates, ...tables.reads, ...tables.writes].map((spec) => spec.tool));
    expect(fixture.tools.map((tool) => tool.name).filter((tool) => !covered.has(tool))).toEqual([]);
    const writes = new Set(tables.writes.map((spec) => spec.tool));
    const readOnly = fixture.tools
      .filter((tool) => (tool.annotations as { readOnlyHint?: boolean } | undefined)?.readOnlyHint === true)
      .map((tool) => tool.name);
    expect(readOnly.filter((tool) => writes.has(tool))).toEqual([]);
  });

  test('the undeclared-argument candidates are declared by no tool of the full profile', () => {
    const fixture = loadFixtureSet(BUNDLED.fixturesDir, 'full', ['modern']).byEra.modern!;
    for (const tool of fixture.tools) expect(undeclaredArgument(tool, tables.undeclared), tool.name).toEqual(tables.undeclared[0]);
    const declaresForce = { name: 'x', inputSchema: { type: 'object', properties: { force: { type: 'boolean' } } } } as never;
    expect(undeclaredArgument(declaresForce, tables.undeclared)).toEqual(tables.undeclared[1]);
  });

  test('each conditional gate (docs/contract.md §6.2) has a harmless argument set, and only those', () => {
    // s3_put_bucket_lifecycle is conditional in name only: every valid rule set deletes or discards something.
    const conditional = [
      'b2_create_bucket',
      'b2_update_bucket',
      'b2_update_file_legal_hold',
      'b2_update_file_retention',
      's3_get_presigned_url',
    ];
    expect(
      tables.gates
        .filter((spec) => spec.harmless)
        .map((spec) => spec.tool)
        .sort(),
    ).toEqual(conditional);
  });

  test('the schema names exactly the target kinds the seeder knows', () => {
    const schema = JSON.parse(readFileSync(join(PROBE_TABLES_DIR, 'probe-table.schema.json'), 'utf8'));
    const seeder = new TargetSeeder({ admin: () => new Promise(() => {}) } as never);
    expect([...schema.$defs.target.properties.kind.enum].sort()).toEqual(seeder.kindNames.sort());
  });

  test('every placeholder names the probe target, a read context entry, the account or the time', () => {
    const known = new Set(['target', 'account', 'time', ...Object.keys(tables.readContext)]);
    for (const spec of [...tables.gates, ...tables.reads]) {
      for (const name of referencedNames(spec)) expect(known, `${spec.tool}: {{${name}…}}`).toContain(name);
    }
  });

  test('templates keep the type of a whole placeholder and interpolate partial ones', () => {
    expect(fillTemplate({ a: '{{t.n}}', b: 'x-{{t.s}}-{{t.n}}', c: ['{{t.s}}'] }, { t: { n: 5, s: 'y' } })).toEqual({
      a: 5,
      b: 'x-y-5',
      c: ['y'],
    });
    expect(() => fillTemplate({ a: '{{t.missing}}' }, { t: {} })).toThrow(/names nothing that was seeded/);
  });
});

describe('canary scanner', () => {
  const secret = canarySecret();
  const scanner = new CanaryScanner([{ name: 'application key', value: secret }]);

  test('canary secrets are B2-shaped, high-entropy and differ when URL-encoded', () => {
    expect(secret).toMatch(/^K005[A-Za-z0-9+/]{27}$/);
    expect(encodeURIComponent(secret)).not.toBe(secret);
    expect(canarySecret()).not.toBe(secret);
  });

  test('finds the secret raw, URL-encoded, and base64 at every byte alignment inside a longer blob', () => {
    expect(scanner.scan(`key=${secret}.`)).toEqual([{ canary: 'application key', encoding: 'raw' }]);
    expect(scanner.scan(`?k=${encodeURIComponent(secret)}`).map((leak) => leak.encoding)).toEqual(['percent-encoded']);
    for (const prefix of ['', 'a', 'ab', 'abc:']) {
      const blob = Buffer.from(`${prefix}${secret}:tail`).toString('base64');
      expect(
        scanner.scan(`Basic ${blob}`).map((leak) => leak.encoding),
        prefix,
      ).toEqual(['base64']); // base64url only when it differs
      const urlSafe = scanner.scan(Buffer.from(`${prefix}${secret}`).toString('base64url')).map((leak) => leak.encoding);
      expect(urlSafe.length === 1 && ['base64', 'base64url'].includes(urlSafe[0]!), `${prefix}: ${urlSafe}`).toBe(true); // equal to base64 when no + or / is involved
    }
    expect(scanner.scan('nothing to see')).toEqual([]);
  });

  test('finds it hex-encoded in either case, reversed, and in a Basic authorization header', () => {
    const keyed = new CanaryScanner([{ name: 'application key', value: secret, keyId: '005keyid' }]);
    const hex = Buffer.from(secret).toString('hex');
    expect(keyed.scan(`x${hex}x`).map((leak) => leak.encoding)).toEqual(['hex']);
    expect(keyed.scan(hex.toUpperCase()).map((leak) => leak.encoding)).toEqual(['hex']);
    expect(keyed.scan([...secret].reverse().join('')).map((leak) => leak.encoding)).toEqual(['reversed']);
    expect(keyed.scan(`Authorization: Basic ${Buffer.from(`005keyid:${secret}`).toString('base64')}`).map((leak) => leak.encoding)).toEqual(
      ['base64'],
    );
  });

  test('canaries added later are found and masked too; a known value is not added twice', () => {
    const growing = new CanaryScanner([{ name: 'application key', value: secret }]);
    growing.add([
      { name: 'B2 token', value: '4_005key_token_1' },
      { name: 'B2 token', value: '4_005key_token_1' },
    ]);
    expect(growing.canaryCount).toBe(2);
    expect(growing.scan('token 4_005key_token_1')).toEqual([{ canary: 'B2 token', encoding: 'raw' }]);
    expect(growing.mask('token 4_005key_token_1')).toBe('token ***');
  });

  test('mask replaces every form', () => {
    const text = `${secret} ${encodeURIComponent(secret)} ${Buffer.from(secret).toString('base64')} ${Buffer.from(secret).toString('hex')} ${[...secret].reverse().join('')}`;
    expect(scanner.scan(scanner.mask(text))).toEqual([]);
  });
});

describe('result-format judgement', () => {
  const value = {
    objects: [
      { key: 'a,b', size: 1 },
      { key: 'c', size: 2 },
    ],
    truncated: false,
  };
  /** A call outcome; `structured: null` leaves structuredContent out. */
  const outcome = (text: string, structured: unknown = value, isError = false): CallOutcome => ({
    result: {
      content: [{ type: 'text', text }],
      ...(structured === null ? {} : { structuredContent: structured }),
      ...(isError ? { isError: true } : {}),
    },
    elicitations: [],
  });

  test('toon: the official decoder must read the text back to structuredContent', () => {
    expect(judgeFormat(outcome(encode(value)), 'toon', 'result')).toMatchObject({ aspect: 'format.toon', passed: true });
    const unquoted = encode(value).replace('"a,b"', 'a,b');
    expect(judgeFormat(outcome(unquoted), 'toon', 'result')).toMatchObject({
      aspect: 'format.toon',
      passed: false,
      detail: expect.stringMatching(/decoder rejects/),
    });
    const changed = encode({ ...value, truncated: true });
    expect(judgeFormat(outcome(changed), 'toon', 'result')).toMatchObject({
      passed: false,
      detail: expect.stringMatching(/first at truncated/),
    });
    expect(judgeFormat(outcome(JSON.stringify(value)), 'toon', 'result')).toMatchObject({ passed: true }); // the documented JSON fallback
  });

  test('json: compact JSON equal to structuredContent, nothing else', () => {
    expect(judgeFormat(outcome(JSON.stringify(value)), 'json', 'result')).toMatchObject({ aspect: 'format.json', passed: true });
    expect(judgeFormat(outcome(JSON.stringify(value, null, 2)), 'json', 'result')).toMatchObject({
      passed: false,
      detail: expect.stringMatching(/not compact/),
    });
    expect(judgeFormat(outcome(encode(value)), 'json', 'result')).toMatchObject({ passed: false, detail: 'the text block is not JSON' });
    expect(judgeFormat(outcome(JSON.stringify({ ...value, objects: [] })), 'json', 'result')).toMatchObject({
      passed: false,
      detail: expect.stringMatching(/at objects \(length 2 vs 0\)/),
    });
  });

  test('auto (and a server of unknown mode) may answer either shape per result', () => {
    for (const mode of ['auto', null] as const) {
      expect(judgeFormat(outcome(JSON.stringify(value)), mode, 'result').passed).toBe(true);
      expect(judgeFormat(outcome(encode(value)), mode, 'result').passed).toBe(true);
      expect(judgeFormat(outcome(encode(value).replace('"a,b"', 'a,b')), mode, 'result')).toMatchObject({
        aspect: 'format.toon',
        passed: false,
      });
      expect(judgeFormat(outcome(JSON.stringify(value, null, 1)), mode, 'result')).toMatchObject({ aspect: 'format.json', passed: false });
    }
  });

  test('errors stay plain text; a plain-text success has nothing to compare', () => {
    expect(judgeFormat(outcome('B2 Error [not_found] (HTTP 404): no such key', null, true), 'json', 'error')).toMatchObject({
      aspect: 'format.error',
      passed: true,
    });
    expect(judgeFormat(outcome('{"error":"x"}', null, true), 'toon', 'error')).toMatchObject({ aspect: 'format.error', passed: false });
    expect(judgeFormat(outcome('B2 Error [x] (HTTP 500): y', { error: 'x' }, true), 'toon', 'error')).toMatchObject({
      aspect: 'format.error',
      passed: false,
    });
    expect(judgeFormat(outcome('Bucket exists.', null), 'toon', 'result')).toMatchObject({ aspect: 'format.plain', passed: true });
    expect(judgeFormat(outcome('found it', value), 'json', 'error')).toMatchObject({ aspect: 'run.incomplete', passed: false });
  });
});
