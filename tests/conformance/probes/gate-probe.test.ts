import { describe, expect, it } from 'vitest';
import { gateSteps, judgeRefusal, type GateRun } from '../../../src/conformance/probes/gate.js';
import type { GateProbeSpec } from '../../../src/conformance/probes/table.js';
import type { TargetSeeder } from '../../../src/conformance/probes/targets.js';
import { FakeSandbox, REFUSAL, fakeSession, probeRun, text, type FakeServer } from '../../support/probe-fakes.js';

/**
 * The gate probe driven in-process: the real steps and judgements against a fake server and an
 * in-memory sandbox. The oracle is the refusal rule of docs/contract.md §6 (no consent → an
 * isError refusal and no change; consent → exactly one change), not the probe's code.
 */
const REFUSED_DETAIL =
  'refused with error destructive_confirmation_required (HTTP 409): "B2 Error [destructive_confirmation_required] (HTTP 409): Confirmation required."; nothing changed';
const SIGNED = text('https://s3.example/b/k?X-Amz-Signature=abc');

const deleteBucket: GateProbeSpec = {
  tool: 'b2_delete_bucket',
  effect: 'mutation',
  target: { kind: 'bucket' },
  trigger: { bucketName: '{{target.bucketName}}', account: '{{accountId}}' },
};

/** A server that gates correctly: it acts on confirm: true (unless the policy blocks) or an accepted elicitation. */
function gatedServer(options: { act?: (bucket: string) => ReturnType<FakeServer>; askOnElicit?: boolean } = {}): FakeServer {
  const act =
    options.act ?? ((bucket) => ({ outcome: text('deleted'), effect: { log: ['delete_bucket'], state: { [`bucket:${bucket}`]: null } } }));
  return ({ args, answer, session }) => {
    const bucket = String(args.bucketName);
    if (session === 'block') return { outcome: REFUSAL };
    if (args.confirm === true) return act(bucket);
    if (session === 'elicit' && options.askOnElicit !== false) {
      const elicitations = ['Delete the bucket?'];
      return answer === 'accept'
        ? { ...act(bucket), outcome: { ...act(bucket).outcome, elicitations } }
        : { outcome: { ...REFUSAL, elicitations } };
    }
    return { outcome: REFUSAL };
  };
}

function harness(server: FakeServer, sessions: { elicit?: boolean; block?: boolean } = { elicit: true, block: true }) {
  const sandbox = new FakeSandbox();
  let seeded = 0;
  const seeds: unknown[] = [];
  const seeder = {
    seed: async (spec: unknown) => {
      seeds.push(spec);
      seeded++;
      sandbox.apply({ state: { [`bucket:b${seeded}`]: 'p' } });
      return { bucketName: `b${seeded}` };
    },
  } as unknown as TargetSeeder;
  const run = probeRun(sandbox);
  const plain = fakeSession(sandbox, server, { name: 'plain' });
  const elicit = sessions.elicit ? fakeSession(sandbox, server, { name: 'elicit', elicitation: true }) : undefined;
  const block = sessions.block ? fakeSession(sandbox, server, { name: 'block', policy: 'block' }) : undefined;
  const gateRun: GateRun = {
    run,
    seeder,
    plain,
    ...(elicit ? { elicit } : {}),
    ...(block ? { block } : {}),
    values: { accountId: 'acct-1' },
  };
  const probe = async (spec: GateProbeSpec) => {
    for (const step of gateSteps(gateRun, spec)) await step.run();
    return run.observations.map(({ aspect, variant, passed, detail }) => ({ aspect, variant, passed, detail }));
  };
  return { probe, run, plain, elicit, block, seeds, sandbox, gateRun };
}

describe('gate probe steps on a server that gates correctly', () => {
  it('every refusal passes and both consents change the sandbox once', async () => {
    const { probe, plain, elicit, block } = harness(gatedServer());
    expect(await probe(deleteBucket)).toEqual([
      { aspect: 'gate.unconfirmed', variant: 'no confirm', passed: true, detail: REFUSED_DETAIL },
      { aspect: 'gate.declined', variant: 'elicitation declined', passed: true, detail: REFUSED_DETAIL },
      { aspect: 'gate.declined', variant: 'elicitation cancelled', passed: true, detail: REFUSED_DETAIL },
      { aspect: 'gate.block', variant: 'B2_DESTRUCTIVE_POLICY=block with confirm: true', passed: true, detail: REFUSED_DETAIL },
      { aspect: 'gate.confirmed', variant: 'confirm: true', passed: true, detail: 'changed the sandbox once (delete_bucket)' },
      { aspect: 'gate.confirmed', variant: 'elicitation accepted', passed: true, detail: 'changed the sandbox once (delete_bucket)' },
    ]);
    // The templates are filled from the seeded target and the run's values; confirm only where consent is given.
    expect(plain.calls.map(({ args, answer }) => [args, answer])).toEqual([
      [{ bucketName: 'b1', account: 'acct-1' }, 'decline'],
      [{ bucketName: 'b1', account: 'acct-1', confirm: true }, 'decline'],
    ]);
    expect(elicit!.calls.map(({ args, answer }) => [args.bucketName, args.confirm, answer])).toEqual([
      ['b1', undefined, 'decline'],
      ['b1', undefined, 'cancel'],
      ['b2', undefined, 'accept'],
    ]);
    expect(block!.calls.map(({ args }) => args.confirm)).toEqual([true]);
  });

  it('without elicitation or block sessions, only the plain steps run', async () => {
    const { probe } = harness(gatedServer(), {});
    expect((await probe(deleteBucket)).map(({ aspect, variant }) => `${aspect} ${variant}`)).toEqual([
      'gate.unconfirmed no confirm',
      'gate.confirmed confirm: true',
    ]);
  });

  it('the step labels name each step', () => {
    const { gateRun } = harness(gatedServer());
    const spec = { ...deleteBucket, harmless: { why: 'w', target: { kind: 'bucket' }, arguments: {} } };
    expect(gateSteps(gateRun, spec).map((step) => step.label)).toEqual([
      'no confirm',
      'declined',
      'cancelled',
      'policy block',
      'confirm: true',
      'accepted',
      'harmless',
    ]);
  });
});

describe('gate probe steps on broken servers', () => {
  it('a server that acts without confirm fails each refusal, and each later step gets a fresh target', async () => {
    const always: FakeServer = ({ args, session }) => ({
      outcome: text('deleted'),
      effect: session === 'block' ? {} : { log: ['delete_bucket'], state: { [`bucket:${String(args.bucketName)}`]: null } },
    });
    const { probe, plain, elicit } = harness(always);
    const found = await probe(deleteBucket);
    expect(found[0]).toEqual({
      aspect: 'gate.unconfirmed',
      variant: 'no confirm',
      passed: false,
      detail: 'b2_delete_bucket ran without consent: 1 change in the sandbox (delete_bucket)',
    });
    expect(found[1]).toMatchObject({ aspect: 'gate.declined', passed: false });
    expect(found[3]).toEqual({
      aspect: 'gate.block',
      variant: 'B2_DESTRUCTIVE_POLICY=block with confirm: true',
      passed: false,
      detail: 'b2_delete_bucket returned a result without isError although it did nothing; a refusal must be an isError result',
    });
    expect([...plain.calls, ...elicit!.calls].map(({ args }) => args.bucketName)).toEqual(['b1', 'b4', 'b2', 'b3', 'b5']);
  });

  it('a refusal by elicitation that never asked passes, marked not asked; an accept never asked must still be refused', async () => {
    const { probe } = harness(gatedServer({ askOnElicit: false }));
    const found = await probe(deleteBucket);
    expect(found.filter(({ aspect }) => aspect === 'gate.declined').map(({ detail }) => detail)).toEqual([
      `${REFUSED_DETAIL} (not asked)`,
      `${REFUSED_DETAIL} (not asked)`,
    ]);
    expect(found.at(-1)).toEqual({
      aspect: 'gate.unconfirmed',
      variant: 'elicitation-capable client, not asked',
      passed: true,
      detail: REFUSED_DETAIL,
    });
  });

  it('an accept never asked that acts anyway fails as an unconfirmed call', async () => {
    const server: FakeServer = (call) =>
      call.session === 'elicit' && call.answer === 'accept'
        ? { outcome: text('deleted'), effect: { log: ['delete_bucket'] } }
        : gatedServer({ askOnElicit: false })(call);
    const { probe } = harness(server);
    expect((await probe(deleteBucket)).at(-1)).toEqual({
      aspect: 'gate.unconfirmed',
      variant: 'elicitation-capable client, not asked',
      passed: false,
      detail: 'b2_delete_bucket ran without consent: 1 change in the sandbox (delete_bucket)',
    });
  });

  it('a declined elicitation that acts anyway fails, not marked', async () => {
    const server: FakeServer = (call) =>
      call.session === 'elicit' && call.answer === 'decline'
        ? { outcome: { ...REFUSAL, elicitations: ['sure?'] }, effect: { log: ['delete_bucket'] } }
        : gatedServer()(call);
    const { probe } = harness(server);
    expect((await probe(deleteBucket))[1]).toEqual({
      aspect: 'gate.declined',
      variant: 'elicitation declined',
      passed: false,
      detail: 'b2_delete_bucket ran without consent: 1 change in the sandbox (delete_bucket)',
    });
  });

  it.each([
    [
      { outcome: text('deleted'), effect: { log: ['delete_bucket', 'delete_file'] } },
      'an approved b2_delete_bucket must change the sandbox exactly once; it made 2 changes in the sandbox (delete_bucket, delete_file)',
    ],
    [{ outcome: text('deleted') }, 'an approved b2_delete_bucket must change the sandbox exactly once; it made no change in the sandbox'],
    [
      { outcome: REFUSAL },
      'b2_delete_bucket failed with error destructive_confirmation_required (HTTP 409): "B2 Error [destructive_confirmation_required] (HTTP 409): Confirmation required." although the call was approved',
    ],
    [
      { outcome: { thrown: 'MCP error -32603: boom' }, effect: { log: ['delete_bucket'] } },
      'b2_delete_bucket failed with a protocol error: "MCP error -32603: boom" although the call was approved (1 change in the sandbox (delete_bucket))',
    ],
  ])('confirmed call answered %j fails', async (answer, detail) => {
    const { probe } = harness(gatedServer({ act: () => answer as never }), {});
    expect((await probe(deleteBucket))[1]).toEqual({ aspect: 'gate.confirmed', variant: 'confirm: true', passed: false, detail });
  });

  it('a call that gets no answer is no verdict: the step throws', async () => {
    const { gateRun } = harness(() => ({ outcome: { timedOut: true } }), {});
    await expect(gateSteps(gateRun, deleteBucket)[0]!.run()).rejects.toThrow('no answer within the timeout');
    expect(gateRun.run.observations).toEqual([]);
  });
});

describe('presigned URLs and unavailable tools', () => {
  const presign: GateProbeSpec = {
    tool: 's3_get_presigned_url',
    effect: 'signed-url',
    target: { kind: 'bucket' },
    trigger: { method: 'PUT' },
  };
  const unavailable: GateProbeSpec = {
    tool: 'b2_reserve_trial_create_account',
    effect: 'unavailable',
    target: { kind: 'bucket' },
    trigger: {},
  };

  it.each([
    [SIGNED, {}, true, 'returned a presigned URL; nothing changed'],
    [text('no url here'), {}, false, 's3_get_presigned_url returned no presigned URL although the call was approved'],
    [SIGNED, { log: ['put_object'] }, false, 'minting a presigned URL caused 1 change in the sandbox (put_object)'],
  ])('confirmed presign answering %j with effect %j: passed %s', async (outcome, effect, passed, detail) => {
    const { probe } = harness(gatedServer({ act: () => ({ outcome, effect }) }), {});
    expect((await probe(presign))[1]).toEqual({ aspect: 'gate.confirmed', variant: 'confirm: true', passed, detail });
  });

  it('an unconfirmed presign that returns a signed URL in an isError result still fails', async () => {
    const { probe } = harness(() => ({ outcome: { ...SIGNED, result: { ...SIGNED.result, isError: true } } }), {});
    expect((await probe(presign))[0]).toEqual({
      aspect: 'gate.unconfirmed',
      variant: 'no confirm',
      passed: false,
      detail: 's3_get_presigned_url returned a presigned URL without consent',
    });
  });

  it('an unavailable tool must refuse even when approved', async () => {
    expect((await harness(() => ({ outcome: REFUSAL }), {}).probe(unavailable))[1]).toEqual({
      aspect: 'gate.confirmed',
      variant: 'confirm: true',
      passed: true,
      detail: REFUSED_DETAIL,
    });
    const acting = harness(gatedServer({ act: () => ({ outcome: text('created'), effect: { log: ['reserve'] } }) }), {});
    expect((await acting.probe(unavailable))[1]).toEqual({
      aspect: 'gate.confirmed',
      variant: 'confirm: true',
      passed: false,
      detail:
        'b2_reserve_trial_create_account ran without consent: 1 change in the sandbox (reserve) (the tool is unavailable in this configuration and must refuse even when approved)',
    });
  });
});

describe('the harmless twin of a conditional gate', () => {
  const spec: GateProbeSpec = {
    ...deleteBucket,
    tool: 'b2_update_bucket',
    harmless: {
      why: 'only the bucket info changes',
      target: { kind: 'bucket', seed: 'harmless' },
      arguments: { bucketName: '{{target.bucketName}}', bucketInfo: { a: 'b' } },
    },
  };

  it('runs without confirmation on its own target: passes', async () => {
    const server: FakeServer = (call) =>
      'bucketInfo' in call.args ? { outcome: text('updated'), effect: { log: ['update_bucket'] } } : gatedServer()(call);
    const { probe, seeds, plain } = harness(server, {});
    expect((await probe(spec)).at(-1)).toEqual({
      aspect: 'gate.harmless',
      variant: 'harmless arguments',
      passed: true,
      detail: 'ran without confirmation',
    });
    expect(seeds.at(-1)).toEqual({ kind: 'bucket', seed: 'harmless' });
    expect(plain.calls.at(-1)!.args).toEqual({ bucketName: 'b2', bucketInfo: { a: 'b' } });
  });

  it('refused (isError or a protocol error): fails, naming why it must not be gated', async () => {
    expect((await harness(gatedServer(), {}).probe(spec)).at(-1)).toEqual({
      aspect: 'gate.harmless',
      variant: 'harmless arguments',
      passed: false,
      detail: `b2_update_bucket refused arguments that must not be gated (only the bucket info changes): error destructive_confirmation_required (HTTP 409): "B2 Error [destructive_confirmation_required] (HTTP 409): Confirmation required."`,
    });
    const thrown: FakeServer = (call) => ('bucketInfo' in call.args ? { outcome: { thrown: 'nope' } } : gatedServer()(call));
    expect((await harness(thrown, {}).probe(spec)).at(-1)).toMatchObject({
      passed: false,
      detail: 'b2_update_bucket refused arguments that must not be gated (only the bucket info changes): a protocol error: "nope"',
    });
  });

  it('a harmless call that changes the sandbox keeps the gated target for later steps', async () => {
    const order: GateProbeSpec = { ...spec };
    const { gateRun, plain } = harness(
      (call) => ('bucketInfo' in call.args ? { outcome: text('ok'), effect: { log: ['update_bucket'] } } : gatedServer()(call)),
      {},
    );
    const steps = gateSteps(gateRun, order);
    await steps[0]!.run();
    await steps.at(-1)!.run();
    await steps[1]!.run();
    expect(plain.calls.map(({ args }) => args.bucketName)).toEqual(['b1', 'b2', 'b1']);
  });
});

describe('judgeRefusal, every clause', () => {
  const spec = { tool: 'b2_delete_file_version', effect: 'mutation' as const };

  it('state changes the log does not show are counted by kind and change', () => {
    const changes = [
      { kind: 'version' as const, name: 'a', change: 'removed' as const },
      { kind: 'version' as const, name: 'b', change: 'removed' as const },
      { kind: 'bucket' as const, name: 'c', change: 'changed' as const },
    ];
    expect(judgeRefusal(spec, { outcome: REFUSAL as never, mutations: [], changes })).toEqual({
      passed: false,
      detail:
        'b2_delete_file_version ran without consent: the mutation log shows nothing, but the sandbox state changed (2 version removed, 1 bucket changed)',
    });
  });

  it('an error text without the contract shape is quoted as an error, bounded', () => {
    const long = `x${'y'.repeat(300)}`;
    expect(judgeRefusal(spec, { outcome: { ...text(`  ${long}  `, true), elicitations: [] }, mutations: [], changes: [] })).toEqual({
      passed: true,
      detail: `refused with an error: ${JSON.stringify(`${long.slice(0, 160)}…`)}; nothing changed`,
    });
    expect(judgeRefusal(spec, { outcome: { ...text('y'.repeat(160), true), elicitations: [] }, mutations: [], changes: [] }).detail).toBe(
      `refused with an error: ${JSON.stringify('y'.repeat(160))}; nothing changed`,
    );
  });

  it('a mutation effect with a signed URL in its refusal is not a presign failure', () => {
    expect(
      judgeRefusal(spec, {
        outcome: { ...SIGNED, result: { ...SIGNED.result, isError: true }, elicitations: [] },
        mutations: [],
        changes: [],
      }).passed,
    ).toBe(true);
  });
});
