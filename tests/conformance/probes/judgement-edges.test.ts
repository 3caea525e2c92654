import { describe, expect, it } from 'vitest';
import { argumentSteps, judgeUndeclared } from '../../../src/conformance/probes/arguments.js';
import { gateSteps } from '../../../src/conformance/probes/gate.js';
import { loadProbeTables } from '../../../src/conformance/probes/table.js';
import type { TargetSeeder } from '../../../src/conformance/probes/targets.js';
import { judgeWriteEffect, writeSteps } from '../../../src/conformance/probes/writes.js';
import { CHECK_KINDS } from '../../../src/conformance/rules/kinds/index.js';
import { FakeSandbox, fakeSession, probeRun, text } from '../../support/probe-fakes.js';
import { contextOf, publishedContract } from '../../support/rule-context.js';

/** Small edges of the judgements that the table tests do not reach. */
const empty = { outcome: { elicitations: [] }, mutations: [], changes: [] } as never;

describe('probe judgements on an answer without a result', () => {
  it('an undeclared argument answered with nothing was not refused', () => {
    expect(judgeUndeclared('b2_x', 'force: true', empty)).toEqual({
      passed: false,
      detail: 'b2_x accepted the undeclared argument force: true instead of refusing the call',
    });
  });

  it('a write answered with nothing is judged by its effect: first the operations, then the store', () => {
    const logged = {
      mutations: [{ operation: 'upload_file', bucketName: 'pics', fileName: 'a.txt' }, { operation: 'hide_file' }],
      changes: [],
    };
    expect(judgeWriteEffect('b2_w', logged, empty, [])).toEqual({
      passed: false,
      detail: 'b2_w must log exactly upload_file of pics/a.txt, hide_file; it logged nothing',
    });
    const stored = { mutations: [], changes: [{ change: 'version added', bucket: 'pics', key: 'a.txt', size: 3 }] };
    expect(judgeWriteEffect('b2_w', stored, empty, [])).toEqual({
      passed: false,
      detail: 'b2_w must change exactly what it declares; the store shows missing version added pics/a.txt (size 3)',
    });
    expect(judgeWriteEffect('b2_w', { mutations: [], changes: [] }, empty, [])).toMatchObject({ passed: true });
  });
});

describe('each probe call is counted under its own kind', () => {
  it('argument and write steps', async () => {
    const sandbox = new FakeSandbox();
    const run = probeRun(sandbox);
    const session = fakeSession(sandbox, () => ({ outcome: text('ok') }));
    await argumentSteps(run, session, [{ tool: { name: 'b2_a' } as never, prepare: async () => ({}) }], [{ force: true }])[0]!.run();
    const seeder = { seed: async () => ({}) } as unknown as TargetSeeder;
    await writeSteps(
      run,
      seeder,
      session,
      [{ tool: 'b2_w', target: { kind: 'none' }, arguments: {}, effect: { mutations: [], changes: [] } }],
      {},
    )[0]!.run();
    expect(run.counts()).toMatchObject({ argument: 1, write: 1, gate: 0, read: 0 });
  });

  it('the same leak in two tools is two findings', async () => {
    const sandbox = new FakeSandbox([{ name: 'application key', value: 'K005secretsecretsecret+/x' }]);
    const run = probeRun(sandbox);
    const session = fakeSession(sandbox, () => ({ outcome: text('K005secretsecretsecret+/x') }));
    await run.call(session, 'read', 'b2_one', {});
    await run.call(session, 'read', 'b2_two', {});
    // The messages are searched once, at the end of the run, as the probe sessions record them.
    const answer = (id: number) => ({
      jsonrpc: '2.0' as const,
      id,
      result: { content: [{ type: 'text', text: 'K005secretsecretsecret+/x' }] },
    });
    run.searchMessages([
      { tool: 'b2_one', message: answer(1) },
      { tool: 'b2_two', message: answer(2) },
      { tool: 'b2_two', message: answer(3) },
    ]);
    expect(run.observations.filter(({ aspect }) => aspect === 'secret.leak').map(({ tool }) => tool)).toEqual(['b2_one', 'b2_two']);
  });
});

describe('probe tables as loaded', () => {
  it('the bundled tables load with every part', () => {
    const tables = loadProbeTables();
    expect(tables.gates.length).toBeGreaterThan(0);
    expect(tables.reads.length).toBeGreaterThan(0);
    expect(tables.writes.length).toBeGreaterThan(0);
    expect(tables.undeclared.length).toBeGreaterThan(0);
    expect(typeof tables.readContext).toBe('object');
  });
});

describe('kind edges', () => {
  it('diff-change: a text diff only when both sides are strings', () => {
    const run = (before: unknown, after: unknown) =>
      CHECK_KINDS['diff-change']!.run(
        { change: 'meta-changed' },
        contextOf([], { changes: [{ scope: 'modern', change: { kind: 'meta-changed', tool: 't', path: 'p', before, after } }] } as never),
      )[0]!;
    expect(run(undefined, 'x').text).toBeUndefined();
    expect(run('x', 1).text).toBeUndefined();
    expect(run('x', 'y').text).toEqual({ before: 'x', after: 'y' });
  });

  it('counts-equal-contract: groups in sorted order', () => {
    const contract = publishedContract();
    const names = contract.profiles.full.names!.filter((name) => !name.startsWith('s3_'));
    const found = CHECK_KINDS['counts-equal-contract']!.run(
      { groupBy: 'prefix' },
      contextOf([], { contract }, [{ connection: 'modern', hash: 'h', names: [...names, 'bz_x'], listed: [] }] as never),
    );
    expect(found.map(({ key }) => key)).toEqual(['bz', 's3']);
  });

  it('policy-prefix: the allowed prefixes are named in sorted order whatever the policy lists first', () => {
    const naming = { policy: { prefixes: { a: 's3_', b: 'b2_' } } } as never;
    expect(CHECK_KINDS['policy-prefix']!.run({}, contextOf([{ name: 'x_y' }], { naming }))[0]!.data).toEqual({ allowed: 'b2_ or s3_' });
  });

  it('cache-hint-approved without a contract judges nothing', () => {
    expect(
      CHECK_KINDS['cache-hint-approved']!.run(
        { source: 'tools/list' },
        contextOf([], {}, [{ connection: 'modern', hash: 'h', listed: [], observation: {} }] as never),
      ),
    ).toEqual([]);
  });

  it('property-name-pattern finds properties inside alternatives (lists of subschemas)', () => {
    const tool = { name: 'b2_x_y', inputSchema: { type: 'object', allOf: [{ properties: { password: {} } }] } };
    expect(
      CHECK_KINDS['property-name-pattern']!.run(
        { patterns: ['password'], scope: 'top-level', parts: ['inputSchema'] },
        contextOf([tool]),
      ).map(({ path }) => path),
    ).toEqual(['inputSchema.allOf[0].properties.password']);
  });
});

describe('more edges', () => {
  it('eras-equal names every tool only one side has, and every tool defined differently', () => {
    const tool = (name: string, description = name) => ({ name, description });
    const look = (connection: string, hash: string, tools: { name: string }[]) => ({
      connection,
      hash,
      tools,
      names: tools.map(({ name }) => name),
      listed: tools,
      prompts: null,
      observation: {},
    });
    const found = CHECK_KINDS['eras-equal']!.run(
      { a: 'modern', b: 'legacy', of: 'tools' },
      contextOf([], {}, [
        look('modern', 'm', [tool('b2_a', 'x'), tool('b2_b', 'y'), tool('b2_m'), tool('b2_n')]),
        look('legacy', 'l', [tool('b2_a'), tool('b2_b')]),
      ] as never),
    );
    expect(found[0]!.data!.detail).toBe('only in modern: b2_m, b2_n; defined differently: b2_a, b2_b');
  });

  it('a logged change uses the gate target up even when the state digest shows none', async () => {
    const sandbox = new FakeSandbox();
    let seeded = 0;
    const seeder = { seed: async () => ({ bucketName: `b${++seeded}` }) } as unknown as TargetSeeder;
    const run = probeRun(sandbox);
    const plain = fakeSession(sandbox, () => ({ outcome: text('done'), effect: { log: ['update_bucket'] } }));
    const steps = gateSteps(
      { run, seeder, plain, values: {} },
      { tool: 'b2_update_bucket', effect: 'mutation', target: { kind: 'bucket' }, trigger: { bucketName: '{{target.bucketName}}' } },
    );
    for (const step of steps) await step.run();
    expect(plain.calls.map(({ args }) => args.bucketName)).toEqual(['b1', 'b2']);
  });
});
