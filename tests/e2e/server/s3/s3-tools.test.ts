/**
 * The 19 s3_* tools end to end: the built server on stdio, driven by the official MCP client,
 * pointed at the sandbox. Each tool shows a success and an S3 error; the gated ones also show
 * the refusal with no sandbox mutation.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createB2NativeClient } from '../../../../src/server/b2/native-client.js';
import type { Connected } from '../../../support/server-harness.js';
import {
  ALL_KEY_CAPABILITIES,
  connectToSandbox,
  createKey,
  startTestSandbox,
  textOf,
  type SandboxKey,
} from '../../../support/sandbox-harness.js';
import type { RunningSandbox } from '../../../../src/sandbox/index.js';
import { advanceClock, lastMutationSeq, lastRequestSeq, mutationsSince, requestsSince } from '../../../support/s3.js';

const BUCKET = 'demo-private-assets';
const MiB = 1024 * 1024;

let sandbox: RunningSandbox;
let key: SandboxKey;
let client: Connected;
let root: string;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  key = await createKey(sandbox, { capabilities: ALL_KEY_CAPABILITIES });
  root = mkdtempSync(join(tmpdir(), 's3-tools-'));
  client = await connectToSandbox(sandbox, key, { env: { B2_MCP_PROFILE: 'full', B2_ALLOW_LOCAL_FILES: 'true', B2_FILE_ROOT: root } });
});
afterAll(async () => {
  await client?.close();
  await sandbox?.close();
  rmSync(root, { recursive: true, force: true });
});

async function ok(name: string, args: Record<string, unknown>): Promise<Record<string, unknown> & { text: string }> {
  const result = await client.callTool(name, args);
  expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
  return { ...((result.structuredContent as Record<string, unknown>) ?? {}), text: textOf(result) };
}

/** A tool error: `B2 Error [code] (HTTP status): message`. */
async function fails(
  name: string,
  args: Record<string, unknown>,
  connection = client,
): Promise<{ code: string; status: number; text: string }> {
  const result = await connection.callTool(name, args);
  expect(result.isError, `${name} should fail`).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const text = textOf(result);
  const match = /^B2 Error \[([^\]]+)\] \(HTTP (\d+)\): /.exec(text);
  expect(match, text).not.toBeNull();
  return { code: match![1]!, status: Number(match![2]), text };
}

/** Runs a refused call and proves the sandbox saw no change. */
async function refusedWithoutMutation(name: string, args: Record<string, unknown>): Promise<string> {
  const before = await lastMutationSeq(sandbox);
  const error = await fails(name, args);
  expect([error.status, error.code]).toEqual([409, 'destructive_confirmation_required']);
  expect(await mutationsSince(sandbox, before)).toEqual([]);
  return error.text;
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('buckets', () => {
  test('s3_head_bucket', async () => {
    expect((await ok('s3_head_bucket', { bucket: BUCKET })).text).toContain(`Bucket ${BUCKET} exists`);
    expect(await fails('s3_head_bucket', { bucket: 'no-such-bucket-x' })).toMatchObject({ status: 404, code: 'NoSuchBucket' });
  });

  test('s3_get_bucket_location', async () => {
    expect(await ok('s3_get_bucket_location', { bucket: BUCKET })).toMatchObject({ bucket: BUCKET, region: 'us-west-004' });
    expect(await fails('s3_get_bucket_location', { bucket: 'no-such-bucket-x' })).toMatchObject({ status: 404, code: 'NoSuchBucket' });
  });

  test('s3_put_bucket_lifecycle: clearing, expiring and cancelling every unfinished upload are all gated', async () => {
    const text = await refusedWithoutMutation('s3_put_bucket_lifecycle', { bucket: 'demo-empty-bucket', rules: [] });
    expect(text).toContain('"confirm": true');
    await refusedWithoutMutation('s3_put_bucket_lifecycle', {
      bucket: 'demo-empty-bucket',
      rules: [{ id: 'x', status: 'Enabled', expiration: { days: 3 } }],
    });
    // Bucket-wide, what s3_abort_multipart_upload does to one upload (and that asks).
    const abortRules = [{ id: 'uploads', status: 'Enabled', abortIncompleteMultipartUpload: { daysAfterInitiation: 2 } }];
    const cancelling = await refusedWithoutMutation('s3_put_bucket_lifecycle', { bucket: 'demo-empty-bucket', rules: abortRules });
    expect(cancelling).toContain('this would schedule cancellation of unfinished multipart uploads, discarding their uploaded parts');
    await refusedWithoutMutation('s3_put_bucket_lifecycle', {
      bucket: 'demo-empty-bucket',
      rules: [{ ...abortRules[0]!, status: 'Disabled' }],
    });
    const set = await ok('s3_put_bucket_lifecycle', { bucket: 'demo-empty-bucket', rules: abortRules, confirm: true });
    expect(set.text).toContain('1 rule(s)');
    const native = createB2NativeClient({
      apiUrl: sandbox.apiUrl,
      applicationKeyId: key.applicationKeyId,
      applicationKey: key.applicationKey,
    });
    const { buckets } = await native.listBuckets({ bucketName: 'demo-empty-bucket' });
    expect(buckets[0]!.lifecycleRules).toEqual([
      {
        fileNamePrefix: '',
        daysFromHidingToDeleting: null,
        daysFromUploadingToHiding: null,
        daysFromStartingToCancelingUnfinishedLargeFiles: 2,
      },
    ]);
    expect((await ok('s3_put_bucket_lifecycle', { bucket: 'demo-empty-bucket', rules: [], confirm: true })).text).toContain('Removed');
    expect((await native.listBuckets({ bucketName: 'demo-empty-bucket' })).buckets[0]!.lifecycleRules).toEqual([]);
    expect(await fails('s3_put_bucket_lifecycle', { bucket: 'no-such-bucket-x', rules: abortRules, confirm: true })).toMatchObject({
      code: 'NoSuchBucket',
    });
  });
});

describe('objects', () => {
  test('s3_list_objects_v2', async () => {
    const page = await ok('s3_list_objects_v2', { bucket: BUCKET, prefix: 'docs/' });
    expect((page.objects as Array<{ key: string }>).map((o) => o.key)).toEqual(['docs/readme.txt']);
    expect(await fails('s3_list_objects_v2', { bucket: 'no-such-bucket-x' })).toMatchObject({ status: 404, code: 'NoSuchBucket' });
  });

  test('s3_list_object_versions', async () => {
    const page = await ok('s3_list_object_versions', { bucket: BUCKET, prefix: 'docs/readme' });
    expect((page.versions as unknown[]).length).toBe(3);
    expect(await fails('s3_list_object_versions', { bucket: 'no-such-bucket-x' })).toMatchObject({ status: 404, code: 'NoSuchBucket' });
  });

  test('s3_head_object', async () => {
    expect(await ok('s3_head_object', { bucket: BUCKET, key: 'docs/readme.txt' })).toMatchObject({
      contentLength: 25,
      contentType: 'text/plain',
    });
    expect(await fails('s3_head_object', { bucket: BUCKET, key: 'missing.txt' })).toMatchObject({ status: 404, code: 'NoSuchKey' });
  });

  test('s3_get_object inline: text as UTF-8, binary as base64, ranges, and the 1 MiB limit', async () => {
    expect(await ok('s3_get_object', { bucket: BUCKET, key: 'docs/readme.txt' })).toMatchObject({
      encoding: 'utf8',
      content: 'Demo readme, revision 3.\n',
    });
    const logo = await ok('s3_get_object', { bucket: BUCKET, key: 'images/logo.png' });
    expect(logo.encoding).toBe('base64');
    expect(Buffer.from(logo.content as string, 'base64').toString('hex')).toBe(
      '89504e470d0a1a0a0000000d4948445200000001000000010806000000',
    );
    const big = await fails('s3_get_object', { bucket: BUCKET, key: 'media/teaser.mp4' });
    expect([big.status, big.code]).toEqual([413, 'object_too_large']);
    expect(big.text).toMatch(/range/);
    expect(big.text).toMatch(/saveToPath/);
    expect(big.text).toMatch(/s3_get_presigned_url/);
    const slice = await ok('s3_get_object', { bucket: BUCKET, key: 'media/teaser.mp4', range: 'bytes=0-1023' });
    expect([Buffer.from(slice.content as string, 'base64').length, slice.contentRange]).toEqual([1024, 'bytes 0-1023/9000000']);
    expect(await fails('s3_get_object', { bucket: BUCKET, key: 'missing.txt' })).toMatchObject({ status: 404, code: 'NoSuchKey' });
  });

  test('s3_get_object saveToPath streams the object to a local file', async () => {
    const target = join(root, 'downloads', 'teaser.mp4');
    const saved = await client.callTool('s3_get_object', { bucket: BUCKET, key: 'media/teaser.mp4', saveToPath: target });
    expect(saved.isError).toBeFalsy();
    expect(saved.structuredContent).toBeUndefined();
    expect(textOf(saved)).toContain('Saved 9000000 bytes');
    const expected = sandbox.store.latestVisible(sandbox.store.findBucketByName(BUCKET)!.bucketId, 'media/teaser.mp4')!;
    expect(createHash('sha1').update(readFileSync(target)).digest('hex')).toBe(expected.contentSha1);
  });

  test('s3_put_object from content and from a file; too large and unknown bucket fail', async () => {
    const put = await client.callTool('s3_put_object', {
      bucket: BUCKET,
      key: 'tools/hello.txt',
      content: Buffer.from('hello tools').toString('base64'),
      contentType: 'text/plain',
    });
    expect(put.structuredContent).toBeUndefined();
    expect(textOf(put)).toMatch(/^Uploaded 11 bytes to s3:\/\/demo-private-assets\/tools\/hello.txt/);
    writeFileSync(join(root, 'upload.bin'), Buffer.from([0, 1, 2, 255]));
    await ok('s3_put_object', { bucket: BUCKET, key: 'tools/upload.bin', filePath: join(root, 'upload.bin') });
    expect(await ok('s3_get_object', { bucket: BUCKET, key: 'tools/upload.bin' })).toMatchObject({
      encoding: 'base64',
      content: 'AAEC/w==',
    });
    const tooBig = await fails('s3_put_object', { bucket: BUCKET, key: 'tools/big', content: Buffer.alloc(MiB + 1).toString('base64') });
    expect([tooBig.status, tooBig.code]).toEqual([413, 'object_too_large']);
    expect(await fails('s3_put_object', { bucket: 'no-such-bucket-x', key: 'k', content: '' })).toMatchObject({
      status: 404,
      code: 'NoSuchBucket',
    });
    expect(await fails('s3_put_object', { bucket: BUCKET, key: 'k', content: 'not base64!' })).toMatchObject({
      status: 400,
      code: 'invalid_arguments',
    });
  });

  test('an object written by s3_put_object is in b2_list_largest_files (one store), and the native listing', async () => {
    const body = Buffer.alloc(700_000, 1);
    const put = await ok('s3_put_object', { bucket: BUCKET, key: 'shared/by-tool.bin', content: body.toString('base64') });
    const versionId = /version (\S+)\)/.exec(put.text)![1]!;
    const largest = await ok('b2_list_largest_files', { bucket: BUCKET, prefix: 'shared/' });
    expect(largest.files).toEqual([
      expect.objectContaining({ file_name: 'shared/by-tool.bin', size_bytes: body.length, file_id: versionId, current: true }),
    ]);
    const native = createB2NativeClient({
      apiUrl: sandbox.apiUrl,
      applicationKeyId: key.applicationKeyId,
      applicationKey: key.applicationKey,
    });
    const listed = await native.listFileNames({ bucketId: sandbox.store.findBucketByName(BUCKET)!.bucketId, prefix: 'shared/' });
    expect(listed.files.map((f) => [f.fileName, f.fileId])).toEqual([['shared/by-tool.bin', versionId]]);
  });

  test('s3_copy_object', async () => {
    const copied = await ok('s3_copy_object', {
      sourceBucket: BUCKET,
      sourceKey: 'docs/readme.txt',
      destinationBucket: BUCKET,
      destinationKey: 'tools/readme-copy.txt',
    });
    expect(copied.text).toMatch(
      /^Copied s3:\/\/demo-private-assets\/docs\/readme.txt .* to s3:\/\/demo-private-assets\/tools\/readme-copy.txt/,
    );
    expect(await ok('s3_get_object', { bucket: BUCKET, key: 'tools/readme-copy.txt' })).toMatchObject({
      content: 'Demo readme, revision 3.\n',
    });
    expect(
      await fails('s3_copy_object', { sourceBucket: BUCKET, sourceKey: 'missing', destinationBucket: BUCKET, destinationKey: 'x' }),
    ).toMatchObject({
      status: 404,
      code: 'NoSuchKey',
    });
  });

  test('s3_delete_object: gated, then a delete marker; a native legal hold blocks deleting the version', async () => {
    await ok('s3_put_object', { bucket: BUCKET, key: 'tools/doomed.txt', content: Buffer.from('bye').toString('base64') });
    await refusedWithoutMutation('s3_delete_object', { bucket: BUCKET, key: 'tools/doomed.txt' });
    expect((await ok('s3_delete_object', { bucket: BUCKET, key: 'tools/doomed.txt', confirm: true })).text).toContain(
      'hidden by delete marker',
    );
    expect(await fails('s3_head_object', { bucket: BUCKET, key: 'tools/doomed.txt' })).toMatchObject({ code: 'NoSuchKey' });

    const put = await ok('s3_put_object', {
      bucket: 'demo-locked-records',
      key: 'held/evidence.txt',
      content: Buffer.from('keep').toString('base64'),
    });
    const versionId = /version (\S+)\)/.exec(put.text)![1]!;
    // Set through the native API (b2_update_file_legal_hold), enforced on the S3 side.
    await ok('b2_update_file_legal_hold', { fileId: versionId, fileName: 'held/evidence.txt', legalHold: 'on' });
    const blocked = await fails('s3_delete_object', { bucket: 'demo-locked-records', key: 'held/evidence.txt', versionId, confirm: true });
    expect([blocked.status, blocked.code]).toEqual([403, 'AccessDenied']);
    expect(blocked.text).toContain('legal hold');
    expect(sandbox.store.findFile(versionId)).toBeDefined();
  });

  test('s3_delete_objects: gated, then per-object results', async () => {
    await ok('s3_put_object', { bucket: BUCKET, key: 'tools/bulk-1', content: '' });
    await refusedWithoutMutation('s3_delete_objects', { bucket: BUCKET, objects: [{ key: 'tools/bulk-1' }] });
    const result = await ok('s3_delete_objects', {
      bucket: BUCKET,
      objects: [{ key: 'tools/bulk-1' }, { key: 'tools/bulk-2', versionId: 'nope' }],
      quiet: false,
      confirm: true,
    });
    expect(result).toMatchObject({
      requested: 2,
      failed: 1,
      deleted: [expect.objectContaining({ key: 'tools/bulk-1', deleteMarker: true })],
    });
    expect(result.errors).toEqual([expect.objectContaining({ key: 'tools/bulk-2', code: 'NoSuchVersion' })]);
    expect(await fails('s3_delete_objects', { bucket: 'no-such-bucket-x', objects: [{ key: 'a' }], confirm: true })).toMatchObject({
      status: 404,
      code: 'NoSuchBucket',
    });
  });
});

describe('multipart', () => {
  test('create → presigned part URLs (PUT with fetch) → list parts → complete yields the exact bytes', async () => {
    const upload = await ok('s3_create_multipart_upload', {
      bucket: BUCKET,
      key: 'tools/assembled.bin',
      contentType: 'application/octet-stream',
    });
    expect(upload.uploadId).toEqual(expect.any(String));
    const parts = [Buffer.alloc(5 * MiB, 0xab), Buffer.alloc(5 * MiB, 0xcd), Buffer.from('last part')];
    const minted = await ok('s3_get_presigned_upload_part_url', {
      bucket: BUCKET,
      key: 'tools/assembled.bin',
      uploadId: upload.uploadId,
      partNumbers: [1, 2, 3],
      expiresIn: 600,
    });
    expect(minted).toMatchObject({ uploadId: upload.uploadId, expiresIn: 600, expiresAt: expect.any(String) });
    // The signature itself carries the asked lifetime, whatever the default would be.
    for (const { url } of minted.parts as Array<{ url: string }>) expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('600');
    const etags: Array<{ partNumber: number; etag: string }> = [];
    for (const { partNumber, url } of minted.parts as Array<{ partNumber: number; url: string }>) {
      const response = await fetch(url, { method: 'PUT', body: parts[partNumber - 1] });
      expect(response.status).toBe(200);
      etags.push({ partNumber, etag: response.headers.get('etag')! });
    }
    const listed = await ok('s3_list_parts', { bucket: BUCKET, key: 'tools/assembled.bin', uploadId: upload.uploadId });
    expect((listed.parts as Array<{ partNumber: number; size: number }>).map((p) => [p.partNumber, p.size])).toEqual([
      [1, 5 * MiB],
      [2, 5 * MiB],
      [3, 9],
    ]);
    const done = await ok('s3_complete_multipart_upload', {
      bucket: BUCKET,
      key: 'tools/assembled.bin',
      uploadId: upload.uploadId,
      parts: etags,
    });
    expect(done.etag).toMatch(/-3"$/);
    const target = join(root, 'assembled.bin');
    await ok('s3_get_object', { bucket: BUCKET, key: 'tools/assembled.bin', saveToPath: target });
    expect(sha256(readFileSync(target))).toBe(sha256(Buffer.concat(parts)));
  });

  test('presigned URLs are signed for exactly expiresIn seconds, or the 3600 s default', async () => {
    const upload = await ok('s3_create_multipart_upload', { bucket: BUCKET, key: 'tools/expiry.bin' });
    for (const [expiresIn, expected] of [
      [1, '1'],
      [604800, '604800'],
      [undefined, '3600'],
    ] as const) {
      const parts = await ok('s3_get_presigned_upload_part_url', {
        bucket: BUCKET,
        key: 'tools/expiry.bin',
        uploadId: upload.uploadId,
        partNumbers: [1],
        ...(expiresIn && { expiresIn }),
      });
      expect(new URL((parts.parts as Array<{ url: string }>)[0]!.url).searchParams.get('X-Amz-Expires'), String(expiresIn)).toBe(expected);
      const get = await ok('s3_get_presigned_url', {
        bucket: BUCKET,
        key: 'docs/readme.txt',
        operation: 'GetObject',
        ...(expiresIn && { expiresIn }),
      });
      expect(new URL(get.url as string).searchParams.get('X-Amz-Expires')).toBe(expected);
    }
    await ok('s3_abort_multipart_upload', { bucket: BUCKET, key: 'tools/expiry.bin', uploadId: upload.uploadId, confirm: true });
  });

  test("one call mints at most 100 part URLs; the schema's 10,000 is refused before any signing", async () => {
    const upload = await ok('s3_create_multipart_upload', { bucket: BUCKET, key: 'tools/many-parts.bin' });
    const ref = { bucket: BUCKET, key: 'tools/many-parts.bin', uploadId: upload.uploadId };
    const numbers = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);
    const full = await ok('s3_get_presigned_upload_part_url', { ...ref, partNumbers: numbers(9901, 100) });
    expect((full.parts as Array<{ partNumber: number }>).map((p) => p.partNumber)).toEqual(numbers(9901, 100));
    for (const count of [101, 10000]) {
      const refused = await fails('s3_get_presigned_upload_part_url', { ...ref, partNumbers: numbers(1, count) });
      expect([refused.status, refused.code]).toEqual([400, 'invalid_arguments']);
      expect(refused.text).toContain(`partNumbers lists ${count} part numbers; one call mints at most 100 URLs`);
      expect(refused.text).not.toContain('X-Amz-Signature');
      expect(refused.text.length).toBeLessThan(400);
    }
    await ok('s3_abort_multipart_upload', { ...ref, confirm: true });
  });

  test('error paths: NoSuchBucket, NoSuchUpload, EntityTooSmall, and a part URL for an unknown upload', async () => {
    expect(await fails('s3_create_multipart_upload', { bucket: 'no-such-bucket-x', key: 'k' })).toMatchObject({
      status: 404,
      code: 'NoSuchBucket',
    });
    expect(await fails('s3_list_parts', { bucket: BUCKET, key: 'k', uploadId: 'no-such-upload' })).toMatchObject({
      status: 404,
      code: 'NoSuchUpload',
    });
    expect(
      await fails('s3_upload_part_copy', {
        bucket: BUCKET,
        key: 'k',
        uploadId: 'no-such-upload',
        partNumber: 1,
        copySource: `${BUCKET}/docs/readme.txt`,
      }),
    ).toMatchObject({
      code: 'NoSuchUpload',
    });
    const upload = await ok('s3_create_multipart_upload', { bucket: BUCKET, key: 'tools/small.bin' });
    const ref = { bucket: BUCKET, key: 'tools/small.bin', uploadId: upload.uploadId };
    const one = await ok('s3_upload_part_copy', { ...ref, partNumber: 1, copySource: `${BUCKET}/docs/readme.txt` });
    const two = await ok('s3_upload_part_copy', {
      ...ref,
      partNumber: 2,
      copySource: `${BUCKET}/docs/readme.txt`,
      copySourceRange: 'bytes=0-3',
    });
    expect(two).toMatchObject({ partNumber: 2, etag: `"${createHash('md5').update('Demo').digest('hex')}"` });
    const tooSmall = await fails('s3_complete_multipart_upload', {
      ...ref,
      parts: [
        { partNumber: 1, etag: one.etag },
        { partNumber: 2, etag: two.etag },
      ],
    });
    expect([tooSmall.status, tooSmall.code]).toEqual([400, 'EntityTooSmall']);
    const minted = await ok('s3_get_presigned_upload_part_url', { bucket: BUCKET, key: 'k', uploadId: 'no-such-upload', partNumbers: [1] });
    const response = await fetch((minted.parts as Array<{ url: string }>)[0]!.url, { method: 'PUT', body: 'x' });
    expect(response.status).toBe(404);
    expect(await response.text()).toContain('<Code>NoSuchUpload</Code>');
  });

  test('s3_list_multipart_uploads', async () => {
    const upload = await ok('s3_create_multipart_upload', { bucket: BUCKET, key: 'tools/pending.bin' });
    const listed = await ok('s3_list_multipart_uploads', { bucket: BUCKET, prefix: 'tools/pending' });
    expect(listed.uploads).toEqual([expect.objectContaining({ key: 'tools/pending.bin', uploadId: upload.uploadId })]);
    expect(await fails('s3_list_multipart_uploads', { bucket: 'no-such-bucket-x' })).toMatchObject({ status: 404, code: 'NoSuchBucket' });
  });

  test('s3_abort_multipart_upload: gated, then aborted; an unknown upload is NoSuchUpload', async () => {
    const upload = await ok('s3_create_multipart_upload', { bucket: BUCKET, key: 'tools/aborted.bin' });
    const ref = { bucket: BUCKET, key: 'tools/aborted.bin', uploadId: upload.uploadId };
    await refusedWithoutMutation('s3_abort_multipart_upload', ref);
    expect((await ok('s3_abort_multipart_upload', { ...ref, confirm: true })).text).toContain('Aborted multipart upload');
    expect(await fails('s3_abort_multipart_upload', { ...ref, confirm: true })).toMatchObject({ status: 404, code: 'NoSuchUpload' });
  });
});

describe('presigned URLs from the tools', () => {
  test('GetObject URLs work with plain fetch; tampered ones and missing keys are refused', async () => {
    const minted = await ok('s3_get_presigned_url', { bucket: BUCKET, key: 'docs/readme.txt', operation: 'GetObject', expiresIn: 120 });
    expect(minted).toMatchObject({ operation: 'GetObject', expiresIn: 120 });
    expect(Date.parse(minted.expiresAt as string) - Date.now()).toBeGreaterThan(100_000);
    const response = await fetch(minted.url as string);
    expect(await response.text()).toBe('Demo readme, revision 3.\n');
    const tampered = await fetch((minted.url as string).replace('readme.txt', 'readme.txx'));
    expect(tampered.status).toBe(403);
    expect(await tampered.text()).toContain('SignatureDoesNotMatch');
    const missing = await ok('s3_get_presigned_url', { bucket: BUCKET, key: 'nothing-here', operation: 'GetObject' });
    const notFound = await fetch(missing.url as string);
    expect(notFound.status).toBe(404);
    expect(await notFound.text()).toContain('<Code>NoSuchKey</Code>');
  });

  test('PutObject URLs are gated; once confirmed, a plain fetch PUT stores the bytes', async () => {
    await refusedWithoutMutation('s3_get_presigned_url', { bucket: BUCKET, key: 'tools/uploaded.txt', operation: 'PutObject' });
    const minted = await ok('s3_get_presigned_url', {
      bucket: BUCKET,
      key: 'tools/uploaded.txt',
      operation: 'PutObject',
      contentType: 'text/plain',
      confirm: true,
    });
    expect(minted).toMatchObject({ method: 'PUT', requiredHeaders: { 'Content-Type': 'text/plain' } });
    const put = await fetch(minted.url as string, { method: 'PUT', body: 'via presigned PUT', headers: { 'content-type': 'text/plain' } });
    expect(put.status).toBe(200);
    expect(await ok('s3_get_object', { bucket: BUCKET, key: 'tools/uploaded.txt' })).toMatchObject({
      content: 'via presigned PUT',
      contentType: 'text/plain',
    });
    expect(
      await fails('s3_get_presigned_url', { bucket: BUCKET, key: 'k', operation: 'PutObject', versionId: 'v', confirm: true }),
    ).toMatchObject({ status: 400 });
  });
});

describe('local file guard', () => {
  test('saveToPath outside B2_FILE_ROOT or through a symlink is refused before any download', async () => {
    const outside = mkdtempSync(join(tmpdir(), 's3-outside-'));
    try {
      const { symlinkSync } = await import('node:fs');
      symlinkSync(outside, join(root, 'escape'));
      const before = await lastRequestSeq(sandbox);
      for (const saveToPath of [join(outside, 'x.txt'), join(root, 'escape', 'x.txt'), join(root, '..', 'x.txt')]) {
        const refused = await fails('s3_get_object', { bucket: BUCKET, key: 'docs/readme.txt', saveToPath });
        expect([refused.status, refused.code]).toEqual([403, 'local_file_refused']);
        expect(refused.text).toContain('B2_FILE_ROOT');
      }
      expect(existsSync(join(outside, 'x.txt'))).toBe(false);
      expect((await requestsSince(sandbox, before)).filter((r) => r.operation === 'GetObject')).toEqual([]);
      writeFileSync(join(outside, 'secret.txt'), 'outside');
      const read = await fails('s3_put_object', { bucket: BUCKET, key: 'k', filePath: join(root, 'escape', 'secret.txt') });
      expect(read.code).toBe('local_file_refused');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  test('with local files disallowed, saveToPath and filePath are refused and nothing is written', async () => {
    const locked = await connectToSandbox(sandbox, key, { env: { B2_MCP_PROFILE: 'full', B2_ALLOW_LOCAL_FILES: 'false' } });
    try {
      const target = join(root, 'never.txt');
      const refused = await fails('s3_get_object', { bucket: BUCKET, key: 'docs/readme.txt', saveToPath: target }, locked);
      expect([refused.status, refused.code]).toEqual([403, 'local_file_refused']);
      expect(refused.text).toContain('B2_ALLOW_LOCAL_FILES');
      expect(existsSync(target)).toBe(false);
      expect((await fails('s3_put_object', { bucket: BUCKET, key: 'k', filePath: join(root, 'upload.bin') }, locked)).code).toBe(
        'local_file_refused',
      );
    } finally {
      await locked.close();
    }
  });
});

describe('stdio defaults: local files allowed, no B2_FILE_ROOT (the folder is ~/b2-mcp-files)', () => {
  test('the process environment, hidden files and existing files are out of reach, and an object holding the key comes back redacted', async () => {
    const home = mkdtempSync(join(tmpdir(), 's3-home-'));
    const ledger = join(home, 'ledger', 'secrets.jsonl');
    const defaults = await connectToSandbox(sandbox, key, {
      env: { HOME: home, B2_MCP_PROFILE: 'full', B2_SECRET_SINK: 'file', B2_SECRET_SINK_FILE: ledger },
    });
    const existing = join(home, 'b2-mcp-files', 'notes.txt');
    try {
      writeFileSync(join(home, '.env'), `B2_APPLICATION_KEY=${key.applicationKey}`);
      mkdirSync(join(home, 'b2-mcp-files'));
      writeFileSync(existing, 'original');
      const before = await lastRequestSeq(sandbox);
      for (const filePath of ['/proc/self/environ', join(home, '.env'), ledger]) {
        const refused = await fails('s3_put_object', { bucket: BUCKET, key: 'stolen', filePath }, defaults);
        expect([refused.status, refused.code], filePath).toEqual([403, 'local_file_refused']);
      }
      expect((await requestsSince(sandbox, before)).filter((r) => r.operation === 'PutObject')).toEqual([]);

      const overwrite = await fails('s3_get_object', { bucket: BUCKET, key: 'docs/readme.txt', saveToPath: 'notes.txt' }, defaults);
      expect([overwrite.status, overwrite.code]).toEqual([409, 'local_file_exists']);
      expect(overwrite.text).toContain('Choose a new path');
      expect(readFileSync(existing, 'utf8')).toBe('original');

      // The key, planted in a binary object by other means, never leaves in its base64 content.
      const planted = Buffer.concat([Buffer.from([0, 1, 2, 255]), Buffer.from(`B2_APPLICATION_KEY=${key.applicationKey}\0`)]);
      await ok('s3_put_object', { bucket: BUCKET, key: 'tools/environ.bin', content: planted.toString('base64') });
      const read = await defaults.callTool('s3_get_object', { bucket: BUCKET, key: 'tools/environ.bin' });
      const content = (read.structuredContent as { encoding: string; content: string }).content;
      expect((read.structuredContent as { encoding: string }).encoding).toBe('base64');
      expect(Buffer.from(content, 'base64').toString('latin1')).toContain('B2_APPLICATION_KEY=[redacted]');
      const wire = JSON.stringify(read);
      for (const form of [key.applicationKey, Buffer.from(key.applicationKey).toString('base64').slice(0, 20), planted.toString('base64')])
        expect(wire).not.toContain(form);
    } finally {
      await defaults.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('runtime capability checks', () => {
  test('bypassGovernance without the capability is refused with missing_capability and no mutation', async () => {
    const limited = await createKey(sandbox, { capabilities: ['listBuckets', 'listFiles', 'readFiles', 'writeFiles', 'deleteFiles'] });
    const connection = await connectToSandbox(sandbox, limited, { env: { B2_DESTRUCTIVE_POLICY: 'allow' } });
    try {
      const before = await lastMutationSeq(sandbox);
      const refused = await fails(
        's3_delete_objects',
        { bucket: BUCKET, objects: [{ key: 'docs/readme.txt' }], bypassGovernance: true },
        connection,
      );
      expect([refused.status, refused.code]).toEqual([403, 'missing_capability']);
      expect(refused.text).toContain('bypassGovernance');
      expect(await mutationsSince(sandbox, before)).toEqual([]);
    } finally {
      await connection.close();
    }
  });
});

// Last in the file: it moves the sandbox clock forward.
describe('expiry', () => {
  test('a presigned URL from the tool stops working once it expires', async () => {
    const minted = await ok('s3_get_presigned_url', { bucket: BUCKET, key: 'docs/readme.txt', operation: 'GetObject', expiresIn: 60 });
    expect((await fetch(minted.url as string)).status).toBe(200);
    await advanceClock(sandbox, 61_000);
    const expired = await fetch(minted.url as string);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('Request has expired');
  });
});
