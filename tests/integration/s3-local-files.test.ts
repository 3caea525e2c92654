/** The local-file guard and streamed saves behind saveToPath / filePath, and S3 error mapping. */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { MASTER_KEY_HINT, s3ErrorFrom } from '../../src/server/s3/errors.js';
import { prepareLocalTarget, readLocalFile, saveStream } from '../../src/server/s3/local-files.js';
import { ToolError } from '../../src/server/tools/definition.js';

let root: string;
let outside: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'lf-root-'));
  outside = mkdtempSync(join(tmpdir(), 'lf-outside-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const policy = () => ({ allowLocalFiles: true, fileRoot: root });

async function refusal(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  }
  throw new Error('expected a refusal');
}

describe('destinations', () => {
  test('a new file under missing directories inside the root is placed under the nearest existing ancestor', async () => {
    const target = await prepareLocalTarget(policy(), join(root, 'a', 'b', 'c.txt'));
    const written = await saveStream(Readable.from([Buffer.from('hello '), Buffer.from('world')]), target, { idleTimeoutMs: 1000 });
    expect(written).toBe(11);
    expect(readFileSync(join(root, 'a', 'b', 'c.txt'), 'utf8')).toBe('hello world');
    expect(readdirSync(join(root, 'a', 'b'))).toEqual(['c.txt']);
  });

  test('relative paths resolve against the root, and need one', async () => {
    expect((await prepareLocalTarget(policy(), 'rel/x.txt')).path).toBe(join(root, 'rel', 'x.txt'));
    expect((await refusal(prepareLocalTarget({ allowLocalFiles: true }, 'rel/x.txt'))).code).toBe('invalid_path');
  });

  test('paths that escape the root directly, by .., or through a symlink are refused', async () => {
    symlinkSync(outside, join(root, 'link'));
    writeFileSync(join(outside, 'existing.txt'), 'x');
    symlinkSync(join(outside, 'existing.txt'), join(root, 'file-link'));
    for (const path of [join(outside, 'x'), join(root, '..', 'x'), join(root, 'link', 'x'), join(root, 'link', 'deeper', 'x'), join(root, 'file-link')]) {
      const error = await refusal(prepareLocalTarget(policy(), path));
      expect([error.status, error.code], path).toEqual([403, 'local_file_refused']);
    }
  });

  test('a symlink inside the root that points inside the root is followed', async () => {
    mkdirSync(join(root, 'real'));
    symlinkSync(join(root, 'real'), join(root, 'alias'));
    expect((await prepareLocalTarget(policy(), join(root, 'alias', 'x.txt'))).path).toBe(join(root, 'real', 'x.txt'));
  });

  test('a dangling symlink and a directory are not valid targets', async () => {
    symlinkSync(join(root, 'nowhere'), join(root, 'dangling'));
    expect((await refusal(prepareLocalTarget(policy(), join(root, 'dangling')))).code).toBe('local_file_refused');
    mkdirSync(join(root, 'dir'));
    expect((await refusal(prepareLocalTarget(policy(), join(root, 'dir')))).code).toBe('invalid_path');
  });

  test('nothing is allowed when local files are off', async () => {
    const error = await refusal(prepareLocalTarget({ allowLocalFiles: false, fileRoot: root }, join(root, 'x')));
    expect([error.status, error.code]).toEqual([403, 'local_file_refused']);
    expect((await refusal(readLocalFile({ allowLocalFiles: false }, join(root, 'x'), 10))).code).toBe('local_file_refused');
  });
});

describe('streamed saves', () => {
  test('a stalled download is abandoned after the idle timeout and leaves no file behind', async () => {
    const target = await prepareLocalTarget(policy(), join(root, 'stalled.bin'));
    const source = new PassThrough();
    source.write(Buffer.from('partial'));
    const error = await refusal(saveStream(source, target, { idleTimeoutMs: 50 }));
    expect([error.status, error.code]).toEqual([504, 'download_stalled']);
    expect(readdirSync(root)).toEqual([]);
  });

  test('a cancelled download leaves no file behind', async () => {
    const target = await prepareLocalTarget(policy(), join(root, 'cancelled.bin'));
    const controller = new AbortController();
    const source = new PassThrough();
    setTimeout(() => controller.abort(), 20);
    const error = await refusal(saveStream(source, target, { idleTimeoutMs: 5000, signal: controller.signal }));
    expect(error.code).toBe('cancelled');
    expect(readdirSync(root)).toEqual([]);
  });

  test('a failing source leaves an existing file untouched', async () => {
    writeFileSync(join(root, 'keep.txt'), 'original');
    const target = await prepareLocalTarget(policy(), join(root, 'keep.txt'));
    const source = new Readable({
      read() {
        this.destroy(new Error('connection reset'));
      },
    });
    expect((await refusal(saveStream(source, target, { idleTimeoutMs: 1000 }))).code).toBe('download_failed');
    expect(readFileSync(join(root, 'keep.txt'), 'utf8')).toBe('original');
    expect(readdirSync(root)).toEqual(['keep.txt']);
  });
});

describe('reads', () => {
  test('reads a file inside the root; refuses missing, oversized, directories and symlinks out', async () => {
    writeFileSync(join(root, 'in.txt'), 'inside');
    expect((await readLocalFile(policy(), join(root, 'in.txt'), 100)).toString()).toBe('inside');
    expect((await refusal(readLocalFile(policy(), join(root, 'missing.txt'), 100))).code).toBe('file_not_found');
    expect(await refusal(readLocalFile(policy(), join(root, 'in.txt'), 3))).toMatchObject({ status: 413, code: 'file_too_large' });
    expect((await refusal(readLocalFile(policy(), root, 100))).code).toBe('invalid_path');
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    symlinkSync(join(outside, 'secret.txt'), join(root, 'sneaky.txt'));
    expect((await refusal(readLocalFile(policy(), join(root, 'sneaky.txt'), 100))).code).toBe('local_file_refused');
  });
});

describe('S3 error mapping', () => {
  const sdkError = (name: string, status: number | undefined, message = 'm', extra: Record<string, unknown> = {}) =>
    Object.assign(new Error(message), { name, ...(status !== undefined ? { $metadata: { httpStatusCode: status, requestId: 'REQ1' } } : {}), ...extra });

  test('service errors keep S3 code, status and request id', () => {
    expect(s3ErrorFrom(sdkError('NoSuchKey', 404, 'gone'))).toMatchObject({ status: 404, code: 'NoSuchKey', message: 'gone', requestId: 'REQ1' });
  });

  test('bodiless HEAD answers get a useful code', () => {
    expect(s3ErrorFrom(sdkError('NotFound', 404, 'UnknownError'), 'NoSuchBucket')).toMatchObject({ code: 'NoSuchBucket' });
    expect(s3ErrorFrom(sdkError('NotFound', 404, 'UnknownError'))).toMatchObject({ code: 'NoSuchKey' });
    expect(s3ErrorFrom(sdkError('Forbidden', 403, 'UnknownError'))).toMatchObject({ status: 403, code: 'AccessDenied' });
  });

  test('InvalidAccessKeyId and "malformed access key id" carry the master-key hint', () => {
    expect(s3ErrorFrom(sdkError('InvalidAccessKeyId', 403, 'Malformed Access Key Id')).message).toBe(`Malformed Access Key Id${MASTER_KEY_HINT}`);
    expect(s3ErrorFrom(sdkError('AccessDenied', 403, 'malformed access key id')).message).toContain(MASTER_KEY_HINT.trim());
  });

  test('transport failures and cancellation', () => {
    expect(s3ErrorFrom(sdkError('Error', undefined, 'connect ECONNREFUSED', { code: 'ECONNREFUSED' }))).toMatchObject({ status: 503, code: 'network_error' });
    expect(s3ErrorFrom(sdkError('TimeoutError', undefined))).toMatchObject({ status: 504, code: 'request_timeout' });
    expect(s3ErrorFrom(sdkError('AbortError', undefined))).toMatchObject({ code: 'cancelled' });
  });
});
