/**
 * The sandbox's S3 API, driven by our S3 adapter (the AWS SDK), by plain fetch with presigned
 * URLs, and by hand-signed requests for the authentication edge cases.
 */
import { createHash } from 'node:crypto';
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { HOSTILE_FILE_NAMES } from '../../src/sandbox/seed.js';
import type { S3Adapter } from '../../src/server/s3/adapter.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { adapterFor, addFile, advanceClock, collect, DATA_CAPABILITIES, lastMutationSeq, mutationsSince } from '../support/s3.js';
import { testClock } from '../support/clock.js';
import { createKey as createAppKey, startTestSandbox, type SandboxKey } from '../support/sandbox-harness.js';
import { failure } from '../support/failure.js';

const BUCKET = 'demo-private-assets';
const LOCKED = 'demo-locked-records';
const MiB = 1024 * 1024;

let sandbox: RunningSandbox;
let key: SandboxKey;
let s3: S3Adapter;

const createKey = (target: RunningSandbox, capabilities = DATA_CAPABILITIES, extra: Record<string, unknown> = {}) =>
  createAppKey(target, { capabilities, ...extra });

beforeAll(async () => {
  sandbox = await startTestSandbox();
  key = await createKey(sandbox);
  s3 = adapterFor(sandbox, key);
});
afterAll(async () => {
  await sandbox.close();
});

/** A request signed by hand with the same signer the SDK uses, so single fields can be wrong on purpose. */
async function signedFetch(options: {
  method: string;
  path: string;
  query?: Record<string, string>;
  body?: Buffer;
  payloadHash?: string;
  secret?: string;
  region?: string;
  accessKeyId?: string;
  signingDate?: Date;
  /** Adds a Content-MD5 header: the body's digest, or this value. */
  contentMd5?: true | string;
}): Promise<Response> {
  const url = new URL(sandbox.s3Url);
  const body = options.body ?? Buffer.alloc(0);
  const request = new HttpRequest({
    method: options.method,
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path: options.path,
    query: options.query ?? {},
    headers: {
      host: url.host,
      'x-amz-content-sha256': options.payloadHash ?? createHash('sha256').update(body).digest('hex'),
      ...(body.length > 0 ? { 'content-length': String(body.length) } : {}),
      ...(options.contentMd5
        ? { 'content-md5': options.contentMd5 === true ? createHash('md5').update(body).digest('base64') : options.contentMd5 }
        : {}),
    },
    body,
  });
  const signer = new SignatureV4({
    credentials: { accessKeyId: options.accessKeyId ?? key.applicationKeyId, secretAccessKey: options.secret ?? key.applicationKey },
    region: options.region ?? 'us-west-004',
    service: 's3',
    sha256: Sha256,
    uriEscapePath: false,
  });
  const signed = await signer.sign(request, options.signingDate ? { signingDate: options.signingDate } : {});
  const query = new URLSearchParams(options.query ?? {}).toString();
  return fetch(`${sandbox.s3Url}${options.path}${query ? `?${query}` : ''}`, {
    method: options.method,
    headers: signed.headers,
    ...(options.method === 'GET' || options.method === 'HEAD' ? {} : { body }),
  });
}

async function xmlCode(response: Response): Promise<string | undefined> {
  return /<Code>([^<]+)<\/Code>/.exec(await response.text())?.[1];
}

describe('authentication', () => {
  test('a correctly signed request succeeds and a wrong secret gets SignatureDoesNotMatch', async () => {
    const ok = await signedFetch({ method: 'GET', path: `/${BUCKET}/docs/readme.txt` });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('Demo readme, revision 3.\n');
    const bad = await signedFetch({ method: 'GET', path: `/${BUCKET}/docs/readme.txt`, secret: `${key.applicationKey}x` });
    expect(bad.status).toBe(403);
    expect(await xmlCode(bad)).toBe('SignatureDoesNotMatch');
  });

  test('the master key is refused like B2 does, with the master-key hint in the tool error', async () => {
    const master = adapterFor(sandbox, { applicationKeyId: sandbox.applicationKeyId, applicationKey: sandbox.applicationKey });
    // HEAD answers carry no error body, so the code shows on a GET.
    expect(await failure(master.headBucket(BUCKET))).toMatchObject({ status: 403, code: 'AccessDenied' });
    const error = await failure(master.getBucketLocation(BUCKET));
    expect(error).toMatchObject({ status: 403, code: 'InvalidAccessKeyId' });
    expect(error.message).toContain('master key');
    const byAccountId = await signedFetch({
      method: 'GET',
      path: `/${BUCKET}/docs/readme.txt`,
      accessKeyId: sandbox.accountId,
      secret: sandbox.applicationKey,
    });
    expect(await xmlCode(byAccountId)).toBe('InvalidAccessKeyId');
  });

  test('unknown access keys, wrong regions and unsigned requests to private buckets are refused', async () => {
    const unknown = await signedFetch({ method: 'GET', path: `/${BUCKET}/docs/readme.txt`, accessKeyId: '005nosuchkey0000000000099' });
    expect([unknown.status, await xmlCode(unknown)]).toEqual([403, 'InvalidAccessKeyId']);
    const region = await signedFetch({ method: 'GET', path: `/${BUCKET}/docs/readme.txt`, region: 'us-east-1' });
    expect([region.status, await xmlCode(region)]).toEqual([400, 'AuthorizationHeaderMalformed']);
    const anonymous = await fetch(`${sandbox.s3Url}/${BUCKET}/docs/readme.txt`);
    expect([anonymous.status, await xmlCode(anonymous)]).toEqual([403, 'AccessDenied']);
  });

  test('anonymous reads of a public bucket work', async () => {
    await addFile(sandbox, 'demo-public-site', 'index.html', '<h1>hi</h1>');
    const response = await fetch(`${sandbox.s3Url}/demo-public-site/index.html`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('<h1>hi</h1>');
  });

  test('a body that does not match its signed SHA-256 is refused and nothing is stored', async () => {
    const before = await lastMutationSeq(sandbox);
    const response = await signedFetch({
      method: 'PUT',
      path: `/${BUCKET}/tampered.txt`,
      body: Buffer.from('actual bytes'),
      payloadHash: createHash('sha256').update('other bytes').digest('hex'),
    });
    expect([response.status, await xmlCode(response)]).toEqual([400, 'XAmzContentSHA256Mismatch']);
    expect(await mutationsSince(sandbox, before)).toEqual([]);
    expect(sandbox.store.latestVisible(sandbox.store.findBucketByName(BUCKET)!.bucketId, 'tampered.txt')).toBeUndefined();
  });

  test('requests signed too far from the sandbox clock are refused', async () => {
    const response = await signedFetch({
      method: 'GET',
      path: `/${BUCKET}/docs/readme.txt`,
      signingDate: new Date(testClock.now() - 3_600_000),
    });
    expect([response.status, await xmlCode(response)]).toEqual([403, 'RequestTimeTooSkewed']);
  });
});

describe('presigned URLs', () => {
  test('GET works with plain fetch; a tampered URL is refused', async () => {
    const url = await s3.presignGetObject({ bucket: BUCKET, key: 'reports/2025/q4.csv', expiresIn: 300 });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('us-west,1200');
    const flipped = url.replace(
      /(X-Amz-Signature=[0-9a-f]{63})([0-9a-f])/,
      (_, head: string, last: string) => head + (last === '0' ? '1' : '0'),
    );
    expect(flipped).not.toBe(url);
    for (const tampered of [url.replace('q4.csv', 'q3.csv'), url.replace('X-Amz-Expires=300', 'X-Amz-Expires=301'), flipped]) {
      const refused = await fetch(tampered);
      expect(refused.status).toBe(403);
      expect(await xmlCode(refused)).toBe('SignatureDoesNotMatch');
    }
  });

  test('an expired URL is refused', async () => {
    // Its own sandbox: moving the clock must not skew the other tests.
    const other = await startTestSandbox();
    try {
      const url = await adapterFor(other, await createKey(other)).presignGetObject({
        bucket: BUCKET,
        key: 'reports/2025/q4.csv',
        expiresIn: 60,
      });
      expect((await fetch(url)).status).toBe(200);
      await advanceClock(other, 61_000);
      const response = await fetch(url);
      expect(response.status).toBe(403);
      expect(await response.text()).toContain('Request has expired');
    } finally {
      await other.close();
    }
  });

  test('PUT stores the bytes; a signed Content-Type must be sent as signed', async () => {
    const url = await s3.presignPutObject({ bucket: BUCKET, key: 'presigned/note.txt', contentType: 'text/plain', expiresIn: 300 });
    const wrongType = await fetch(url, { method: 'PUT', body: 'x', headers: { 'content-type': 'text/html' } });
    expect(wrongType.status).toBe(403);
    const put = await fetch(url, { method: 'PUT', body: 'presigned body', headers: { 'content-type': 'text/plain' } });
    expect(put.status).toBe(200);
    const object = await s3.getObject({ bucket: BUCKET, key: 'presigned/note.txt' });
    expect(object.contentType).toBe('text/plain');
    expect((await collect(object.body)).toString()).toBe('presigned body');
  });
});

describe('objects', () => {
  test('Range reads return 206 slices; an unsatisfiable range is InvalidRange', async () => {
    const slice = await s3.getObject({ bucket: BUCKET, key: 'docs/readme.txt', range: 'bytes=5-10' });
    expect((await collect(slice.body)).toString()).toBe('readme');
    expect(slice.contentRange).toBe('bytes 5-10/25');
    expect(await failure(s3.getObject({ bucket: BUCKET, key: 'docs/readme.txt', range: 'bytes=100-200' }))).toMatchObject({
      status: 416,
      code: 'InvalidRange',
    });
  });

  test('missing keys, versions and buckets get NoSuchKey, NoSuchVersion, NoSuchBucket', async () => {
    expect(await failure(s3.getObject({ bucket: BUCKET, key: 'nope' }))).toMatchObject({ status: 404, code: 'NoSuchKey' });
    expect(await failure(s3.headObject({ bucket: BUCKET, key: 'nope' }))).toMatchObject({ status: 404, code: 'NoSuchKey' });
    expect(await failure(s3.getObject({ bucket: BUCKET, key: 'docs/readme.txt', versionId: 'bogus' }))).toMatchObject({
      status: 404,
      code: 'NoSuchVersion',
    });
    expect(await failure(s3.listObjectsV2({ bucket: 'no-such-bucket-here' }))).toMatchObject({ status: 404, code: 'NoSuchBucket' });
    expect(await failure(s3.headBucket('no-such-bucket-here'))).toMatchObject({ status: 404, code: 'NoSuchBucket' });
  });

  test('objects put through S3 are native file versions, and native uploads are S3 objects', async () => {
    const put = await s3.putObject({
      bucket: BUCKET,
      key: 'shared/from-s3.txt',
      body: Buffer.from('via s3'),
      contentType: 'text/plain',
      metadata: { origin: 's3' },
    });
    const bucket = sandbox.store.findBucketByName(BUCKET)!;
    const native = sandbox.store.latestVisible(bucket.bucketId, 'shared/from-s3.txt')!;
    expect(native.fileId).toBe(put.versionId);
    expect(native.fileInfo).toEqual({ origin: 's3' });
    expect(native.contentSha1).toBe(createHash('sha1').update('via s3').digest('hex'));
    const added = await addFile(sandbox, BUCKET, 'shared/from-native.txt', 'via native');
    const object = await s3.getObject({ bucket: BUCKET, key: 'shared/from-native.txt' });
    expect(object.versionId).toBe(added.fileId);
    expect((await collect(object.body)).toString()).toBe('via native');
  });

  test('a large upload is streamed to disk, not kept in memory', async () => {
    const body = Buffer.alloc(3 * MiB, 7);
    const put = await s3.putObject({ bucket: BUCKET, key: 'big/three-mib.bin', body });
    const stored = sandbox.store.findFile(put.versionId!)!;
    expect(stored.body?.kind).toBe('file');
    expect(put.etag).toBe(`"${createHash('md5').update(body).digest('hex')}"`);
    const back = await collect((await s3.getObject({ bucket: BUCKET, key: 'big/three-mib.bin' })).body);
    expect(back.equals(body)).toBe(true);
  });

  test('copy keeps or replaces metadata; copying onto itself unchanged is refused', async () => {
    await s3.putObject({ bucket: BUCKET, key: 'copy/src.txt', body: Buffer.from('src'), contentType: 'text/plain', metadata: { a: '1' } });
    await s3.copyObject({
      sourceBucket: BUCKET,
      sourceKey: 'copy/src.txt',
      destinationBucket: 'demo-empty-bucket',
      destinationKey: 'kept.txt',
      metadataDirective: 'COPY',
    });
    const kept = await s3.headObject({ bucket: 'demo-empty-bucket', key: 'kept.txt' });
    expect([kept.contentType, kept.metadata]).toEqual(['text/plain', { a: '1' }]);
    await s3.copyObject({
      sourceBucket: BUCKET,
      sourceKey: 'copy/src.txt',
      destinationBucket: BUCKET,
      destinationKey: 'copy/replaced.txt',
      metadataDirective: 'REPLACE',
      metadata: { b: '2' },
      contentType: 'text/markdown',
    });
    const replaced = await s3.headObject({ bucket: BUCKET, key: 'copy/replaced.txt' });
    expect([replaced.contentType, replaced.metadata]).toEqual(['text/markdown', { b: '2' }]);
    const self = await failure(
      s3.copyObject({
        sourceBucket: BUCKET,
        sourceKey: 'copy/src.txt',
        destinationBucket: BUCKET,
        destinationKey: 'copy/src.txt',
        metadataDirective: 'COPY',
      }),
    );
    expect(self).toMatchObject({ status: 400, code: 'InvalidRequest' });
    await s3.deleteObject({ bucket: 'demo-empty-bucket', key: 'kept.txt', versionId: kept.versionId });
  });

  test('a versionless delete hides the object behind a delete marker (a B2 hide marker)', async () => {
    const put = await s3.putObject({ bucket: BUCKET, key: 'hidden/me.txt', body: Buffer.from('v1') });
    const deleted = await s3.deleteObject({ bucket: BUCKET, key: 'hidden/me.txt' });
    expect(deleted.deleteMarker).toBe(true);
    expect(sandbox.store.findFile(deleted.versionId!)?.action).toBe('hide');
    expect(await failure(s3.getObject({ bucket: BUCKET, key: 'hidden/me.txt' }))).toMatchObject({ code: 'NoSuchKey' });
    const versions = await s3.listObjectVersions({ bucket: BUCKET, prefix: 'hidden/' });
    expect(versions.deleteMarkers).toEqual([
      expect.objectContaining({ key: 'hidden/me.txt', versionId: deleted.versionId, isLatest: true }),
    ]);
    expect(versions.versions).toEqual([expect.objectContaining({ versionId: put.versionId, isLatest: false })]);
    // The old version is still readable by id, and deleting it by id removes it for good.
    expect((await collect((await s3.getObject({ bucket: BUCKET, key: 'hidden/me.txt', versionId: put.versionId })).body)).toString()).toBe(
      'v1',
    );
    await s3.deleteObject({ bucket: BUCKET, key: 'hidden/me.txt', versionId: put.versionId });
    expect(sandbox.store.findFile(put.versionId!)).toBeUndefined();
  });

  test('a versionless delete adds a delete marker even for a key that never existed or is already hidden', async () => {
    const never = await s3.deleteObject({ bucket: BUCKET, key: 'del/never-existed.txt' });
    expect(never.deleteMarker).toBe(true);
    expect(sandbox.store.findFile(never.versionId!)).toMatchObject({ action: 'hide', fileName: 'del/never-existed.txt' });
    const again = await s3.deleteObject({ bucket: BUCKET, key: 'del/never-existed.txt' });
    expect(again.deleteMarker).toBe(true);
    expect(again.versionId).not.toBe(never.versionId);
    const versions = await s3.listObjectVersions({ bucket: BUCKET, prefix: 'del/never-existed' });
    expect(versions.versions).toEqual([]);
    expect(versions.deleteMarkers.map((m) => [m.versionId, m.isLatest])).toEqual([
      [again.versionId, true],
      [never.versionId, false],
    ]);
  });

  test('DeleteObjects reports per-object results and errors', async () => {
    await s3.putObject({ bucket: BUCKET, key: 'bulk/a', body: Buffer.from('a') });
    const result = await s3.deleteObjects({
      bucket: BUCKET,
      objects: [{ key: 'bulk/a' }, { key: 'bulk/missing-version', versionId: 'nope' }],
      quiet: false,
      bypassGovernance: false,
    });
    expect(result.deleted).toEqual([expect.objectContaining({ key: 'bulk/a', deleteMarker: true })]);
    expect(result.errors).toEqual([expect.objectContaining({ key: 'bulk/missing-version', code: 'NoSuchVersion' })]);
  });
});

describe('Object Lock applies to S3 deletes', () => {
  test('legal hold blocks a versioned delete; governance retention needs the bypass', async () => {
    const put = await s3.putObject({ bucket: LOCKED, key: 'held.txt', body: Buffer.from('evidence') });
    const locked = sandbox.store.findFile(put.versionId!)!;
    expect(locked.retention?.mode).toBe('governance');
    sandbox.store.setLegalHold(locked.fileId, locked.fileName, 'on');
    const held = await failure(s3.deleteObject({ bucket: LOCKED, key: 'held.txt', versionId: put.versionId }));
    expect(held).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(held.message).toContain('legal hold');
    sandbox.store.setLegalHold(locked.fileId, locked.fileName, 'off');
    const retained = await failure(s3.deleteObject({ bucket: LOCKED, key: 'held.txt', versionId: put.versionId }));
    expect(retained.message).toContain('governance');
    const bulk = await s3.deleteObjects({
      bucket: LOCKED,
      objects: [{ key: 'held.txt', versionId: put.versionId! }],
      quiet: true,
      bypassGovernance: true,
    });
    expect(bulk.errors).toEqual([]);
    expect(sandbox.store.findFile(put.versionId!)).toBeUndefined();
  });

  test('bypassing governance needs the bypassGovernance capability', async () => {
    const limited = adapterFor(sandbox, await createKey(sandbox, ['listBuckets', 'listFiles', 'readFiles', 'writeFiles', 'deleteFiles']));
    const put = await limited.putObject({ bucket: LOCKED, key: 'limited.txt', body: Buffer.from('x') });
    const error = await failure(
      limited.deleteObjects({
        bucket: LOCKED,
        objects: [{ key: 'limited.txt', versionId: put.versionId! }],
        quiet: true,
        bypassGovernance: true,
      }),
    );
    expect(error).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(sandbox.store.findFile(put.versionId!)).toBeDefined();
  });
});

describe('listings', () => {
  test('ListObjectsV2 pages through names and common prefixes exactly once', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await s3.listObjectsV2({ bucket: BUCKET, delimiter: '/', maxKeys: 2, continuationToken: token });
      seen.push(...page.commonPrefixes, ...page.objects.map((o) => o.key));
      token = page.nextContinuationToken;
      pages++;
    } while (token);
    const all = await s3.listObjectsV2({ bucket: BUCKET, delimiter: '/' });
    expect(pages).toBeGreaterThan(2);
    expect(seen.sort()).toEqual([...all.commonPrefixes, ...all.objects.map((o) => o.key)].sort());
    expect(new Set(seen).size).toBe(seen.length);
    expect(all.commonPrefixes).toContain('hostile/');
  });

  test('hostile key names survive the XML round trip exactly', async () => {
    const listed = await s3.listObjectsV2({ bucket: BUCKET, prefix: 'hostile/' });
    expect(listed.objects.map((o) => o.key).sort()).toEqual([...HOSTILE_FILE_NAMES].sort());
    for (const name of HOSTILE_FILE_NAMES) {
      const object = await s3.getObject({ bucket: BUCKET, key: name });
      expect((await collect(object.body)).toString()).toBe(`content of ${JSON.stringify(name)}`);
    }
  });

  test('start-after is exclusive', async () => {
    const after = await s3.listObjectsV2({ bucket: BUCKET, prefix: 'docs/', startAfter: 'docs/old-draft.txt' });
    expect(after.objects.map((o) => o.key)).toEqual(['docs/readme.txt']);
  });

  test('ListObjectVersions pages through every version exactly once', async () => {
    const seen: string[] = [];
    let marker: { keyMarker?: string; versionIdMarker?: string } = {};
    for (;;) {
      const page = await s3.listObjectVersions({ bucket: BUCKET, prefix: 'docs/', maxKeys: 2, ...marker });
      seen.push(...page.versions.map((v) => v.versionId!), ...page.deleteMarkers.map((m) => m.versionId!));
      if (!page.isTruncated) break;
      marker = { keyMarker: page.nextKeyMarker, versionIdMarker: page.nextVersionIdMarker };
    }
    const all = await s3.listObjectVersions({ bucket: BUCKET, prefix: 'docs/' });
    expect(seen.sort()).toEqual([...all.versions.map((v) => v.versionId!), ...all.deleteMarkers.map((m) => m.versionId!)].sort());
    // docs/readme.txt has three versions (newest is latest); docs/old-draft.txt is hidden.
    expect(all.versions.filter((v) => v.key === 'docs/readme.txt').map((v) => v.isLatest)).toEqual([true, false, false]);
    expect(all.deleteMarkers).toEqual([expect.objectContaining({ key: 'docs/old-draft.txt', isLatest: true })]);
  });
});

describe('multipart uploads', () => {
  test('parts assemble into the exact bytes; the upload is a native unfinished large file meanwhile', async () => {
    const upload = await s3.createMultipartUpload({ bucket: BUCKET, key: 'mp/assembled.bin', contentType: 'application/x-test' });
    const unfinished = sandbox.store.listUnfinishedLargeFiles(sandbox.store.findBucketByName(BUCKET)!.bucketId, {
      maxFileCount: 100,
    }).files;
    expect(unfinished.map((f) => f.fileId)).toContain(upload.uploadId);
    const first = Buffer.alloc(5 * MiB, 1);
    const second = Buffer.from('the tail');
    const etags: string[] = [];
    for (const [i, body] of [first, second].entries()) {
      const url = await s3.presignUploadPart({ ...upload, partNumber: i + 1, expiresIn: 300 });
      const response = await fetch(url, { method: 'PUT', body });
      expect(response.status).toBe(200);
      etags.push(response.headers.get('etag')!);
    }
    const parts = await s3.listParts(upload);
    expect(parts.parts.map((p) => [p.partNumber, p.size])).toEqual([
      [1, first.length],
      [2, second.length],
    ]);
    const done = await s3.completeMultipartUpload({ ...upload, parts: etags.map((etag, i) => ({ partNumber: i + 1, etag })) });
    expect(done.etag).toMatch(/^"[0-9a-f]{32}-2"$/);
    const back = await collect((await s3.getObject({ bucket: BUCKET, key: 'mp/assembled.bin' })).body);
    const expected = Buffer.concat([first, second]);
    expect(createHash('sha256').update(back).digest('hex')).toBe(createHash('sha256').update(expected).digest('hex'));
  });

  test('small parts, wrong ETags, wrong order and unknown uploads are refused with S3 codes', async () => {
    const upload = await s3.createMultipartUpload({ bucket: BUCKET, key: 'mp/refused.bin' });
    const etags: string[] = [];
    for (const n of [1, 2]) {
      const response = await fetch(await s3.presignUploadPart({ ...upload, partNumber: n, expiresIn: 300 }), {
        method: 'PUT',
        body: `part ${n}`,
      });
      etags.push(response.headers.get('etag')!);
    }
    const complete = (parts: Array<{ partNumber: number; etag: string }>) => failure(s3.completeMultipartUpload({ ...upload, parts }));
    expect(
      await complete([
        { partNumber: 1, etag: etags[0]! },
        { partNumber: 2, etag: etags[1]! },
      ]),
    ).toMatchObject({ status: 400, code: 'EntityTooSmall' });
    expect(await complete([{ partNumber: 1, etag: '"0000"' }])).toMatchObject({ status: 400, code: 'InvalidPart' });
    expect(
      await complete([
        { partNumber: 2, etag: etags[1]! },
        { partNumber: 1, etag: etags[0]! },
      ]),
    ).toMatchObject({ status: 400, code: 'InvalidPartOrder' });
    expect(await failure(s3.listParts({ ...upload, uploadId: 'no-such-upload' }))).toMatchObject({ status: 404, code: 'NoSuchUpload' });
    await s3.abortMultipartUpload(upload);
    expect(await failure(s3.listParts(upload))).toMatchObject({ code: 'NoSuchUpload' });
  });

  test('completing an upload again answers with the same result and changes nothing, as S3 does', async () => {
    const upload = await s3.createMultipartUpload({ bucket: BUCKET, key: 'mp/twice.bin' });
    const response = await fetch(await s3.presignUploadPart({ ...upload, partNumber: 1, expiresIn: 300 }), {
      method: 'PUT',
      body: 'only part',
    });
    const parts = [{ partNumber: 1, etag: response.headers.get('etag')! }];
    const first = await s3.completeMultipartUpload({ ...upload, parts });
    const since = await lastMutationSeq(sandbox);
    const second = await s3.completeMultipartUpload({ ...upload, parts });
    expect(second).toEqual(first);
    expect(first.etag).toBe(
      `"${createHash('md5')
        .update(Buffer.from(createHash('md5').update('only part').digest('hex'), 'hex'))
        .digest('hex')}-1"`,
    );
    expect(await mutationsSince(sandbox, since)).toEqual([]);
    // Once that version is gone, the upload id names nothing.
    await s3.deleteObject({ bucket: BUCKET, key: 'mp/twice.bin', versionId: first.versionId });
    expect(await failure(s3.completeMultipartUpload({ ...upload, parts }))).toMatchObject({ status: 404, code: 'NoSuchUpload' });
  });

  test('UploadPartCopy copies a byte range of another object into a part', async () => {
    await s3.putObject({ bucket: BUCKET, key: 'mp/source.txt', body: Buffer.from('0123456789') });
    const upload = await s3.createMultipartUpload({ bucket: BUCKET, key: 'mp/copied.txt' });
    const part = await s3.uploadPartCopy({
      ...upload,
      partNumber: 1,
      sourceBucket: BUCKET,
      sourceKey: 'mp/source.txt',
      sourceRange: 'bytes=2-5',
    });
    await s3.completeMultipartUpload({ ...upload, parts: [{ partNumber: 1, etag: part.etag! }] });
    expect((await collect((await s3.getObject({ bucket: BUCKET, key: 'mp/copied.txt' })).body)).toString()).toBe('2345');
    const outside = await s3.createMultipartUpload({ bucket: BUCKET, key: 'mp/outside.txt' });
    expect(
      await failure(
        s3.uploadPartCopy({ ...outside, partNumber: 1, sourceBucket: BUCKET, sourceKey: 'mp/source.txt', sourceRange: 'bytes=5-50' }),
      ),
    ).toMatchObject({
      status: 416,
      code: 'InvalidRange',
    });
  });

  test('ListMultipartUploads lists uploads in key order and rolls up common prefixes', async () => {
    const a = await s3.createMultipartUpload({ bucket: 'demo-empty-bucket', key: 'a.bin' });
    const b = await s3.createMultipartUpload({ bucket: 'demo-empty-bucket', key: 'dir/b.bin' });
    const listed = await s3.listMultipartUploads({ bucket: 'demo-empty-bucket', delimiter: '/' });
    expect(listed.uploads.map((u) => u.key)).toEqual(['a.bin']);
    expect(listed.commonPrefixes).toEqual(['dir/']);
    const paged = await s3.listMultipartUploads({ bucket: 'demo-empty-bucket', maxUploads: 1 });
    expect([paged.isTruncated, paged.nextKeyMarker]).toEqual([true, 'a.bin']);
    const next = await s3.listMultipartUploads({
      bucket: 'demo-empty-bucket',
      keyMarker: paged.nextKeyMarker,
      uploadIdMarker: paged.nextUploadIdMarker,
    });
    expect(next.uploads.map((u) => u.uploadId)).toEqual([b.uploadId]);
    await s3.abortMultipartUpload({ bucket: 'demo-empty-bucket', ...a });
    await s3.abortMultipartUpload({ bucket: 'demo-empty-bucket', ...b });
  });
});

describe('buckets', () => {
  test('HeadBucket and GetBucketLocation report the sandbox region', async () => {
    expect(await s3.headBucket(BUCKET)).toEqual({ bucket: BUCKET, region: 'us-west-004' });
    expect(await s3.getBucketLocation(BUCKET)).toEqual({ bucket: BUCKET, region: 'us-west-004' });
  });

  test("lifecycle rules become the bucket's B2 lifecycle rules; transitions are refused; delete clears", async () => {
    await s3.putBucketLifecycle('demo-empty-bucket', [
      {
        id: 'logs',
        status: 'Enabled',
        filter: { prefix: 'logs/' },
        expiration: { days: 30 },
        noncurrentVersionExpiration: { noncurrentDays: 7 },
      },
      { id: 'uploads', status: 'Enabled', abortIncompleteMultipartUpload: { daysAfterInitiation: 3 } },
      { id: 'off', status: 'Disabled', filter: { prefix: 'tmp/' }, expiration: { days: 1 } },
    ]);
    expect(sandbox.store.findBucketByName('demo-empty-bucket')!.lifecycleRules).toEqual([
      {
        fileNamePrefix: 'logs/',
        daysFromUploadingToHiding: 30,
        daysFromHidingToDeleting: 7,
        daysFromStartingToCancelingUnfinishedLargeFiles: null,
      },
      {
        fileNamePrefix: '',
        daysFromUploadingToHiding: null,
        daysFromHidingToDeleting: null,
        daysFromStartingToCancelingUnfinishedLargeFiles: 3,
      },
    ]);
    const transition = await signedFetch({
      method: 'PUT',
      path: '/demo-empty-bucket',
      query: { lifecycle: '' },
      body: Buffer.from(
        '<LifecycleConfiguration><Rule><ID>t</ID><Status>Enabled</Status><Filter><Prefix></Prefix></Filter><Transition><Days>1</Days><StorageClass>GLACIER</StorageClass></Transition></Rule></LifecycleConfiguration>',
      ),
      contentMd5: true,
    });
    expect([transition.status, await xmlCode(transition)]).toEqual([400, 'InvalidArgument']);
    await s3.deleteBucketLifecycle('demo-empty-bucket');
    expect(sandbox.store.findBucketByName('demo-empty-bucket')!.lifecycleRules).toEqual([]);
  });

  test('lifecycle rules S3 refuses are refused: a rule without an action, Days together with ExpiredObjectDeleteMarker', async () => {
    const before = sandbox.store.findBucketByName('demo-empty-bucket')!.lifecycleRules;
    const since = await lastMutationSeq(sandbox);
    expect(
      await failure(s3.putBucketLifecycle('demo-empty-bucket', [{ id: 'idle', status: 'Enabled', filter: { prefix: 'x/' } }])),
    ).toMatchObject({
      status: 400,
      code: 'InvalidRequest',
      message: expect.stringContaining('At least one action'),
    });
    expect(
      await failure(
        s3.putBucketLifecycle('demo-empty-bucket', [
          { id: 'both', status: 'Enabled', expiration: { days: 3, expiredObjectDeleteMarker: true } },
        ]),
      ),
    ).toMatchObject({ status: 400, code: 'MalformedXML', message: expect.stringContaining('ExpiredObjectDeleteMarker') });
    expect(await mutationsSince(sandbox, since)).toEqual([]);
    expect(sandbox.store.findBucketByName('demo-empty-bucket')!.lifecycleRules).toEqual(before);
  });

  test('malformed XML bodies get MalformedXML', async () => {
    const response = await signedFetch({
      method: 'POST',
      path: `/${BUCKET}`,
      query: { delete: '' },
      body: Buffer.from('<Delete><Object><Key>x</Key></Delete>'),
      contentMd5: true,
    });
    expect([response.status, await xmlCode(response)]).toEqual([400, 'MalformedXML']);
  });

  test('DeleteObjects needs a matching integrity header (Content-MD5 or CRC32)', async () => {
    const body = Buffer.from('<Delete><Object><Key>never-there</Key></Object></Delete>');
    const missing = await signedFetch({ method: 'POST', path: `/${BUCKET}`, query: { delete: '' }, body });
    expect([missing.status, await xmlCode(missing)]).toEqual([400, 'InvalidRequest']);
    const wrong = await signedFetch({
      method: 'POST',
      path: `/${BUCKET}`,
      query: { delete: '' },
      body,
      contentMd5: createHash('md5').update('other').digest('base64'),
    });
    expect([wrong.status, await xmlCode(wrong)]).toEqual([400, 'BadDigest']);
    const right = await signedFetch({ method: 'POST', path: `/${BUCKET}`, query: { delete: '' }, body, contentMd5: true });
    expect(right.status).toBe(200);
  });
});

describe('key restrictions', () => {
  test('a bucket-restricted key cannot touch other buckets; a name prefix limits keys', async () => {
    const restricted = adapterFor(
      sandbox,
      await createKey(sandbox, ['listBuckets', 'listFiles', 'readFiles', 'writeFiles'], {
        bucketNames: ['demo-empty-bucket'],
        namePrefix: 'team/',
      }),
    );
    expect(await failure(restricted.getObject({ bucket: BUCKET, key: 'docs/readme.txt' }))).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
    expect(await failure(restricted.putObject({ bucket: 'demo-empty-bucket', key: 'other/x', body: Buffer.from('x') }))).toMatchObject({
      code: 'AccessDenied',
    });
    await restricted.putObject({ bucket: 'demo-empty-bucket', key: 'team/x', body: Buffer.from('x') });
    expect(await failure(restricted.listObjectsV2({ bucket: 'demo-empty-bucket' }))).toMatchObject({ code: 'AccessDenied' });
    expect((await restricted.listObjectsV2({ bucket: 'demo-empty-bucket', prefix: 'team/' })).objects.map((o) => o.key)).toEqual([
      'team/x',
    ]);
  });

  test('a read-only key cannot write', async () => {
    const reader = adapterFor(sandbox, await createKey(sandbox, ['listBuckets', 'listFiles', 'readFiles']));
    expect(await failure(reader.putObject({ bucket: BUCKET, key: 'nope.txt', body: Buffer.from('x') }))).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
  });
});

describe('request log and faults', () => {
  test('S3 requests are logged by operation, and injected faults use S3 error XML', async () => {
    await fetch(`${sandbox.adminUrl}/faults`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${sandbox.adminToken}` },
      body: JSON.stringify({ spec: '503:1@GetObject' }),
    });
    try {
      const response = await signedFetch({ method: 'GET', path: `/${BUCKET}/docs/readme.txt` });
      expect([response.status, await xmlCode(response), response.headers.get('retry-after')]).toEqual([503, 'ServiceUnavailable', '1']);
    } finally {
      await fetch(`${sandbox.adminUrl}/faults`, { method: 'DELETE', headers: { authorization: `Bearer ${sandbox.adminToken}` } });
    }
    const log = (await (
      await fetch(`${sandbox.adminUrl}/requests?operation=GetObject`, { headers: { authorization: `Bearer ${sandbox.adminToken}` } })
    ).json()) as { requests: Array<{ api: string; status: number; fault?: string }> };
    expect(log.requests.some((r) => r.api === 's3' && r.status === 503 && r.fault === '503')).toBe(true);
  });
});
