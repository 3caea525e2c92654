import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { HOSTILE_FILE_NAMES } from '../../src/sandbox/seed.js';
import { FIXED_CLOCK, admin, authorizeRaw, b2Post, bucketIdOf, createKey } from '../support/sandbox-api.js';

let sandbox: RunningSandbox;
let master: string;

beforeAll(async () => {
  sandbox = await startSandbox({ clock: () => FIXED_CLOCK, idSalt: 'native-api-test' });
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await admin(sandbox, 'POST', '/reset');
  master = (await authorizeRaw(sandbox)).token;
});

const mutations = async () => (await admin(sandbox, 'GET', '/mutations')).mutations as Array<Record<string, unknown>>;

describe('b2_authorize_account', () => {
  it('returns the v4 shape pointing at the sandbox, with the key scope', async () => {
    const { body } = await authorizeRaw(sandbox);
    expect(body.accountId).toBe(sandbox.accountId);
    expect(body.apiInfo.storageApi).toMatchObject({
      apiUrl: sandbox.apiUrl,
      downloadUrl: sandbox.apiUrl,
      s3ApiUrl: sandbox.s3Url,
      infoType: 'storageApi',
      absoluteMinimumPartSize: 5_000_000,
      allowed: { buckets: null, namePrefix: null },
    });
    expect(body.apiInfo.storageApi.allowed.capabilities).toContain('bypassGovernance');
    expect(body.apiInfo.groupsApi).toMatchObject({ groupsApiUrl: sandbox.apiUrl });
    // The account id works in place of the master key id, as on B2.
    expect((await authorizeRaw(sandbox, sandbox.accountId)).accountId).toBe(sandbox.accountId);

    const siteId = await bucketIdOf(sandbox, 'demo-public-site');
    const key = await createKey(sandbox, { capabilities: ['listFiles'], bucketIds: [siteId], namePrefix: 'site/' });
    const scoped = await authorizeRaw(sandbox, key.applicationKeyId, key.applicationKey);
    expect(scoped.body.apiInfo.storageApi.allowed).toEqual({
      buckets: [{ id: siteId, name: 'demo-public-site' }],
      capabilities: ['listFiles'],
      namePrefix: 'site/',
    });
    expect(scoped.body.apiInfo.groupsApi).toBeUndefined();
  });

  it('refuses wrong or missing credentials with 401 unauthorized', async () => {
    for (const headers of [{ Authorization: `Basic ${Buffer.from(`${sandbox.applicationKeyId}:wrong`).toString('base64')}` }, {}]) {
      const res = await fetch(`${sandbox.apiUrl}/b2api/v4/b2_authorize_account`, { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ status: 401, code: 'unauthorized' });
    }
  });
});

describe('bad input gets B2 error bodies, never a crash', () => {
  it('answers malformed JSON, missing fields, wrong types, unknown operations and methods', async () => {
    const bucketId = await bucketIdOf(sandbox, 'demo-private-assets');
    const cases: Array<[string, unknown, number, RegExp]> = [
      ['b2_list_file_names', '{"bucketId": ', 400, /not valid JSON/],
      ['b2_list_file_names', '[1,2]', 400, /JSON object/],
      ['b2_list_file_names', {}, 400, /required field bucketId is missing/],
      ['b2_list_file_names', { bucketId, maxFileCount: 'ten' }, 400, /maxFileCount/],
      ['b2_list_file_names', { bucketId, maxFileCount: 10_001 }, 400, /maxFileCount/],
      ['b2_create_bucket', { accountId: sandbox.accountId, bucketName: 'x-bucket-name', bucketType: 'public' }, 400, /bucketType/],
      ['b2_update_file_legal_hold', { fileId: 'f', fileName: 'n', legalHold: true }, 400, /legalHold/],
      ['b2_no_such_call', {}, 404, /unknown API operation/],
    ];
    for (const [operation, body, status, message] of cases) {
      const res = await b2Post(sandbox, master, operation, body);
      expect(res.status, operation).toBe(status);
      expect(res.body).toEqual({ status, code: expect.any(String), message: expect.stringMatching(message) });
    }
    const v3 = await fetch(`${sandbox.apiUrl}/b2api/v3/b2_list_buckets`, { method: 'POST', body: '{}' });
    expect(await v3.json()).toMatchObject({ status: 404, message: expect.stringMatching(/v4/) });
    const put = await fetch(`${sandbox.apiUrl}/b2api/v4/b2_list_buckets`, { method: 'PUT', headers: { Authorization: master } });
    expect(put.status).toBe(405);
    expect((await b2Post(sandbox, master, 'b2_list_buckets', { accountId: sandbox.accountId })).status).toBe(200);
    expect(await mutations()).toEqual([]);
  });

  it('accepts GET with query parameters typed from the request schema', async () => {
    const bucketId = await bucketIdOf(sandbox, 'demo-private-assets');
    const res = await fetch(`${sandbox.apiUrl}/b2api/v4/b2_list_file_names?bucketId=${bucketId}&prefix=hostile/&maxFileCount=3`, {
      headers: { Authorization: master },
    });
    const body = (await res.json()) as { files: Array<{ fileName: string }>; nextFileName: string };
    expect(res.status).toBe(200);
    expect(body.files).toHaveLength(3);
    expect(body.nextFileName.startsWith('hostile/')).toBe(true);
  });
});

describe('capabilities, bucket restrictions and name prefixes', () => {
  it('refuses an operation the key lacks a capability for, with 401 unauthorized and no mutation', async () => {
    const key = await createKey(sandbox, { capabilities: ['listBuckets'] });
    const { token } = await authorizeRaw(sandbox, key.applicationKeyId, key.applicationKey);
    const bucketId = await bucketIdOf(sandbox, 'demo-private-assets');
    const listed = await b2Post(sandbox, token, 'b2_list_file_names', { bucketId });
    expect(listed).toMatchObject({ status: 401, body: { code: 'unauthorized', message: expect.stringMatching(/listFiles/) } });
    const created = await b2Post(sandbox, token, 'b2_create_bucket', {
      accountId: sandbox.accountId,
      bucketName: 'not-allowed-1',
      bucketType: 'allPrivate',
    });
    expect(created).toMatchObject({ status: 401, body: { code: 'unauthorized' } });

    const writer = await createKey(sandbox, { capabilities: ['writeBuckets', 'listBuckets'] });
    const writerToken = (await authorizeRaw(sandbox, writer.applicationKeyId, writer.applicationKey)).token;
    const clearRetention = await b2Post(sandbox, writerToken, 'b2_update_bucket', {
      accountId: sandbox.accountId,
      bucketId: await bucketIdOf(sandbox, 'demo-locked-records'),
      defaultRetention: { mode: null, period: null },
    });
    expect(clearRetention.body).toMatchObject({ code: 'unauthorized', message: expect.stringMatching(/writeBucketRetentions/) });
    const info = await b2Post(sandbox, writerToken, 'b2_update_bucket', { accountId: sandbox.accountId, bucketId, bucketInfo: { a: 'b' } });
    expect(info).toMatchObject({ status: 200, body: { bucketInfo: { a: 'b' } } });
    // Fields the key may not read come back guarded.
    expect(info.body.fileLockConfiguration).toEqual({ isClientAuthorizedToRead: false, value: null });
    expect(info.body.defaultServerSideEncryption).toEqual({ isClientAuthorizedToRead: false, value: null });
    expect((await mutations()).map((m) => m.operation)).toEqual(['b2_update_bucket']);
  });

  it('keeps a bucket-restricted, prefix-restricted key inside its bucket and prefix', async () => {
    const siteId = await bucketIdOf(sandbox, 'demo-public-site');
    const otherId = await bucketIdOf(sandbox, 'demo-private-assets');
    const key = await createKey(sandbox, { capabilities: ['listBuckets', 'listFiles'], bucketIds: [siteId], namePrefix: 'site/' });
    const { token } = await authorizeRaw(sandbox, key.applicationKeyId, key.applicationKey);
    expect((await b2Post(sandbox, token, 'b2_list_buckets', { accountId: sandbox.accountId })).status).toBe(401);
    const own = await b2Post(sandbox, token, 'b2_list_buckets', { accountId: sandbox.accountId, bucketId: siteId });
    expect(own.body.buckets.map((b: { bucketName: string }) => b.bucketName)).toEqual(['demo-public-site']);
    expect(
      (await b2Post(sandbox, token, 'b2_list_buckets', { accountId: sandbox.accountId, bucketName: 'demo-private-assets' })).status,
    ).toBe(401);
    expect((await b2Post(sandbox, token, 'b2_list_file_names', { bucketId: otherId, prefix: 'site/' })).status).toBe(401);
    expect((await b2Post(sandbox, token, 'b2_list_file_names', { bucketId: siteId })).body.message).toMatch(/prefix/);
    const files = await b2Post(sandbox, token, 'b2_list_file_names', { bucketId: siteId, prefix: 'site/' });
    expect(files.body.files.map((f: { fileName: string }) => f.fileName)).toEqual(['site/app.js', 'site/index.html']);
  });

  it('answers expired and unknown tokens the way B2 does', async () => {
    expect((await b2Post(sandbox, 'not-a-token', 'b2_list_buckets', { accountId: sandbox.accountId })).body).toMatchObject({
      status: 401,
      code: 'bad_auth_token',
    });
    expect((await admin(sandbox, 'POST', '/tokens/expire', {})).expired).toBeGreaterThan(0);
    expect((await b2Post(sandbox, master, 'b2_list_buckets', { accountId: sandbox.accountId })).body).toEqual({
      status: 401,
      code: 'expired_auth_token',
      message: 'Authorization token has expired',
    });
  });
});

describe('buckets, keys, files and Object Lock over HTTP', () => {
  it('creates, updates and deletes a bucket, logging each mutation with its ids', async () => {
    const created = await b2Post(sandbox, master, 'b2_create_bucket', {
      accountId: sandbox.accountId,
      bucketName: 'http-made-bucket',
      bucketType: 'allPrivate',
      bucketInfo: { owner: 'tests' },
      corsRules: [{ corsRuleName: 'allow-app', allowedOrigins: ['https://a.example'], allowedOperations: ['s3_get'], maxAgeSeconds: 60 }],
      lifecycleRules: [{ fileNamePrefix: 'tmp/', daysFromHidingToDeleting: 1 }],
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      bucketName: 'http-made-bucket',
      bucketInfo: { owner: 'tests' },
      corsRules: [{ corsRuleName: 'allow-app', allowedHeaders: [], exposeHeaders: [] }],
      lifecycleRules: [{ fileNamePrefix: 'tmp/', daysFromHidingToDeleting: 1, daysFromUploadingToHiding: null }],
      fileLockConfiguration: {
        isClientAuthorizedToRead: true,
        value: { isFileLockEnabled: false, defaultRetention: { mode: null, period: null } },
      },
      revision: 1,
    });
    const bucketId = created.body.bucketId as string;
    const duplicate = await b2Post(sandbox, master, 'b2_create_bucket', {
      accountId: sandbox.accountId,
      bucketName: 'http-made-bucket',
      bucketType: 'allPrivate',
    });
    expect(duplicate.body.code).toBe('duplicate_bucket_name');
    const updated = await b2Post(sandbox, master, 'b2_update_bucket', {
      accountId: sandbox.accountId,
      bucketId,
      bucketType: 'allPublic',
      ifRevisionIs: 1,
    });
    expect(updated.body).toMatchObject({ bucketType: 'allPublic', revision: 2 });
    const stale = await b2Post(sandbox, master, 'b2_update_bucket', {
      accountId: sandbox.accountId,
      bucketId,
      bucketType: 'allPrivate',
      ifRevisionIs: 1,
    });
    expect(stale).toMatchObject({ status: 409, body: { code: 'conflict' } });
    expect((await b2Post(sandbox, master, 'b2_delete_bucket', { accountId: sandbox.accountId, bucketId })).status).toBe(200);
    expect((await b2Post(sandbox, master, 'b2_delete_bucket', { accountId: sandbox.accountId, bucketId })).body.code).toBe('bad_bucket_id');

    const log = await mutations();
    // Sequence numbers keep counting across resets: consecutive, from wherever the log stands.
    const first = log[0]!.seq as number;
    expect(log.map((m) => [(m.seq as number) - first, m.operation, m.bucketId])).toEqual([
      [0, 'b2_create_bucket', bucketId],
      [1, 'b2_update_bucket', bucketId],
      [2, 'b2_delete_bucket', bucketId],
    ]);
    expect(log[0]).toMatchObject({
      api: 'native',
      method: 'POST',
      endpoint: '/b2api/v4/b2_create_bucket',
      bucketName: 'http-made-bucket',
      time: FIXED_CLOCK,
    });
    expect(JSON.stringify(log)).not.toContain(sandbox.applicationKey);
  });

  it('hides the usage-report bucket from unfiltered listings but finds it by name', async () => {
    const all = await b2Post(sandbox, master, 'b2_list_buckets', { accountId: sandbox.accountId, bucketTypes: ['all'] });
    expect(all.body.buckets.map((b: { bucketName: string }) => b.bucketName)).toEqual([
      'demo-empty-bucket',
      'demo-locked-records',
      'demo-private-assets',
      'demo-public-site',
    ]);
    const reports = await b2Post(sandbox, master, 'b2_list_buckets', {
      accountId: sandbox.accountId,
      bucketName: `b2-reports-${sandbox.accountId}`,
    });
    expect(reports.body.buckets).toHaveLength(1);
  });

  it('enforces Object Lock on deletion: legal hold, compliance, governance with and without bypass', async () => {
    const bucketId = await bucketIdOf(sandbox, 'demo-locked-records');
    const files = (await b2Post(sandbox, master, 'b2_list_file_names', { bucketId })).body.files as Array<{
      fileName: string;
      fileId: string;
    }>;
    const byName = (name: string) => files.find((f) => f.fileName === name)!;
    const del = (token: string, name: string, bypassGovernance?: boolean) =>
      b2Post(sandbox, token, 'b2_delete_file_version', {
        fileName: name,
        fileId: byName(name).fileId,
        ...(bypassGovernance ? { bypassGovernance } : {}),
      });

    expect((await del(master, 'contracts/2025-msa.pdf', true)).body).toMatchObject({
      status: 403,
      code: 'access_denied',
      message: expect.stringMatching(/legal hold/),
    });
    expect((await del(master, 'ledger/2025-12.csv', true)).body).toMatchObject({
      status: 403,
      code: 'access_denied',
      message: expect.stringMatching(/compliance/),
    });
    expect((await del(master, 'ledger/2026-01.csv')).body).toMatchObject({
      status: 403,
      message: expect.stringMatching(/bypassGovernance/),
    });
    const noBypass = await createKey(sandbox, { capabilities: ['deleteFiles', 'listFiles'] });
    const limited = (await authorizeRaw(sandbox, noBypass.applicationKeyId, noBypass.applicationKey)).token;
    expect((await del(limited, 'ledger/2026-01.csv', true)).body).toMatchObject({
      status: 401,
      message: expect.stringMatching(/bypassGovernance/),
    });
    expect(await mutations()).toEqual([]);

    expect((await del(master, 'ledger/2026-01.csv', true)).status).toBe(200);
    expect((await del(master, 'scratch/unprotected.txt')).status).toBe(200);
    const hold = await b2Post(sandbox, master, 'b2_update_file_legal_hold', {
      fileName: 'contracts/2025-msa.pdf',
      fileId: byName('contracts/2025-msa.pdf').fileId,
      legalHold: 'off',
    });
    expect(hold.body).toEqual({ fileId: byName('contracts/2025-msa.pdf').fileId, fileName: 'contracts/2025-msa.pdf', legalHold: 'off' });
    expect((await del(master, 'contracts/2025-msa.pdf')).status).toBe(200);
    expect((await mutations()).map((m) => m.operation)).toEqual([
      'b2_delete_file_version',
      'b2_delete_file_version',
      'b2_update_file_legal_hold',
      'b2_delete_file_version',
    ]);
  });

  it('uploads through an upload URL and downloads by name, with ranges and public-bucket rules', async () => {
    const bucketId = await bucketIdOf(sandbox, 'demo-private-assets');
    const upload = (await b2Post(sandbox, master, 'b2_get_upload_url', { bucketId })).body;
    const data = Buffer.from('hello sandbox, hello B2');
    const sha1 = createHash('sha1').update(data).digest('hex');
    const send = (sha: string) =>
      fetch(upload.uploadUrl, {
        method: 'POST',
        headers: {
          Authorization: upload.authorizationToken,
          'X-Bz-File-Name': encodeURIComponent('uploads/greeting é.txt'),
          'Content-Type': 'text/plain',
          'X-Bz-Content-Sha1': sha,
          'X-Bz-Info-author': 'tests',
        },
        body: data,
      });
    expect(await (await send('0'.repeat(40))).json()).toMatchObject({ status: 400, message: expect.stringMatching(/Sha1/) });
    const uploaded = (await (await send(sha1)).json()) as Record<string, unknown>;
    expect(uploaded).toMatchObject({
      fileName: 'uploads/greeting é.txt',
      contentLength: data.length,
      contentSha1: sha1,
      fileInfo: { author: 'tests' },
      action: 'upload',
    });

    const url = `${sandbox.apiUrl}/file/demo-private-assets/uploads/${encodeURIComponent('greeting é.txt')}`;
    expect((await fetch(url)).status).toBe(401);
    const ranged = await fetch(url, { headers: { Authorization: master, Range: 'bytes=6-12' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 6-12/${data.length}`);
    expect(ranged.headers.get('x-bz-file-id')).toBe(uploaded.fileId);
    expect(await ranged.text()).toBe('sandbox');
    const publicFile = await fetch(`${sandbox.apiUrl}/file/demo-public-site/site/index.html`);
    expect(await publicFile.text()).toBe('<h1>Demo site</h1>\n');
    const missing = await fetch(`${sandbox.apiUrl}/file/demo-public-site/site/nope.html`);
    expect(await missing.json()).toMatchObject({ status: 404, code: 'not_found' });
    expect((await mutations()).map((m) => [m.operation, m.fileId])).toEqual([['b2_upload_file', uploaded.fileId]]);
  });

  it('keeps notification rules: https webhooks only, replaced as a whole', async () => {
    const bucketId = await bucketIdOf(sandbox, 'demo-private-assets');
    const rule = {
      name: 'uploads-hook',
      eventTypes: ['b2:ObjectCreated:*'],
      isEnabled: true,
      targetConfiguration: { targetType: 'webhook', url: 'http://hooks.example.com/x' },
    };
    expect(
      (await b2Post(sandbox, master, 'b2_set_bucket_notification_rules', { bucketId, eventNotificationRules: [rule] })).body.message,
    ).toMatch(/https/);
    const set = await b2Post(sandbox, master, 'b2_set_bucket_notification_rules', {
      bucketId,
      eventNotificationRules: [{ ...rule, targetConfiguration: { ...rule.targetConfiguration, url: 'https://hooks.example.com/x' } }],
    });
    expect(set.body.eventNotificationRules).toEqual([
      {
        name: 'uploads-hook',
        eventTypes: ['b2:ObjectCreated:*'],
        isEnabled: true,
        objectNamePrefix: '',
        targetConfiguration: {
          targetType: 'webhook',
          url: 'https://hooks.example.com/x',
          hmacSha256SigningSecret: null,
          customHeaders: null,
        },
        isSuspended: false,
        suspensionReason: '',
      },
    ]);
    const got = await b2Post(sandbox, master, 'b2_get_bucket_notification_rules', { bucketId });
    expect(got.body.eventNotificationRules.map((r: { name: string }) => r.name)).toEqual(['uploads-hook']);
  });

  it('serves the Partner API to the master key only', async () => {
    const groups = await b2Post(sandbox, master, 'b2_list_groups', { adminAccountId: sandbox.accountId });
    expect(groups.body.groups).toEqual([expect.objectContaining({ groupName: 'Demo Partner Group', groupProducts: ['STORAGE'] })]);
    const groupId = groups.body.groups[0].groupId as string;
    const members = await b2Post(sandbox, master, 'b2_list_group_members', { adminAccountId: sandbox.accountId, groupId });
    expect(members.body.groupMembers.map((m: { email: string }) => m.email)).toEqual(['alice@example.com', 'bob@example.com']);

    const created = await b2Post(sandbox, master, 'b2_create_group_member', {
      adminAccountId: sandbox.accountId,
      groupId,
      memberEmail: 'carol@example.com',
    });
    expect(created.body).toMatchObject({
      applicationKeyId: expect.any(String),
      applicationKey: expect.any(String),
      groupMember: { email: 'carol@example.com', region: 'us-west' },
    });
    expect(
      (
        await b2Post(sandbox, master, 'b2_create_group_member', {
          adminAccountId: sandbox.accountId,
          groupId,
          memberEmail: 'carol@example.com',
        })
      ).status,
    ).toBe(400);
    const ejected = await b2Post(sandbox, master, 'b2_eject_group_member', {
      adminAccountId: sandbox.accountId,
      groupId,
      memberAccountId: created.body.groupMember.accountId,
    });
    expect(ejected.body).toMatchObject({ email: 'carol@example.com', groupId });
    const trial = await b2Post(sandbox, master, 'b2_reserve_trial_create_account', { email: 'trial@example.com', term: 14, storage: 5 });
    expect(trial.body).toMatchObject({ email: 'trial@example.com', startDate: '2026-04-15', endDate: '2026-04-29' });
    expect((await b2Post(sandbox, master, 'b2_reserve_trial_create_account', { email: 'x@example.com', term: 3, storage: 5 })).status).toBe(
      400,
    );

    const appKey = await createKey(sandbox, {
      capabilities: [...(await authorizeRaw(sandbox)).body.apiInfo.storageApi.allowed.capabilities],
    });
    const nonMaster = (await authorizeRaw(sandbox, appKey.applicationKeyId, appKey.applicationKey)).token;
    expect((await b2Post(sandbox, nonMaster, 'b2_list_groups', { adminAccountId: sandbox.accountId })).body).toMatchObject({
      status: 401,
      code: 'unauthorized',
    });
    expect((await mutations()).map((m) => m.operation)).toEqual([
      'b2_create_group_member',
      'b2_eject_group_member',
      'b2_reserve_trial_create_account',
    ]);
  });
});

describe('demo seed', () => {
  it('lists hostile file names intact and the unfinished large file', async () => {
    const bucketId = await bucketIdOf(sandbox, 'demo-private-assets');
    const names = await b2Post(sandbox, master, 'b2_list_file_names', { bucketId, prefix: 'hostile/', maxFileCount: 1000 });
    expect(new Set(names.body.files.map((f: { fileName: string }) => f.fileName))).toEqual(new Set(HOSTILE_FILE_NAMES));
    const versions = await b2Post(sandbox, master, 'b2_list_file_versions', { bucketId, prefix: 'docs/' });
    expect(versions.body.files.map((f: { fileName: string; action: string }) => `${f.fileName}:${f.action}`)).toEqual([
      'docs/old-draft.txt:hide',
      'docs/old-draft.txt:upload',
      'docs/readme.txt:upload',
      'docs/readme.txt:upload',
      'docs/readme.txt:upload',
    ]);
    const unfinished = await b2Post(sandbox, master, 'b2_list_unfinished_large_files', { bucketId });
    expect(unfinished.body.files).toEqual([expect.objectContaining({ fileName: 'backups/partial-upload.bin', action: 'start' })]);
  });

  it('writes 35 days of usage reports with per-bucket storage and egress', async () => {
    const reportsName = `b2-reports-${sandbox.accountId}`;
    const bucketId = await bucketIdOf(sandbox, reportsName);
    const listing = await b2Post(sandbox, master, 'b2_list_file_names', { bucketId, maxFileCount: 1000 });
    const files = listing.body.files.map((f: { fileName: string }) => f.fileName) as string[];
    expect(files).toHaveLength(35 * 3);
    expect(files[0]).toBe(`2026-03-11/usage.account-${sandbox.accountId}.csv`);
    expect(files.at(-1)).toBe(`2026-04-14/usage.audit-account-${sandbox.accountId}.csv`);
    const csv = await (await fetch(`${sandbox.apiUrl}/file/${reportsName}/${files[0]}`, { headers: { Authorization: master } })).text();
    const [header, ...rows] = csv.trim().split('\n');
    expect(header).toBe(
      'date,account_id,bucket_id,bucket_name,stored_gb,uploaded_gb,downloaded_gb,api_txn_class_a,api_txn_class_b,api_txn_class_c',
    );
    expect(rows).toHaveLength(5);
    expect(rows[0]!.split(',').slice(0, 5)).toEqual([
      '2026-03-11',
      sandbox.accountId,
      await bucketIdOf(sandbox, 'demo-private-assets'),
      'demo-private-assets',
      '820.000000',
    ]);
  });
});
