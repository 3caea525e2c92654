import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { judgeFormat } from '../../../src/conformance/probes/format.js';
import { gateSteps, judgeRefusal } from '../../../src/conformance/probes/gate.js';
import { firstDifference, resultText } from '../../../src/conformance/probes/results.js';
import { CanaryScanner } from '../../../src/conformance/probes/secrets.js';
import { PROBE_TABLES_DIR, fillTemplate, loadProbeTables } from '../../../src/conformance/probes/table.js';
import type { TargetSeeder } from '../../../src/conformance/probes/targets.js';
import { CHECK_KINDS } from '../../../src/conformance/rules/kinds/index.js';
import { FakeSandbox, REFUSAL, fakeSession, probeRun } from '../../support/probe-fakes.js';
import { contextOf } from '../../support/rule-context.js';

/** Edges of the probe judgements: answers with parts missing, encodings at their length limits, odd inputs. */
const outcome = (value: Record<string, unknown>) => ({ elicitations: [], ...value }) as never;
const b64 = (value: string) => Buffer.from(value).toString('base64');

describe('answers with parts missing', () => {
  it('an answer with neither a result nor an error is no refusal', () => {
    expect(judgeRefusal({ tool: 't', effect: 'mutation' }, { outcome: outcome({}), mutations: [], changes: [] })).toEqual({
      passed: false,
      detail: 't returned a result without isError although it did nothing; a refusal must be an isError result',
    });
  });

  it('a non-text block with a text field is shown as JSON', () => {
    expect(resultText(outcome({ result: { content: [{ type: 'resource', text: 'x' }] } }))).toBe('{"type":"resource","text":"x"}');
  });

  it.each([
    [null, { a: 1 }, '(root)'],
    [{ a: 1 }, null, '(root)'],
    ['ab', { 0: 'a' }, '(root)'],
    [{ 0: 'a' }, 'ab', '(root)'],
    [{ a: undefined }, {}, 'a'],
    [{}, { a: undefined }, 'a'],
  ])('firstDifference(%j, %j) = %s', (expected, actual, path) => {
    expect(firstDifference(expected, actual)).toBe(path);
  });
});

describe('gate steps: the parts of an answer that decide', () => {
  const spec = {
    tool: 'b2_delete_bucket',
    effect: 'mutation' as const,
    target: { kind: 'bucket' },
    trigger: { bucketName: '{{target.bucketName}}' },
    harmless: { why: 'w', target: { kind: 'bucket' }, arguments: { bucketName: '{{target.bucketName}}', info: 1 } },
  };

  function gate(server: Parameters<typeof fakeSession>[1]) {
    const sandbox = new FakeSandbox();
    let seeded = 0;
    const seeder = { seed: async () => ({ bucketName: `b${++seeded}` }) } as unknown as TargetSeeder;
    const run = probeRun(sandbox);
    const plain = fakeSession(sandbox, server);
    return { run, plain, steps: gateSteps({ run, seeder, plain, values: {} }, spec) };
  }

  it('answers with no result: a failed confirmed call, and a harmless call that was not refused', async () => {
    const { run, steps } = gate(() => ({ outcome: {} }));
    for (const step of steps) await step.run();
    expect(run.observations.map(({ aspect, passed }) => [aspect, passed])).toEqual([
      ['gate.unconfirmed', false],
      ['gate.confirmed', false],
      ['gate.harmless', true],
    ]);
    expect(run.observations[1]!.detail).toBe(
      'an approved b2_delete_bucket must change the sandbox exactly once; it made no change in the sandbox',
    );
  });

  it('a state change without a log entry uses the target up too, and every call is counted as a gate call', async () => {
    const { run, plain, steps } = gate(({ args }) => ({
      outcome: REFUSAL,
      effect: { state: { [`bucket:${String(args.bucketName)}`]: 'changed' } },
    }));
    await steps[0]!.run();
    await steps[1]!.run();
    expect(plain.calls.map(({ args }) => args.bucketName)).toEqual(['b1', 'b2']);
    expect(run.counts()).toMatchObject({ gate: 2, read: 0, write: 0, argument: 0 });
  });
});

describe('format edges', () => {
  const structured = (value: unknown, body: string) =>
    outcome({ result: { content: [{ type: 'text', text: body }], structuredContent: value } });
  const value = { buckets: [{ name: 'a', size: 1 }] };

  it('toon mode judges a JSON-looking text that differs as TOON', () => {
    expect(judgeFormat(structured(value, '{"buckets":[]}'), 'toon', 'result')).toMatchObject({ aspect: 'format.toon', passed: false });
  });

  it('auto mode: a JSON text with leading space is not taken for JSON', () => {
    expect(judgeFormat(structured(value, ' {"buckets":[]}'), 'auto', 'result')).toMatchObject({ aspect: 'format.toon' });
  });

  it('the decoder error is quoted by its first line, in words', () => {
    const { detail } = judgeFormat(structured(value, 'buckets[3]{name,size}:\n  a,1'), 'toon', 'result');
    const said = detail.slice('the official TOON decoder rejects the text block: '.length);
    expect(said.length).toBeGreaterThan(5);
    expect(said).not.toMatch(/\n|^undefined$/);
  });
});

describe('canary forms at their limits', () => {
  it('a 14-character secret is found base64-encoded at every alignment (a core of exactly 16 characters)', () => {
    const secret = 'K005abcdefghij';
    const scanner = new CanaryScanner([{ name: 's', value: secret }]);
    for (const prefix of ['', 'a', 'ab'])
      expect(
        scanner.scan(b64(`${prefix}${secret}`)).map((leak) => leak.encoding),
        prefix,
      ).toContain('base64');
  });

  it('a 9-character secret has no base64 core at any alignment', () => {
    const scanner = new CanaryScanner([{ name: 's', value: 'K005abcde' }]);
    for (const prefix of ['', 'a', 'ab'])
      expect(scanner.scan(b64(`${prefix}K005abcde`)).filter((leak) => leak.encoding.startsWith('base64'))).toEqual([]);
  });

  it('a secret whose hex has no letters is found as hex only, not also as HEX', () => {
    const scanner = new CanaryScanner([{ name: 'digits', value: '12345678901234567' }]);
    expect(scanner.scan(Buffer.from('12345678901234567').toString('hex')).map((leak) => leak.encoding)).toEqual(['hex']);
  });

  it('a Basic header with another key id or secret is not this canary', () => {
    const scanner = new CanaryScanner([{ name: 'k', value: 'K005abcdefghijklmnop', keyId: '005id' }]);
    expect(scanner.scan(`Authorization: Basic ${b64('005id:other')}; Basic ${b64('006id:K0')}`)).toEqual([]);
  });

  it('mask replaces the longer of two overlapping canaries whole', () => {
    const short = 'K005abcdefghijklmnopqrst';
    const scanner = new CanaryScanner([
      { name: 'short', value: short },
      { name: 'long', value: `${short}ZZZZZZ` },
    ]);
    expect(scanner.mask(`x ${short}ZZZZZZ y`)).toBe('x *** y');
  });
});

describe('probe tables: errors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'probe-tables-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a table that breaks its schema is a config error naming the table and the place', () => {
    for (const name of ['probe-table.schema.json', 'reads.json', 'writes.json'])
      writeFileSync(join(dir, name), readFileSync(join(PROBE_TABLES_DIR, name)));
    const gates = JSON.parse(readFileSync(join(PROBE_TABLES_DIR, 'gates.json'), 'utf8')) as { gates: Record<string, unknown>[] };
    writeFileSync(join(dir, 'gates.json'), JSON.stringify({ ...gates, gates: [{ ...gates.gates[0], effect: 'explode' }] }));
    expect(() => loadProbeTables(dir, { validate: true })).toThrow(
      expect.objectContaining({ code: 'config', message: expect.stringMatching(/^probe table gates\.json: \/gates\/0\S* \S/) }),
    );
    writeFileSync(join(dir, 'gates.json'), JSON.stringify({ gates: [] }));
    expect(() => loadProbeTables(dir, { validate: true })).toThrow(
      expect.objectContaining({ code: 'config', message: "probe table gates.json: / must have required property 'description'" }),
    );
    expect(() => loadProbeTables(dir)).not.toThrow();
    expect(() => loadProbeTables('/nonexistent-probe-tables')).toThrow(expect.objectContaining({ code: 'config' }));
  });

  it('a placeholder through a null value names nothing seeded', () => {
    expect(() => fillTemplate('{{a.b}}', { a: null })).toThrow('probe table placeholder {{a.b}} names nothing that was seeded');
  });
});

describe('confusable names: what passes for ASCII', () => {
  const confusable = (name: string) =>
    CHECK_KINDS['visible-name-confusable']!.run(
      { fields: ['name'] },
      contextOf([], {}, [
        { connection: 'modern', hash: 'h', listed: [{ name }], prompts: null, observation: { instructions: null } },
      ] as never),
    );

  it('a ligature passes for two letters; a fraction with a non-ASCII slash passes for nothing', () => {
    expect(confusable('b2_\uFB01le')).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ lookAlikes: 'U+FB01 looks like "fi"' }) }),
    ]);
    expect(confusable('b2_\u00BD')).toEqual([]);
  });

  it('ASCII digits and letters a confusables table maps to others are not reported', () => {
    expect(confusable('b2_l0g_1ist_rn')).toEqual([]);
  });

  it('two different look-alikes are both named', () => {
    expect(confusable('b2_\u0430\u0455')).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ lookAlikes: 'U+0430 looks like "a", U+0455 looks like "s"' }) }),
    ]);
  });
});
