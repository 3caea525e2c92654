import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { B2ApiError, B2ConfigError, B2Error, B2InvalidResponseError, B2TransportError } from '../../src/server/b2/errors.js';
import { b2UserAgent, createB2NativeClient, type B2NativeApi, type RetryEvent } from '../../src/server/b2/native-client.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { FIXED_CLOCK, admin, bucketIdOf, createKey } from '../support/sandbox-api.js';

let sandbox: RunningSandbox;
let sleeps: number[];
let retries: RetryEvent[];

beforeAll(async () => {
  sandbox = await startSandbox({ clock: () => FIXED_CLOCK, idSalt: 'native-client-test' });
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await admin(sandbox, 'DELETE', '/faults');
  await admin(sandbox, 'POST', '/reset');
  sleeps = [];
  retries = [];
});

function client(overrides: Partial<Parameters<typeof createB2NativeClient>[0]> = {}): B2NativeApi {
  return createB2NativeClient({
    apiUrl: sandbox.apiUrl,
    applicationKeyId: sandbox.applicationKeyId,
    applicationKey: sandbox.applicationKey,
    retry: { sleep: async (ms) => void sleeps.push(ms), random: () => 0.5 },
    onRetry: (event) => retries.push(event),
    ...overrides,
  });
}

async function failure(promise: Promise<unknown>): Promise<B2Error> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof B2Error) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

const requests = async (operation: string) =>
  (await admin(sandbox, 'GET', `/requests?operation=${operation}`)).requests as Array<{ status: number; fault?: string }>;
const mutations = async () => (await admin(sandbox, 'GET', '/mutations')).mutations as Array<{ operation: string }>;
const setFaults = (spec: string) => admin(sandbox, 'PUT', '/faults', { spec });

describe('authorization', () => {
  it('authorizes lazily once, exposes the scope and endpoints, and never the token', async () => {
    const b2 = client();
    expect(await requests('b2_authorize_account')).toHaveLength(0);
    const [a, b] = await Promise.all([b2.authorize(), b2.authorize()]);
    expect(a).toBe(b);
    expect(await requests('b2_authorize_account')).toHaveLength(1);
    expect(a).toMatchObject({
      accountId: sandbox.accountId,
      apiUrl: sandbox.apiUrl,
      s3ApiUrl: sandbox.s3Url,
      groupsApiUrl: sandbox.apiUrl,
      allowed: { buckets: null, namePrefix: null },
    });
    expect(a.response).not.toHaveProperty('authorizationToken');
    await b2.authorize({ force: true });
    expect(await requests('b2_authorize_account')).toHaveLength(2);
  });

  it('re-authorizes once when the token expires mid-run', async () => {
    const b2 = client();
    await b2.listBuckets();
    await admin(sandbox, 'POST', '/tokens/expire', {});
    const { buckets } = await b2.listBuckets();
    expect(buckets.length).toBeGreaterThan(0);
    expect(await requests('b2_authorize_account')).toHaveLength(2);
    expect((await requests('b2_list_buckets')).map((r) => r.status)).toEqual([200, 401, 200]);
  });

  it('reports bad credentials as 401 without leaking them', async () => {
    const secret = 'K005-canary-secret-value';
    const error = await failure(client({ applicationKey: secret }).listBuckets());
    expect(error).toBeInstanceOf(B2ApiError);
    expect(error).toMatchObject({ status: 401, code: 'unauthorized', operation: 'b2_authorize_account' });
    expect(`${error.message} ${error.stack}`).not.toContain(secret);
    expect([error.status, error.code]).toEqual([401, 'unauthorized']);
    expect(retries).toEqual([]);
  });

  it('accepts https anywhere but http only on loopback, for B2_API_URL and authorized endpoints', () => {
    expect(() => createB2NativeClient({ apiUrl: 'http://api.example.com', applicationKeyId: 'a', applicationKey: 'b' })).toThrow(
      B2ConfigError,
    );
    expect(() => createB2NativeClient({ apiUrl: 'https://user:pw@api.example.com', applicationKeyId: 'a', applicationKey: 'b' })).toThrow(
      /credentials/,
    );
    expect(() => createB2NativeClient({ apiUrl: 'not a url', applicationKeyId: 'a', applicationKey: 'b' })).toThrow(B2ConfigError);
    expect(() => createB2NativeClient({ apiUrl: '', applicationKeyId: '', applicationKey: '' })).toThrow(B2ConfigError);
    for (const apiUrl of ['https://api.backblazeb2.com', 'http://127.0.0.1:9', 'http://localhost:9', 'http://[::1]:9']) {
      expect(() => createB2NativeClient({ apiUrl, applicationKeyId: 'a', applicationKey: 'b' })).not.toThrow();
    }
  });

  it('sends the configured User-Agent', async () => {
    const agents: string[] = [];
    const spy: typeof fetch = async (input, init) => {
      agents.push(new Headers(init?.headers).get('user-agent') ?? '');
      return fetch(input, init);
    };
    await client({ fetch: spy, userAgent: b2UserAgent('1.2.3', ' sandbox-tests ') }).listBuckets();
    expect(agents).toEqual(['b2-mcp/1.2.3 sandbox-tests', 'b2-mcp/1.2.3 sandbox-tests']);
  });
});

describe('every endpoint: success and a B2 error', () => {
  it('buckets: list, create, update, delete', async () => {
    const b2 = client();
    const created = await b2.createBucket({ bucketName: 'client-bucket-1', bucketType: 'allPrivate', bucketInfo: { k: 'v' } });
    expect(created).toMatchObject({ bucketName: 'client-bucket-1', bucketInfo: { k: 'v' }, revision: 1 });
    expect((await b2.listBuckets({ bucketName: 'client-bucket-1' })).buckets.map((b) => b.bucketId)).toEqual([created.bucketId]);
    expect(await b2.updateBucket({ bucketId: created.bucketId, bucketType: 'allPublic' })).toMatchObject({
      bucketType: 'allPublic',
      revision: 2,
    });
    expect((await b2.deleteBucket({ bucketId: created.bucketId })).bucketId).toBe(created.bucketId);

    expect(await failure(b2.createBucket({ bucketName: 'b2-nope-reserved', bucketType: 'allPrivate' }))).toMatchObject({
      status: 400,
      code: 'bad_request',
    });
    expect(await failure(b2.updateBucket({ bucketId: created.bucketId, bucketType: 'allPrivate' }))).toMatchObject({
      status: 400,
      code: 'bad_bucket_id',
    });
    expect(await failure(b2.deleteBucket({ bucketId: await bucketIdOf(sandbox, 'demo-public-site') }))).toMatchObject({
      code: 'cannot_delete_non_empty_bucket',
    });
  });

  it('keys: create (with secret), list, delete', async () => {
    const b2 = client();
    const created = await b2.createKey({ keyName: 'client-key', capabilities: ['listFiles'], validDurationInSeconds: 3600 });
    expect(created).toMatchObject({
      keyName: 'client-key',
      capabilities: ['listFiles'],
      expirationTimestamp: FIXED_CLOCK + 3_600_000,
      applicationKey: expect.stringMatching(/^K005/),
    });
    const listed = await b2.listKeys({ maxKeyCount: 1000 });
    expect(listed.keys.map((k) => k.applicationKeyId)).toContain(created.applicationKeyId);
    expect(listed.keys.some((k) => 'applicationKey' in k)).toBe(false);
    expect((await b2.deleteKey({ applicationKeyId: created.applicationKeyId })).keyName).toBe('client-key');
    expect(await failure(b2.deleteKey({ applicationKeyId: created.applicationKeyId }))).toMatchObject({ status: 400 });
    expect(await failure(b2.createKey({ keyName: 'bad name!', capabilities: ['listFiles'] }))).toMatchObject({
      status: 400,
      code: 'bad_request',
    });
  });

  it('files: names, versions, unfinished large files, paging and errors', async () => {
    const b2 = client();
    const bucketId = await bucketIdOf(sandbox, 'demo-private-assets');
    const names = await b2.listFileNames({ bucketId, prefix: 'docs/' });
    expect(names).toEqual({ files: [expect.objectContaining({ fileName: 'docs/readme.txt', action: 'upload' })], nextFileName: null });
    const versions = await b2.listFileVersions({ bucketId, prefix: 'docs/readme', maxFileCount: 2 });
    expect(versions.files).toHaveLength(2);
    expect(versions.nextFileName).toBe('docs/readme.txt');
    const rest = await b2.listFileVersions({
      bucketId,
      prefix: 'docs/readme',
      startFileName: versions.nextFileName!,
      startFileId: versions.nextFileId!,
    });
    expect(rest.files.map((f) => f.fileId)).not.toContain(versions.files[0]!.fileId);
    expect(rest.files).toHaveLength(1);
    const unfinished = await b2.listUnfinishedLargeFiles({ bucketId });
    expect(unfinished.files.map((f) => f.fileName)).toEqual(['backups/partial-upload.bin']);
    expect(await failure(b2.listFileNames({ bucketId: 'nope' }))).toMatchObject({ status: 400, code: 'bad_bucket_id' });
    expect(await failure(b2.listUnfinishedLargeFiles({ bucketId, maxFileCount: 101 }))).toMatchObject({ status: 400, code: 'bad_request' });
  });

  it('Object Lock: legal hold, retention, and delete with bypassGovernance', async () => {
    const b2 = client();
    const bucketId = await bucketIdOf(sandbox, 'demo-locked-records');
    const { files } = await b2.listFileNames({ bucketId });
    const file = (name: string) => files.find((f) => f.fileName === name)!;
    const governed = file('ledger/2026-01.csv');
    const held = file('contracts/2025-msa.pdf');

    expect(await failure(b2.deleteFileVersion({ fileId: held.fileId!, fileName: held.fileName }))).toMatchObject({
      status: 403,
      code: 'access_denied',
    });
    expect(await b2.updateFileLegalHold({ fileId: held.fileId!, fileName: held.fileName, legalHold: 'off' })).toEqual({
      fileId: held.fileId,
      fileName: held.fileName,
      legalHold: 'off',
    });
    const later = FIXED_CLOCK + 90 * 86_400_000;
    expect(
      await b2.updateFileRetention({
        fileId: governed.fileId!,
        fileName: governed.fileName,
        fileRetention: { mode: 'governance', retainUntilTimestamp: later },
      }),
    ).toMatchObject({
      fileRetention: { mode: 'governance', retainUntilTimestamp: later },
    });
    const clear = {
      fileId: governed.fileId!,
      fileName: governed.fileName,
      fileRetention: { mode: null, retainUntilTimestamp: null },
    } as const;
    expect(await failure(b2.updateFileRetention(clear))).toMatchObject({ status: 403, code: 'access_denied' });
    await b2.updateFileRetention({ ...clear, bypassGovernance: true });
    expect(await b2.deleteFileVersion({ fileId: governed.fileId!, fileName: governed.fileName })).toEqual({
      fileId: governed.fileId,
      fileName: governed.fileName,
    });
    expect(await failure(b2.updateFileLegalHold({ fileId: 'missing', fileName: 'x', legalHold: 'on' }))).toMatchObject({
      status: 400,
      code: 'file_not_present',
    });
  });

  it('notification rules: get and replace', async () => {
    const b2 = client();
    const bucketId = await bucketIdOf(sandbox, 'demo-private-assets');
    expect((await b2.getBucketNotificationRules({ bucketId })).eventNotificationRules.map((r) => r.name)).toEqual(['image-uploads']);
    const set = await b2.setBucketNotificationRules({ bucketId, eventNotificationRules: [] });
    expect(set).toEqual({ bucketId, eventNotificationRules: [] });
    const bad = {
      name: 'x',
      eventTypes: ['b2:NotAnEvent'],
      isEnabled: true,
      targetConfiguration: { targetType: 'webhook' as const, url: 'https://h.example.com' },
    };
    expect(await failure(b2.setBucketNotificationRules({ bucketId, eventNotificationRules: [bad] }))).toMatchObject({
      status: 400,
      code: 'bad_request',
    });
    expect(await failure(b2.getBucketNotificationRules({ bucketId: 'nope' }))).toMatchObject({ code: 'bad_bucket_id' });
  });

  it('downloads by name as a stream, whole or a range, including hostile names', async () => {
    const b2 = client();
    const name = 'hostile/ünïcödé-文件-🚀.txt';
    const whole = await b2.downloadFileByName({ bucketName: 'demo-private-assets', fileName: name });
    expect(whole).toMatchObject({ status: 200, fileName: name, contentType: 'text/plain' });
    expect(await new Response(whole.body).text()).toBe(`content of ${JSON.stringify(name)}`);
    const part = await b2.downloadFileByName({
      bucketName: 'demo-private-assets',
      fileName: 'docs/readme.txt',
      range: { first: 5, last: 10 },
    });
    expect(part.status).toBe(206);
    expect(await new Response(part.body).text()).toBe('readme');
    expect(await failure(b2.downloadFileByName({ bucketName: 'demo-private-assets', fileName: 'docs/old-draft.txt' }))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
  });

  it('Partner: groups, members, eject, create member, reserve trial', async () => {
    const b2 = client();
    const adminAccountId = sandbox.accountId;
    const { groups } = await b2.listGroups({ adminAccountId });
    const groupId = groups[0]!.groupId;
    expect((await b2.listGroupMembers({ adminAccountId, groupId, maxMemberCount: 1 })).nextEmail).toBe('bob@example.com');
    const created = await b2.createGroupMember({ adminAccountId, groupId, memberEmail: 'dana@example.com', region: 'eu-central' });
    expect(created.groupMember).toMatchObject({ email: 'dana@example.com', region: 'eu-central' });
    expect(await b2.ejectGroupMember({ adminAccountId, groupId, memberAccountId: created.groupMember.accountId })).toMatchObject({
      email: 'dana@example.com',
    });
    expect(await b2.reserveTrialCreateAccount({ email: 'erin@example.com', term: 7, storage: 1 })).toMatchObject({
      email: 'erin@example.com',
      endDate: '2026-04-22',
    });
    expect(await failure(b2.listGroupMembers({ adminAccountId, groupId: '999' }))).toMatchObject({ status: 400 });
    const appKey = await createKey(sandbox, { capabilities: ['listBuckets'] });
    const notMaster = client({ applicationKeyId: appKey.applicationKeyId, applicationKey: appKey.applicationKey });
    expect(await failure(notMaster.listGroups({ adminAccountId }))).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('capability and bucket restrictions surface as typed 401s', async () => {
    const siteId = await bucketIdOf(sandbox, 'demo-public-site');
    const key = await createKey(sandbox, { capabilities: ['listBuckets', 'listFiles'], bucketIds: [siteId] });
    const b2 = client({ applicationKeyId: key.applicationKeyId, applicationKey: key.applicationKey });
    expect((await b2.authorize()).allowed.buckets).toEqual([{ id: siteId, name: 'demo-public-site' }]);
    expect(await failure(b2.listBuckets())).toMatchObject({ status: 401, code: 'unauthorized' });
    expect((await b2.listBuckets({ bucketId: siteId })).buckets).toHaveLength(1);
    expect(await failure(b2.listFileNames({ bucketId: await bucketIdOf(sandbox, 'demo-private-assets') }))).toMatchObject({ status: 401 });
    expect(await failure(b2.createKey({ keyName: 'x', capabilities: ['listFiles'] }))).toMatchObject({
      status: 401,
      message: expect.stringMatching(/writeKeys/),
    });
  });
});

describe('retries and faults', () => {
  it('retries reads through 503s and 500s until they succeed, with no mutation', async () => {
    await setFaults('rate=0.5,kinds=500|503,seed=7,retryAfter=0');
    const b2 = client({ retry: { maxAttempts: 10, sleep: async (ms) => void sleeps.push(ms) } });
    const bucketId = await bucketIdOf(sandbox, 'demo-private-assets');
    for (let i = 0; i < 10; i++) {
      expect((await b2.listFileNames({ bucketId, maxFileCount: 5 })).files).toHaveLength(5);
      expect((await b2.listKeys()).keys.length).toBeGreaterThan(0);
    }
    const faulted = [...(await requests('b2_list_file_names')), ...(await requests('b2_list_keys'))].filter((r) => r.fault);
    expect(faulted.length).toBeGreaterThan(3);
    expect(retries.length).toBeGreaterThanOrEqual(faulted.length);
    expect(await mutations()).toEqual([]);
  });

  it('never replays a non-idempotent mutation whose response was lost', async () => {
    await setFaults('500:1@b2_create_key|b2_create_bucket,phase=after');
    const b2 = client();
    expect(await failure(b2.createKey({ keyName: 'lost-response', capabilities: ['listFiles'] }))).toMatchObject({
      status: 500,
      code: 'internal_error',
    });
    expect(await failure(b2.createBucket({ bucketName: 'lost-bucket-1', bucketType: 'allPrivate' }))).toMatchObject({ status: 500 });
    expect(await requests('b2_create_key')).toHaveLength(1);
    expect(await requests('b2_create_bucket')).toHaveLength(1);
    expect((await mutations()).map((m) => m.operation)).toEqual(['b2_create_key', 'b2_create_bucket']);
    expect(retries).toEqual([]);

    // A lost connection after the mutation applied is not replayed either.
    await setFaults('reset:1@b2_delete_key,phase=after');
    const key = await createKey(sandbox, { capabilities: ['listFiles'] });
    const error = await failure(b2.deleteKey({ applicationKeyId: key.applicationKeyId }));
    expect(error).toBeInstanceOf(B2TransportError);
    expect(error).toMatchObject({ status: 503, code: 'network_error' });
    expect(await requests('b2_delete_key')).toHaveLength(1);
    expect((await mutations()).filter((m) => m.operation === 'b2_delete_key')).toHaveLength(1);
  });

  it('retries 429 even for mutations (B2 did not process them) and honours Retry-After', async () => {
    await setFaults('429:1@b2_create_bucket,retryAfter=2');
    const b2 = client({ retry: { maxAttempts: 3, sleep: async (ms) => void sleeps.push(ms) } });
    expect(await failure(b2.createBucket({ bucketName: 'rate-limited-1', bucketType: 'allPrivate' }))).toMatchObject({
      status: 429,
      code: 'too_many_requests',
    });
    expect(sleeps).toEqual([2000, 2000]);
    expect(await requests('b2_create_bucket')).toHaveLength(3);
    expect(await mutations()).toEqual([]);
    await admin(sandbox, 'DELETE', '/faults');
    expect((await b2.createBucket({ bucketName: 'rate-limited-1', bucketType: 'allPrivate' })).bucketName).toBe('rate-limited-1');
  });

  it('stops retrying when the time budget would be exceeded', async () => {
    await setFaults('503:1@b2_list_buckets,retryAfter=5');
    const b2 = client({ retry: { maxAttempts: 10, budgetMs: 3000, sleep: async (ms) => void sleeps.push(ms) } });
    expect(await failure(b2.listBuckets())).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(sleeps).toEqual([]);
    expect(await requests('b2_list_buckets')).toHaveLength(1);
  });

  it('turns garbage into typed errors: HTML 500 pages and truncated JSON', async () => {
    await setFaults('garbage:1@b2_list_keys');
    const b2 = client({ retry: { maxAttempts: 2, sleep: async (ms) => void sleeps.push(ms) } });
    const html = await failure(b2.listKeys());
    expect(html).toBeInstanceOf(B2InvalidResponseError);
    expect(html).toMatchObject({ status: 500, code: 'invalid_response', message: expect.stringMatching(/HTTP 500, text\/html/) });
    expect(await requests('b2_list_keys')).toHaveLength(2);

    await setFaults('badjson:1@b2_list_buckets');
    const truncated = await failure(b2.listBuckets());
    expect(truncated).toBeInstanceOf(B2InvalidResponseError);
    expect(truncated).toMatchObject({ status: 200, code: 'invalid_response' });
    expect(await requests('b2_list_buckets')).toHaveLength(2); // a garbled read is asked again
  });

  it('never repeats a non-idempotent call whose answer was garbled', async () => {
    await setFaults('badjson:1@b2_create_bucket');
    const b2 = client({ retry: { maxAttempts: 3, sleep: async (ms) => void sleeps.push(ms) } });
    const error = await failure(b2.createBucket({ bucketName: 'garbled-answer-bucket', bucketType: 'allPrivate' }));
    expect(error).toMatchObject({ status: 200, code: 'invalid_response' });
    expect(await requests('b2_create_bucket')).toHaveLength(1);
  });

  it('times out a stalled request and reports it as request_timeout', async () => {
    await setFaults('stall:1@b2_list_file_names,stallMs=400');
    const b2 = client({ timeoutMs: 100, retry: { maxAttempts: 2, sleep: async (ms) => void sleeps.push(ms) } });
    const bucketId = await bucketIdOf(sandbox, 'demo-private-assets');
    const error = await failure(b2.listFileNames({ bucketId }));
    expect(error).toBeInstanceOf(B2TransportError);
    expect(error).toMatchObject({ status: 504, code: 'request_timeout' });
    expect(retries.map((r) => r.code)).toEqual(['request_timeout']);
  });

  it('lets the caller abort a call', async () => {
    await setFaults('stall:1@b2_list_buckets,stallMs=300');
    const controller = new AbortController();
    const pending = client().listBuckets({}, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await expect(pending).rejects.toThrow('caller gave up');
  });
});

describe('scale', () => {
  it('pages through 20,000 file versions with bounded pages', async () => {
    const bucketId = await bucketIdOf(sandbox, 'demo-empty-bucket');
    const bulk = await admin(sandbox, 'POST', '/bulk-versions', {
      bucketName: 'demo-empty-bucket',
      count: 20_000,
      versionsPerName: 2,
      size: 64,
    });
    expect(bulk).toMatchObject({ inserted: 20_000, fileVersions: 20_000 });
    const b2 = client();
    let total = 0;
    let pages = 0;
    let cursor: { startFileName?: string; startFileId?: string } = {};
    const ids = new Set<string>();
    for (;;) {
      const page = await b2.listFileVersions({ bucketId, maxFileCount: 1000, ...cursor });
      pages++;
      total += page.files.length;
      for (const f of page.files) ids.add(f.fileId!);
      if (!page.nextFileName) break;
      cursor = { startFileName: page.nextFileName, startFileId: page.nextFileId! };
    }
    expect({ total, pages, unique: ids.size }).toEqual({ total: 20_000, pages: 20, unique: 20_000 });
    const names = await b2.listFileNames({ bucketId, maxFileCount: 10_000 });
    expect(names.files).toHaveLength(10_000);
    expect(names.nextFileName).toBeNull();
  });
});
