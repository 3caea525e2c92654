/**
 * The native tools over an unreliable B2: injected 503s are retried for reads and idempotent
 * writes, never for creations, so the mutation log never shows a duplicate; an expired token is
 * refreshed without the model noticing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../../src/sandbox/index.js';
import {
  adminCall,
  ALL_KEY_CAPABILITIES,
  connectToSandbox,
  createKey,
  mutations,
  startTestSandbox,
  textOf,
  type SandboxKey,
} from '../../../support/sandbox-harness.js';
import type { Connected } from '../../../support/server-harness.js';

let sandbox: RunningSandbox;
let key: SandboxKey;
let client: Connected;

const bucketIdOf = (name: string) => sandbox.store.findBucketByName(name)!.bucketId;
const setFaults = (spec: string) => adminCall(sandbox, 'PUT', '/faults', { spec });
const injected = async () =>
  Object.values((await adminCall<{ injected: Record<string, number> }>(sandbox, 'GET', '/faults')).injected).reduce((a, b) => a + b, 0);

beforeAll(async () => {
  sandbox = await startTestSandbox();
  key = await createKey(sandbox, { capabilities: ALL_KEY_CAPABILITIES });
  client = await connectToSandbox(sandbox, key, {
    env: { B2_MASTER_KEY_ID: sandbox.applicationKeyId, B2_MASTER_KEY: sandbox.applicationKey, B2_DESTRUCTIVE_POLICY: 'allow' },
  });
});

afterAll(async () => {
  await client?.close();
  await sandbox?.close();
});

describe('native tools under injected faults', () => {
  it('every read tool succeeds under 503:0.3, and idempotent writes apply exactly once', async () => {
    const groupId = sandbox.store.listGroups()[0]!.groupId;
    const assets = bucketIdOf('demo-private-assets');
    const reads: Array<[string, Record<string, unknown>]> = [
      ['b2_authorize_account', {}],
      ['b2_list_buckets', {}],
      ['b2_list_keys', {}],
      ['b2_get_bucket_notification_rules', { bucketId: assets }],
      ['b2_list_groups', { adminAccountId: sandbox.accountId }],
      ['b2_list_group_members', { adminAccountId: sandbox.accountId, groupId }],
    ];
    await setFaults('503:0.3,retryAfter=0,seed=11');
    const before = (await mutations(sandbox)).length;
    for (let round = 0; round < 4; round++) {
      for (const [name, args] of reads) {
        const result = await client.callTool(name, args);
        expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
      }
    }
    for (let n = 0; n < 5; n++) {
      const result = await client.callTool('b2_update_bucket', { bucketId: assets, bucketInfo: { round: String(n) } });
      expect(result.isError, textOf(result)).toBeFalsy();
    }
    expect(await injected()).toBeGreaterThan(5);
    const applied = (await mutations(sandbox)).slice(before);
    expect(applied.map((m) => m.operation)).toEqual(Array(5).fill('b2_update_bucket'));
    await adminCall(sandbox, 'DELETE', '/faults');
  });

  it('a creation whose response is lost is reported, not replayed: one bucket, one log entry', async () => {
    await setFaults('rate=1,kinds=503,ops=b2_create_bucket,phase=after,retryAfter=0');
    const before = (await mutations(sandbox)).length;
    const result = await client.callTool('b2_create_bucket', { bucketName: 'lost-response-bucket', bucketType: 'allPrivate' });
    await adminCall(sandbox, 'DELETE', '/faults');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^B2 Error \[\w+\] \(HTTP 503\)/);
    expect((await mutations(sandbox)).slice(before).map((m) => m.operation)).toEqual(['b2_create_bucket']);
    expect(sandbox.store.findBucketByName('lost-response-bucket')).toBeDefined();
  });

  it('an expired token mid-run is refreshed transparently', async () => {
    const count = async () =>
      (await adminCall<{ requests: unknown[] }>(sandbox, 'GET', '/requests?operation=b2_authorize_account')).requests.length;
    const before = await count();
    await adminCall(sandbox, 'POST', '/tokens/expire', { applicationKeyId: key.applicationKeyId });
    const result = await client.callTool('b2_list_buckets', {});
    expect(result.isError, textOf(result)).toBeFalsy();
    expect((result.structuredContent as { bucket_count: number }).bucket_count).toBeGreaterThan(0);
    expect(await count()).toBe(before + 1);
  });
});
