import { afterEach, describe, expect, test } from 'vitest';
import { judgeRefusal } from '../../../src/conformance/probes/gate.js';
import { CONSECUTIVE_TIMEOUT_LIMIT, ProbeRun } from '../../../src/conformance/probes/run-state.js';
import type { CallOutcome, ProbeSession } from '../../../src/conformance/probes/sessions.js';
import { startProbeSandbox, stateDigestOf, issuedTokens, type ProbeSandbox } from '../../../src/conformance/probes/sandbox.js';
import { digestChanges, type StateDigest } from '../../../src/sandbox/evidence.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';

/**
 * The judge out of the judged's reach: the probes' sandbox has no admin listener, its log only
 * grows, and its state is a second witness beside the log.
 */
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((sandbox) => sandbox.close()));
});

async function sandboxWithoutListener(): Promise<RunningSandbox> {
  const sandbox = await startSandbox({ seed: 'demo', idSalt: 'probes-sandbox', adminListener: false });
  open.push(sandbox);
  return sandbox;
}

async function native(sandbox: RunningSandbox, operation: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const basic = Buffer.from(`${sandbox.applicationKeyId}:${sandbox.applicationKey}`).toString('base64');
  const auth = (await (
    await fetch(`${sandbox.apiUrl}/b2api/v4/b2_authorize_account`, { headers: { authorization: `Basic ${basic}` } })
  ).json()) as { authorizationToken: string };
  const response = await fetch(`${sandbox.apiUrl}/b2api/v4/${operation}`, {
    method: 'POST',
    headers: { authorization: auth.authorizationToken },
    body: JSON.stringify(body),
  });
  expect(response.status, operation).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe('the probes sandbox', () => {
  test('has no admin listener: the admin operations are reached in-process only', async () => {
    const sandbox = await sandboxWithoutListener();
    expect(sandbox.adminUrl).toBeNull();
    const state = (await sandbox.admin('GET', '/state')) as { accountId: string; buckets: { bucketName: string }[] };
    expect(state.accountId).toBe(sandbox.accountId);
    state.buckets.length = 0; // a copy: the caller cannot reach into the store
    expect(((await sandbox.admin('GET', '/state')) as { buckets: unknown[] }).buckets.length).toBeGreaterThan(0);

    const probes = await startProbeSandbox(['listBuckets']);
    open.push(probes);
    expect(probes.kind).toBe('in-process');
    expect(probes.listener).toBeUndefined();
  });

  test('the mutation log only grows: no route deletes it, and sequence numbers survive a reset', async () => {
    const sandbox = await sandboxWithoutListener();
    await native(sandbox, 'b2_create_bucket', { accountId: sandbox.accountId, bucketName: 'first-bucket-abc', bucketType: 'allPrivate' });
    const [first] = ((await sandbox.admin('GET', '/mutations')) as { mutations: { seq: number }[] }).mutations;
    await expect(sandbox.admin('DELETE', '/mutations')).rejects.toThrow(/unknown admin route/);
    await sandbox.admin('POST', '/reset');
    expect(((await sandbox.admin('GET', '/mutations')) as { mutations: unknown[] }).mutations).toEqual([]);
    await native(sandbox, 'b2_create_bucket', { accountId: sandbox.accountId, bucketName: 'second-bucket-abc', bucketType: 'allPrivate' });
    const [second] = ((await sandbox.admin('GET', '/mutations')) as { mutations: { seq: number }[] }).mutations;
    expect(second!.seq).toBeGreaterThan(first!.seq);
    // A mark taken before the reset still sees what came after it.
    expect(((await sandbox.admin('GET', `/mutations?since=${first!.seq}`)) as { mutations: unknown[] }).mutations).toHaveLength(1);
  });

  test('the state digest sees a file deleted and re-created with the same content, and a protection setting changed', async () => {
    const sandbox = await sandboxWithoutListener();
    const digest = async () => ((await sandbox.admin('GET', '/digest')) as { digest: StateDigest }).digest;
    const bucket = (await native(sandbox, 'b2_create_bucket', {
      accountId: sandbox.accountId,
      bucketName: 'locked-ledger-abc',
      bucketType: 'allPrivate',
      fileLockEnabled: true,
    })) as { bucketId: string };
    const file = (await sandbox.admin('POST', '/files', { bucketName: 'locked-ledger-abc', fileName: 'ledger.txt', text: 'same\n' })) as {
      fileId: string;
    };
    const before = await digest();
    expect(digestChanges(before, await digest())).toEqual([]);

    await native(sandbox, 'b2_delete_file_version', { fileId: file.fileId, fileName: 'ledger.txt' });
    await sandbox.admin('POST', '/files', { bucketName: 'locked-ledger-abc', fileName: 'ledger.txt', text: 'same\n' });
    const recreated = digestChanges(before, await digest());
    expect(recreated.map(({ kind, change }) => `${kind} ${change}`)).toEqual(['version removed', 'version added']);
    expect(recreated[1]!.name).toMatch(/^locked-ledger-abc\/ledger\.txt#/);

    const held = (await sandbox.admin('POST', '/files', { bucketName: 'locked-ledger-abc', fileName: 'held.txt', text: 'x' })) as {
      fileId: string;
    };
    const beforeHold = await digest();
    await native(sandbox, 'b2_update_file_legal_hold', { fileId: held.fileId, fileName: 'held.txt', legalHold: 'on' });
    expect(digestChanges(beforeHold, await digest()).map(({ kind, change }) => `${kind} ${change}`)).toEqual(['version changed']);

    const beforeType = await digest();
    await native(sandbox, 'b2_update_bucket', { accountId: sandbox.accountId, bucketId: bucket.bucketId, bucketType: 'allPublic' });
    expect(digestChanges(beforeType, await digest())).toEqual([{ kind: 'bucket', name: 'locked-ledger-abc', change: 'changed' }]);
  });

  test('knows every token it issued to the server key', async () => {
    const probes: ProbeSandbox = await startProbeSandbox(['listBuckets']);
    open.push(probes);
    expect(await issuedTokens(probes)).toEqual([]);
    const basic = Buffer.from(`${probes.serverKey.applicationKeyId}:${probes.serverKey.applicationKey}`).toString('base64');
    const auth = (await (
      await fetch(`${probes.apiUrl}/b2api/v4/b2_authorize_account`, { headers: { authorization: `Basic ${basic}` } })
    ).json()) as { authorizationToken: string };
    expect(await issuedTokens(probes)).toEqual([auth.authorizationToken]);
    expect(Object.keys(await stateDigestOf(probes)).some((key) => key === `key:${probes.serverKey.applicationKeyId}`)).toBe(true);
  });
});

describe('a refusal is judged by the state as well as the log', () => {
  const refused = {
    result: {
      content: [{ type: 'text' as const, text: 'B2 Error [destructive_confirmation_required] (HTTP 409): Confirmation required.' }],
      isError: true,
    },
    elicitations: [],
  };
  const spec = { tool: 's3_delete_object', effect: 'mutation' as const };

  test('a clean refusal passes', () => {
    expect(judgeRefusal(spec, { outcome: refused, mutations: [], changes: [] })).toMatchObject({ passed: true });
  });

  test('a refusal whose log is empty but whose target is gone fails', () => {
    const verdict = judgeRefusal(spec, {
      outcome: refused,
      mutations: [],
      changes: [
        { kind: 'version', name: 'b/k#1', change: 'removed' },
        { kind: 'version', name: 'b/k#2', change: 'added' },
      ],
    });
    expect(verdict).toEqual({
      passed: false,
      detail:
        's3_delete_object ran without consent: the mutation log shows nothing, but the sandbox state changed (1 version removed, 1 version added)',
    });
  });
});

describe('the probe budget', () => {
  const sandbox = {
    canaries: [],
    serverKey: { applicationKeyId: 'key', applicationKey: 'secret' },
    admin: async () => ({ tokens: [] }),
  } as unknown as ProbeSandbox;
  const session = (answers: CallOutcome[]) =>
    ({ spec: { outputFormat: 'json' }, call: async () => answers.shift()! }) as unknown as ProbeSession;
  const timedOut: CallOutcome = { thrown: 'Request timed out', timedOut: true, elicitations: [] };
  const answered: CallOutcome = { result: { content: [{ type: 'text', text: 'ok' }] }, elicitations: [] };

  test('once the deadline passes no further step starts, and the run says how many did not run', () => {
    let clock = 0;
    const run = new ProbeRun(sandbox, { timeoutMs: 1000, deadline: 100, now: () => clock, budgetLabel: '100 ms' }, undefined);
    run.plan(5);
    expect(run.step('first')).toBe(true);
    clock = 60;
    expect(run.requestTimeout()).toBe(40); // a call never outlives the budget
    clock = 100;
    expect(run.step('second')).toBe(false);
    expect(run.halted).toBe(true);
    run.finish();
    expect(run.observations).toEqual([
      {
        aspect: 'run.incomplete',
        passed: false,
        variant: 'stopped early',
        detail: 'the probe time budget (--max-duration 100 ms) ran out; 4 of 5 probe steps did not run',
      },
    ]);
  });

  test(`${CONSECUTIVE_TIMEOUT_LIMIT} timeouts in a row stop the run; an answer in between resets the count`, async () => {
    const run = new ProbeRun(sandbox, { timeoutMs: 1000, deadline: Infinity, now: () => 0, budgetLabel: '5 min' }, undefined);
    run.plan(10);
    const stalling = session([timedOut, timedOut, answered, timedOut, timedOut, timedOut]);
    for (let call = 0; call < 5; call++) await run.call(stalling, 'gate', 's3_delete_object', {});
    expect(run.halted).toBe(false);
    await run.call(stalling, 'gate', 'b2_delete_bucket', {});
    expect(run.halted).toBe(true);
    expect(run.step('next')).toBe(false);
    run.finish();
    expect(run.observations.at(-1)!.detail).toBe(
      '3 probe calls in a row got no answer within --timeout 1000 ms (the last: b2_delete_bucket); 10 of 10 probe steps did not run',
    );
  });

  test('tokens the sandbox issues become canaries, masked in every detail', async () => {
    const tokens = ['4_key_issued_token_1'];
    const issuing = { ...sandbox, admin: async () => ({ tokens }) } as unknown as ProbeSandbox;
    const run = new ProbeRun(issuing, { timeoutMs: 1000, deadline: Infinity, now: () => 0, budgetLabel: '5 min' }, undefined);
    await run.call(
      session([{ result: { content: [{ type: 'text', text: 'refused' }], isError: true }, elicitations: [] }]),
      'gate',
      's3_delete_object',
      {},
    );
    run.searchMessages([
      {
        message: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: `session ${tokens[0]}` }], isError: true } },
        tool: 's3_delete_object',
      },
    ]);
    expect(run.observations.map((observation) => observation.variant)).toEqual(['result text: B2 token (raw)']);
    run.record({ aspect: 'x', passed: false, detail: `said ${tokens[0]}` });
    expect(run.observations.at(-1)!.detail).toBe('said ***');
  });
});
