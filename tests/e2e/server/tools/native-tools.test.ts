/**
 * The native (`nativeB2Sdk`) tools end to end: the built server on stdio, the official MCP
 * client, a sandbox process-local B2. Every tool: a success path and a B2 error path; every
 * gated call: refusal leaves the mutation log untouched, `confirm: true` adds exactly one entry.
 * The durable-secret tools are covered in secret-sink.test.ts (here the sink is off: stubs).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../../src/sandbox/index.js';
import {
  ALL_KEY_CAPABILITIES,
  connectToSandbox,
  createKey,
  mutations,
  startTestSandbox,
  textOf,
  type MutationRecord,
} from '../../../support/sandbox-harness.js';
import type { Connected } from '../../../support/server-harness.js';

type Json = Record<string, any>;

let sandbox: RunningSandbox;
/** All capabilities, plus the sandbox master key as the distinct Partner credential. */
let admin: Connected;
/** Buckets and retentions, but not bucket retention settings or governance bypass. */
let limited: Connected;
/** Restricted to the demo-public-site bucket. */
let restricted: Connected;

const bucketIdOf = (name: string) => sandbox.store.findBucketByName(name)!.bucketId;

function fileIn(bucketName: string, fileName: string): { fileId: string; fileName: string } {
  const page = sandbox.store.listFileNames(bucketIdOf(bucketName), { maxFileCount: 1000 });
  for (const entry of page.entries)
    if (entry.kind === 'version' && entry.version.fileName === fileName) return { fileId: entry.version.fileId, fileName };
  throw new Error(`no ${fileName} in ${bucketName}`);
}

async function ok(client: Connected, name: string, args: Json): Promise<Json> {
  const result = await client.callTool(name, args);
  expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
  expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  return result.structuredContent as Json;
}

async function fails(client: Connected, name: string, args: Json, pattern: RegExp): Promise<string> {
  const result = await client.callTool(name, args);
  expect(result.isError, name).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  expect(textOf(result)).toMatch(pattern);
  return textOf(result);
}

async function lastSeq(): Promise<number> {
  return (await mutations(sandbox)).at(-1)?.seq ?? 0;
}

async function since(seq: number): Promise<MutationRecord[]> {
  return (await mutations(sandbox)).filter((m) => m.seq > seq);
}

/** A B2 refusal: the error text, and no change in the sandbox. */
async function b2Fails(client: Connected, name: string, args: Json, pattern: RegExp): Promise<string> {
  const before = await lastSeq();
  const text = await fails(client, name, args, pattern);
  expect(text).toMatch(/^B2 Error \[[a-z_]+\] \(HTTP \d{3}\): /);
  expect(await since(before)).toEqual([]);
  return text;
}

/** Without `confirm` nothing happens; with it, exactly one mutation of the given operation. */
async function gated(client: Connected, name: string, args: Json, operation: string): Promise<Json> {
  const before = await lastSeq();
  await fails(client, name, args, /^B2 Error \[destructive_confirmation_required\] \(HTTP 409\): Confirmation required: this would /);
  expect(await since(before)).toEqual([]);
  const result = await ok(client, name, { ...args, confirm: true });
  expect((await since(before)).map((m) => m.operation)).toEqual([operation]);
  return result;
}

/** Not gated: runs at once, exactly one mutation. */
async function mutates(client: Connected, name: string, args: Json, operation: string): Promise<Json> {
  const before = await lastSeq();
  const result = await ok(client, name, args);
  expect((await since(before)).map((m) => m.operation)).toEqual([operation]);
  return result;
}

beforeAll(async () => {
  sandbox = await startTestSandbox();
  const [fullKey, limitedKey, restrictedKey] = await Promise.all([
    createKey(sandbox, { capabilities: ALL_KEY_CAPABILITIES }),
    createKey(sandbox, {
      capabilities: ['listBuckets', 'writeBuckets', 'listFiles', 'readFileRetentions', 'writeFileRetentions', 'readBucketNotifications'],
    }),
    createKey(sandbox, { capabilities: ['listBuckets', 'listFiles', 'readFiles', 'writeBuckets'], bucketNames: ['demo-public-site'] }),
  ]);
  const env = { B2_DESTRUCTIVE_POLICY: 'confirm', B2_DESTRUCTIVE_ELICITATION: 'off' };
  [admin, limited, restricted] = await Promise.all([
    connectToSandbox(sandbox, fullKey, {
      env: { ...env, B2_MASTER_KEY_ID: sandbox.applicationKeyId, B2_MASTER_KEY: sandbox.applicationKey },
    }),
    connectToSandbox(sandbox, limitedKey, { env }),
    connectToSandbox(sandbox, restrictedKey, { env }),
  ]);
});

afterAll(async () => {
  await Promise.all([admin, limited, restricted].map((client) => client?.close()));
  await sandbox?.close();
});

describe('account', () => {
  it('b2_authorize_account returns the account info without the token', async () => {
    const result = await ok(admin, 'b2_authorize_account', {});
    expect(result.accountId).toBe(sandbox.accountId);
    expect(result.apiInfo.storageApi.allowed.capabilities).toEqual(expect.arrayContaining(['writeKeys', 'bypassGovernance']));
    expect(JSON.stringify(result)).not.toMatch(/authorizationToken/i);
  });

  it('a key B2 stops accepting mid-run surfaces as a B2 error for authorize and list_keys', async () => {
    const key = await createKey(sandbox, { capabilities: ALL_KEY_CAPABILITIES });
    const doomed = await connectToSandbox(sandbox, key);
    try {
      sandbox.store.deleteKey(key.applicationKeyId);
      await b2Fails(doomed, 'b2_authorize_account', {}, /^B2 Error \[(unauthorized|bad_auth_token)\] \(HTTP 401\)/);
      await b2Fails(doomed, 'b2_list_keys', {}, /^B2 Error \[(unauthorized|bad_auth_token)\] \(HTTP 401\)/);
    } finally {
      await doomed.close();
    }
  });
});

// The steps of this story build on each other (create, update, delete one bucket): they keep their order under --sequence.shuffle.
describe('buckets', { shuffle: false }, () => {
  it('b2_list_buckets lists, caps with a note, and filters by type', async () => {
    // Other tests in this file may have created buckets by now: the demo ones must be there, in name order.
    const all = await ok(admin, 'b2_list_buckets', {});
    const names: string[] = all.buckets.map((b: Json) => b.bucketName);
    expect(names.filter((name) => name.startsWith('demo-'))).toEqual([
      'demo-empty-bucket',
      'demo-locked-records',
      'demo-private-assets',
      'demo-public-site',
    ]);
    expect(names).toEqual([...names].sort());
    const total = names.length;
    expect(all).toMatchObject({ bucket_count: total, total_bucket_count: total });
    expect(all.truncated).toBeUndefined();

    const capped = await ok(admin, 'b2_list_buckets', { limit: 2 });
    expect(capped).toMatchObject({
      bucket_count: 2,
      total_bucket_count: total,
      truncated: true,
      note: expect.stringMatching(new RegExp(`Showing 2 of ${total} buckets`)),
    });
    expect(capped.buckets).toHaveLength(2);

    const pub = await ok(admin, 'b2_list_buckets', { bucketTypes: ['allPublic'] });
    expect(pub.buckets.map((b: Json) => b.bucketName)).toEqual(['demo-public-site']);
  });

  it('b2_list_buckets narrows a bucket-restricted key to its buckets; other buckets are a B2 error', async () => {
    const own = await ok(restricted, 'b2_list_buckets', {});
    expect(own.buckets.map((b: Json) => b.bucketName)).toEqual(['demo-public-site']);
    await b2Fails(restricted, 'b2_list_buckets', { bucketName: 'demo-private-assets' }, /^B2 Error \[unauthorized\] \(HTTP 401\)/);
  });

  it('b2_create_bucket creates with settings; duplicates and limit violations are refused without a change', async () => {
    const created = await mutates(
      admin,
      'b2_create_bucket',
      {
        bucketName: 'native-tools-one',
        bucketType: 'allPrivate',
        bucketInfo: { team: 'qa' },
        corsRules: [
          {
            corsRuleName: 'downloads',
            allowedOrigins: ['https://app.example.com'],
            allowedOperations: ['b2_download_file_by_name'],
            allowedHeaders: [],
            maxAgeSeconds: 60,
          },
        ],
        lifecycleRules: [{ fileNamePrefix: 'tmp/', daysFromUploadingToHiding: 7 }],
      },
      'b2_create_bucket',
    );
    expect(created).toMatchObject({
      bucketName: 'native-tools-one',
      bucketType: 'allPrivate',
      bucketInfo: { team: 'qa' },
      lifecycleRules: [{ fileNamePrefix: 'tmp/' }],
    });
    await b2Fails(
      admin,
      'b2_create_bucket',
      { bucketName: 'native-tools-one', bucketType: 'allPrivate' },
      /^B2 Error \[duplicate_bucket_name\] \(HTTP 400\)/,
    );
    await b2Fails(
      admin,
      'b2_create_bucket',
      { bucketName: 'native-tools-two', bucketType: 'allPrivate', bucketInfo: { 'B2-owner': 'x' } },
      /^B2 Error \[bad_request\] \(HTTP 400\): .*reserved "b2-"/,
    );
    const rule = { corsRuleName: 'same-name', allowedOrigins: ['*'], allowedOperations: ['s3_get'], allowedHeaders: [], maxAgeSeconds: 1 };
    await b2Fails(
      admin,
      'b2_create_bucket',
      { bucketName: 'native-tools-two', bucketType: 'allPrivate', corsRules: [rule, rule] },
      /\[bad_request\].*more than once/,
    );
    expect(sandbox.store.findBucketByName('native-tools-two')).toBeUndefined();
  });

  it('b2_create_bucket of a public bucket is gated', async () => {
    const created = await gated(
      admin,
      'b2_create_bucket',
      { bucketName: 'native-tools-public', bucketType: 'allPublic' },
      'b2_create_bucket',
    );
    expect(created.bucketType).toBe('allPublic');
  });

  it('b2_update_bucket changes settings at once, gates exposure, refuses empty and stale updates', async () => {
    const bucketId = bucketIdOf('native-tools-one');
    const updated = await mutates(admin, 'b2_update_bucket', { bucketId, bucketInfo: { team: 'platform' } }, 'b2_update_bucket');
    expect(updated.bucketInfo).toEqual({ team: 'platform' });
    const exposed = await gated(admin, 'b2_update_bucket', { bucketId, bucketType: 'allPublic' }, 'b2_update_bucket');
    expect(exposed.bucketType).toBe('allPublic');
    await b2Fails(admin, 'b2_update_bucket', { bucketId }, /^B2 Error \[bad_request\] \(HTTP 400\): Nothing to update/);
    await b2Fails(admin, 'b2_update_bucket', { bucketId, bucketInfo: { a: 'b' }, ifRevisionIs: 1 }, /^B2 Error \[conflict\] \(HTTP 409\)/);
    await b2Fails(
      admin,
      'b2_update_bucket',
      { bucketId: 'no-such-bucket', bucketInfo: { a: 'b' } },
      /^B2 Error \[bad_bucket_id\] \(HTTP 400\)/,
    );
  });

  it('b2_update_bucket asks before cancelling every unfinished large file of the bucket, as cancelling one upload asks; hiding alone does not', async () => {
    const bucketId = bucketIdOf('native-tools-one');
    const cancelling = { bucketId, lifecycleRules: [{ fileNamePrefix: 'uploads/', daysFromStartingToCancelingUnfinishedLargeFiles: 1 }] };
    const before = await lastSeq();
    const refusal = await fails(admin, 'b2_update_bucket', cancelling, /^B2 Error \[destructive_confirmation_required\] \(HTTP 409\)/);
    expect(refusal).toContain('this would schedule cancellation of unfinished large files, discarding their uploaded parts');
    expect(await since(before)).toEqual([]);
    const confirmed = await gated(admin, 'b2_update_bucket', cancelling, 'b2_update_bucket');
    expect(confirmed.lifecycleRules).toEqual([
      expect.objectContaining({ fileNamePrefix: 'uploads/', daysFromStartingToCancelingUnfinishedLargeFiles: 1 }),
    ]);
    await mutates(
      admin,
      'b2_update_bucket',
      { bucketId, lifecycleRules: [{ fileNamePrefix: 'logs/', daysFromUploadingToHiding: 30 }] },
      'b2_update_bucket',
    );
  });

  it('under block, turning encryption off and replacing the default retention are refused; turning encryption on is not', async () => {
    const blocking = await connectToSandbox(sandbox, await createKey(sandbox, { capabilities: ALL_KEY_CAPABILITIES }), {
      env: { B2_DESTRUCTIVE_POLICY: 'block' },
    });
    try {
      const bucketId = bucketIdOf('native-tools-one');
      for (const [args, effect] of [
        [{ defaultServerSideEncryption: { mode: 'none' } }, /turn default encryption off/],
        [
          { defaultRetention: { mode: 'governance', period: { duration: 1, unit: 'days' } } },
          /replace the default retention, which may shorten/,
        ],
        [
          { defaultRetention: { mode: 'compliance', period: { duration: 1, unit: 'years' } }, confirm: true },
          /replace the default retention/,
        ],
      ] as const) {
        const text = await b2Fails(
          blocking,
          'b2_update_bucket',
          { bucketId, ...args },
          /^B2 Error \[destructive_policy_blocked\] \(HTTP 403\)/,
        );
        expect(text).toMatch(effect);
      }
      const before = await lastSeq();
      await ok(blocking, 'b2_update_bucket', { bucketId, defaultServerSideEncryption: { mode: 'SSE-B2', algorithm: 'AES256' } });
      expect((await since(before)).map((m) => m.operation)).toEqual(['b2_update_bucket']);
    } finally {
      await blocking.close();
    }
  });

  it("a missing sub-capability is B2's clear refusal; tools beyond the key's capabilities are not listed", async () => {
    const text = await b2Fails(
      limited,
      'b2_update_bucket',
      {
        bucketId: bucketIdOf('native-tools-one'),
        defaultRetention: { mode: 'governance', period: { duration: 1, unit: 'days' } },
        confirm: true,
      },
      /^B2 Error \[unauthorized\] \(HTTP 401\)/,
    );
    expect(text).toMatch(/writeBucketRetentions/);
    const names = (await limited.listTools()).tools.map((t) => t.name);
    expect(names).toContain('b2_update_bucket');
    expect(names).not.toContain('b2_delete_bucket');
    expect(names).not.toContain('b2_list_groups');
  });

  it("b2_delete_bucket is gated; a non-empty bucket is B2's refusal", async () => {
    const deleted = await gated(admin, 'b2_delete_bucket', { bucketId: bucketIdOf('native-tools-public') }, 'b2_delete_bucket');
    expect(deleted.bucketName).toBe('native-tools-public');
    expect(sandbox.store.findBucketByName('native-tools-public')).toBeUndefined();
    await b2Fails(
      admin,
      'b2_delete_bucket',
      { bucketId: bucketIdOf('demo-private-assets'), confirm: true },
      /^B2 Error \[cannot_delete_non_empty_bucket\] \(HTTP 400\)/,
    );
  });
});

describe('bucket notification rules', () => {
  const WEBHOOK_PATH = 'hooks/path-token-7f3a';
  const SIGNING_SECRET = 'S1gn1ngS3cr3tS1gn1ngS3cr3tABCDEF';
  const HEADER_SECRET = 'header-secret-value-42';
  const rule = (url: string) => ({
    name: 'new-uploads',
    eventTypes: ['b2:ObjectCreated:*'],
    isEnabled: true,
    targetConfiguration: {
      targetType: 'webhook',
      url,
      hmacSha256SigningSecret: SIGNING_SECRET,
      customHeaders: [{ name: 'X-Token', value: HEADER_SECRET }],
    },
  });

  it('b2_get_bucket_notification_rules redacts webhook url paths, signing secrets and header values', async () => {
    const bucketId = bucketIdOf('demo-private-assets');
    const raw = sandbox.store.getNotificationRules(bucketId);
    const result = await ok(admin, 'b2_get_bucket_notification_rules', { bucketId });
    const target = result.eventNotificationRules[0].targetConfiguration;
    expect(target.url).toBe(`${new URL(raw[0]!.targetConfiguration.url).origin}/[redacted]`);
    expect(target.hmacSha256SigningSecret).toBe('[redacted]');
    expect(target.customHeaders.every((h: Json) => h.value === '[redacted]')).toBe(true);
    const wire = JSON.stringify(result);
    expect(wire).not.toContain(new URL(raw[0]!.targetConfiguration.url).pathname.slice(1));
    expect(wire).not.toContain(raw[0]!.targetConfiguration.hmacSha256SigningSecret!);
    await b2Fails(admin, 'b2_get_bucket_notification_rules', { bucketId: 'no-such-bucket' }, /^B2 Error \[bad_bucket_id\] \(HTTP 400\)/);
  });

  it('b2_set_bucket_notification_rules is gated, replaces the rules, and answers redacted', async () => {
    const bucketId = bucketIdOf('demo-empty-bucket');
    const url = `https://93.184.215.14/${WEBHOOK_PATH}`;
    const result = await gated(
      admin,
      'b2_set_bucket_notification_rules',
      { bucketId, eventNotificationRules: [rule(url)] },
      'b2_set_bucket_notification_rules',
    );
    expect(result.eventNotificationRules[0]).toMatchObject({
      name: 'new-uploads',
      objectNamePrefix: '',
      targetConfiguration: { url: 'https://93.184.215.14/[redacted]', hmacSha256SigningSecret: '[redacted]' },
    });
    const wire = JSON.stringify(result);
    for (const secret of [WEBHOOK_PATH, SIGNING_SECRET, HEADER_SECRET]) expect(wire).not.toContain(secret);
    const stored = sandbox.store.getNotificationRules(bucketId);
    expect(stored).toMatchObject([{ objectNamePrefix: '', targetConfiguration: { url, hmacSha256SigningSecret: SIGNING_SECRET } }]);
  });

  it('refuses webhooks that are not public https endpoints before calling B2', async () => {
    const bucketId = bucketIdOf('demo-empty-bucket');
    for (const url of [
      'https://10.0.0.5/hook',
      'http://93.184.215.14/hook',
      'https://localhost/hook',
      'https://2130706433/hook',
      'https://[::1]/hook',
      'https://[::127.0.0.1]/hook',
      'https://[::a9fe:a9fe]/hook',
      'https://[::ffff:0:a9fe:a9fe]/hook',
      'https://[5f00::1]/hook',
    ]) {
      const text = await b2Fails(
        admin,
        'b2_set_bucket_notification_rules',
        { bucketId, eventNotificationRules: [rule(url)], confirm: true },
        /^B2 Error \[invalid_webhook_url\] \(HTTP 400\)/,
      );
      expect(text).not.toContain('/hook');
    }
    await b2Fails(
      admin,
      'b2_set_bucket_notification_rules',
      { bucketId: 'no-such-bucket', eventNotificationRules: [], confirm: true },
      /^B2 Error \[bad_bucket_id\] \(HTTP 400\)/,
    );
  });
});

describe('keys', () => {
  it('b2_list_keys pages through keys and never shows a secret', async () => {
    const canary = await createKey(sandbox, { capabilities: ['listFiles'], keyName: 'canary-key' });
    const page = await ok(admin, 'b2_list_keys', { maxKeyCount: 1 });
    expect(page.keys).toHaveLength(1);
    expect(typeof page.nextApplicationKeyId).toBe('string');
    const all = await ok(admin, 'b2_list_keys', { maxKeyCount: 1000 });
    expect(all.keys.map((k: Json) => k.applicationKeyId)).toContain(canary.applicationKeyId);
    expect(JSON.stringify(all)).not.toContain(canary.applicationKey);
  });

  it("b2_delete_key is gated; an unknown key is B2's refusal", async () => {
    const victim = await createKey(sandbox, { capabilities: ['listFiles'], keyName: 'to-delete' });
    const deleted = await gated(admin, 'b2_delete_key', { applicationKeyId: victim.applicationKeyId }, 'b2_delete_key');
    expect(deleted).toMatchObject({ applicationKeyId: victim.applicationKeyId, keyName: 'to-delete' });
    expect(sandbox.store.getKey(victim.applicationKeyId)).toBeUndefined();
    await b2Fails(
      admin,
      'b2_delete_key',
      { applicationKeyId: victim.applicationKeyId, confirm: true },
      /^B2 Error \[bad_request\] \(HTTP 400\)/,
    );
  });

  it('b2_create_key without a secret sink is a stub that answers 410 at once', async () => {
    const before = await lastSeq();
    for (const args of [{}, { confirm: true }]) await fails(admin, 'b2_create_key', args, /^B2 Error \[tool_unavailable\] \(HTTP 410\)/);
    expect(await since(before)).toEqual([]);
  });
});

describe('file Object Lock', () => {
  it("b2_update_file_legal_hold: on at once, off gated; a wrong file name is B2's refusal", async () => {
    const file = fileIn('demo-locked-records', 'scratch/unprotected.txt');
    expect(await mutates(admin, 'b2_update_file_legal_hold', { ...file, legalHold: 'on' }, 'b2_update_file_legal_hold')).toMatchObject({
      ...file,
      legalHold: 'on',
    });
    expect(await gated(admin, 'b2_update_file_legal_hold', { ...file, legalHold: 'off' }, 'b2_update_file_legal_hold')).toMatchObject({
      legalHold: 'off',
    });
    await b2Fails(
      admin,
      'b2_update_file_legal_hold',
      { fileId: file.fileId, fileName: 'wrong-name.txt', legalHold: 'on' },
      /^B2 Error \[file_not_present\] \(HTTP 400\)/,
    );
  });

  it('b2_update_file_retention: setting runs at once; clearing with a governance bypass is gated', async () => {
    const file = fileIn('demo-locked-records', 'scratch/unprotected.txt');
    const until = sandbox.store.now() + 86_400_000;
    const set = await mutates(
      admin,
      'b2_update_file_retention',
      { ...file, fileRetention: { mode: 'governance', retainUntilTimestamp: until } },
      'b2_update_file_retention',
    );
    expect(set.fileRetention).toEqual({ mode: 'governance', retainUntilTimestamp: until });
    const clear = { ...file, fileRetention: { mode: null, retainUntilTimestamp: null } };
    await b2Fails(admin, 'b2_update_file_retention', { ...clear, confirm: true }, /^B2 Error \[access_denied\] \(HTTP 403\)/);
    const cleared = await gated(admin, 'b2_update_file_retention', { ...clear, bypassGovernance: true }, 'b2_update_file_retention');
    expect(cleared.fileRetention).toEqual({ mode: null, retainUntilTimestamp: null });
  });

  it('compliance retention cannot be shortened; bypassGovernance needs the capability', async () => {
    const locked = fileIn('demo-locked-records', 'ledger/2025-12.csv');
    const soon = sandbox.store.now() + 60_000;
    await b2Fails(
      admin,
      'b2_update_file_retention',
      { ...locked, fileRetention: { mode: 'compliance', retainUntilTimestamp: soon } },
      /^B2 Error \[access_denied\] \(HTTP 403\)/,
    );
    const file = fileIn('demo-locked-records', 'ledger/2026-01.csv');
    const text = await b2Fails(
      limited,
      'b2_update_file_retention',
      { ...file, fileRetention: { mode: null, retainUntilTimestamp: null }, bypassGovernance: true, confirm: true },
      /^B2 Error \[missing_capability\] \(HTTP 403\)/,
    );
    expect(text).toMatch(/bypassGovernance capability/);
  });
});

// The steps of this story build on each other (add, list, eject members): they keep their order under --sequence.shuffle.
describe('Partner groups (distinct master key)', { shuffle: false }, () => {
  let groupId: string;

  it("b2_list_groups lists the groups through the master key; a foreign admin account is B2's refusal", async () => {
    const result = await ok(admin, 'b2_list_groups', { adminAccountId: sandbox.accountId });
    expect(result.groups.map((g: Json) => g.groupName)).toEqual(['Demo Partner Group']);
    groupId = result.groups[0].groupId;
    await b2Fails(admin, 'b2_list_groups', { adminAccountId: 'someone-else' }, /^B2 Error \[unauthorized\] \(HTTP 401\)/);
  });

  it("b2_list_group_members pages through members; an unknown group is B2's refusal", async () => {
    const all = await ok(admin, 'b2_list_group_members', { adminAccountId: sandbox.accountId, groupId });
    expect(all.groupMembers.map((m: Json) => m.email)).toEqual(['alice@example.com', 'bob@example.com']);
    const first = await ok(admin, 'b2_list_group_members', { adminAccountId: sandbox.accountId, groupId, maxMemberCount: 1 });
    expect(first).toMatchObject({ groupMembers: [{ email: 'alice@example.com' }], nextEmail: 'bob@example.com' });
    await b2Fails(
      admin,
      'b2_list_group_members',
      { adminAccountId: sandbox.accountId, groupId: '999999' },
      /^B2 Error \[\w+\] \(HTTP 4\d\d\)/,
    );
  });

  it("b2_eject_group_member is gated and runs with the master key; an unknown member is B2's refusal", async () => {
    const members = await ok(admin, 'b2_list_group_members', { adminAccountId: sandbox.accountId, groupId });
    const bob = members.groupMembers.find((m: Json) => m.email === 'bob@example.com');
    const before = await lastSeq();
    const ejected = await gated(
      admin,
      'b2_eject_group_member',
      { adminAccountId: sandbox.accountId, groupId, memberAccountId: bob.accountId },
      'b2_eject_group_member',
    );
    expect(ejected).toMatchObject({ accountId: bob.accountId, email: 'bob@example.com' });
    expect((await since(before))[0]).toMatchObject({ callerKeyId: sandbox.applicationKeyId, memberAccountId: bob.accountId });
    await b2Fails(
      admin,
      'b2_eject_group_member',
      { adminAccountId: sandbox.accountId, groupId, memberAccountId: 'no-such-member', confirm: true },
      /^B2 Error \[\w+\] \(HTTP 4\d\d\)/,
    );
  });
});
