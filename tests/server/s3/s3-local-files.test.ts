/** The local-file guard (root, default policy, server files, races) and streamed saves behind saveToPath / filePath, and S3 error mapping. */
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { open as openHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { MASTER_KEY_HINT, s3ErrorFrom } from '../../../src/server/s3/errors.js';
import { openedRealPath, prepareLocalTarget, readLocalFile, saveStream } from '../../../src/server/s3/local-files.js';
import { ToolError } from '../../../src/server/errors.js';

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

  test('relative paths resolve against the root', async () => {
    expect((await prepareLocalTarget(policy(), 'rel/x.txt')).path).toBe(join(realpathSync(root), 'rel', 'x.txt'));
  });

  test('paths that escape the root directly, by .., or through a symlink are refused', async () => {
    symlinkSync(outside, join(root, 'link'));
    writeFileSync(join(outside, 'existing.txt'), 'x');
    for (const path of [join(outside, 'x'), join(root, '..', 'x'), join(root, 'link', 'x'), join(root, 'link', 'deeper', 'x')]) {
      const error = await refusal(prepareLocalTarget(policy(), path));
      expect([error.status, error.code], path).toEqual([403, 'local_file_refused']);
    }
  });

  test('a symlink inside the root that points inside the root is followed', async () => {
    mkdirSync(join(root, 'real'));
    symlinkSync(join(root, 'real'), join(root, 'alias'));
    expect((await prepareLocalTarget(policy(), join(root, 'alias', 'x.txt'))).path).toBe(join(root, 'real', 'x.txt'));
  });

  test('anything already at the path is refused: a file, a symlink (dangling or not), a directory', async () => {
    writeFileSync(join(root, 'file.txt'), 'x');
    symlinkSync(join(root, 'nowhere'), join(root, 'dangling'));
    symlinkSync(join(root, 'file.txt'), join(root, 'file-link'));
    mkdirSync(join(root, 'dir'));
    for (const name of ['file.txt', 'dangling', 'file-link', 'dir']) {
      const error = await refusal(prepareLocalTarget(policy(), join(root, name)));
      expect([error.status, error.code], name).toEqual([409, 'local_file_exists']);
      expect(error.message).toContain('Choose a new path');
    }
  });

  test('nothing is allowed when local files are off', async () => {
    const error = await refusal(prepareLocalTarget({ allowLocalFiles: false, fileRoot: root }, join(root, 'x')));
    expect([error.status, error.code]).toEqual([403, 'local_file_refused']);
    expect((await refusal(readLocalFile({ allowLocalFiles: false }, join(root, 'x'), 10, []))).code).toBe('local_file_refused');
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

  test('a failing source leaves nothing behind', async () => {
    const target = await prepareLocalTarget(policy(), join(root, 'failed.txt'));
    const source = new Readable({
      read() {
        this.destroy(new Error('connection reset'));
      },
    });
    expect((await refusal(saveStream(source, target, { idleTimeoutMs: 1000 }))).code).toBe('download_failed');
    expect(readdirSync(root)).toEqual([]);
  });

  test('a file that appears after the check is not overwritten: the target is created exclusively', async () => {
    const target = await prepareLocalTarget(policy(), join(root, 'raced.txt'));
    writeFileSync(join(root, 'raced.txt'), 'theirs');
    const error = await refusal(saveStream(Readable.from([Buffer.from('ours')]), target, { idleTimeoutMs: 1000 }));
    expect([error.status, error.code]).toEqual([409, 'local_file_exists']);
    expect(readFileSync(join(root, 'raced.txt'), 'utf8')).toBe('theirs');
    expect(readdirSync(root)).toEqual(['raced.txt']);
  });

  test('a symlink planted at the target after the check is neither followed nor replaced', async () => {
    writeFileSync(join(outside, 'bashrc'), 'original');
    const target = await prepareLocalTarget(policy(), join(root, 'planted.txt'));
    symlinkSync(join(outside, 'bashrc'), join(root, 'planted.txt'));
    expect((await refusal(saveStream(Readable.from([Buffer.from('payload')]), target, { idleTimeoutMs: 1000 }))).code).toBe(
      'local_file_exists',
    );
    expect(readFileSync(join(outside, 'bashrc'), 'utf8')).toBe('original');
  });
});

describe('reads', () => {
  test('reads a file inside the root; refuses missing, oversized, directories and symlinks out', async () => {
    writeFileSync(join(root, 'in.txt'), 'inside');
    expect((await readLocalFile(policy(), join(root, 'in.txt'), 100, [])).toString()).toBe('inside');
    expect((await refusal(readLocalFile(policy(), join(root, 'missing.txt'), 100, []))).code).toBe('file_not_found');
    expect(await refusal(readLocalFile(policy(), join(root, 'in.txt'), 3, []))).toMatchObject({ status: 413, code: 'file_too_large' });
    expect((await refusal(readLocalFile(policy(), root, 100, []))).code).toBe('invalid_path');
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    symlinkSync(join(outside, 'secret.txt'), join(root, 'sneaky.txt'));
    expect((await refusal(readLocalFile(policy(), join(root, 'sneaky.txt'), 100, []))).code).toBe('local_file_refused');
  });
});

describe('read size limit', () => {
  test('a file of exactly the limit is read whole; one byte more is refused', async () => {
    writeFileSync(join(root, 'exact.bin'), Buffer.alloc(64, 1));
    writeFileSync(join(root, 'over.bin'), Buffer.alloc(65, 1));
    expect((await readLocalFile(policy(), join(root, 'exact.bin'), 64, [])).length).toBe(64);
    expect(await refusal(readLocalFile(policy(), join(root, 'over.bin'), 64, []))).toMatchObject({ status: 413, code: 'file_too_large' });
  });
});

describe('the file root', () => {
  test('the default folder is created owner-only on first use; system trees and hidden files outside it are refused, naming B2_FILE_ROOT', async () => {
    const folder = join(outside, 'b2-mcp-files');
    const byDefault = { allowLocalFiles: true, fileRoot: folder, createFileRoot: true };
    mkdirSync(join(outside, '.ssh'));
    writeFileSync(join(outside, '.ssh', 'id_ed25519'), 'private key');
    writeFileSync(join(outside, 'plain.txt'), 'outside the root');
    for (const path of ['/proc/self/environ', '/dev/zero', join(outside, '.ssh', 'id_ed25519'), join(outside, 'plain.txt')]) {
      const error = await refusal(readLocalFile(byDefault, path, 1000, []));
      expect([error.status, error.code], path).toEqual([403, 'local_file_refused']);
      expect(error.message, path).toContain('B2_FILE_ROOT');
    }
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    for (const path of ['/dev/b2-mcp-test', join(outside, '.bashrc'), join(outside, 'visible.txt')]) {
      expect((await refusal(prepareLocalTarget(byDefault, path))).code, path).toBe('local_file_refused');
    }
    writeFileSync(join(folder, 'inside.txt'), 'fine');
    expect((await readLocalFile(byDefault, 'inside.txt', 100, [])).toString()).toBe('fine');
  });

  test("an operator's root that does not exist is not created", async () => {
    const error = await refusal(readLocalFile({ allowLocalFiles: true, fileRoot: join(outside, 'missing') }, 'x.txt', 100, []));
    expect([error.status, error.code]).toEqual([500, 'invalid_file_root']);
    expect(readdirSync(outside)).toEqual([]);
  });

  test('an explicit B2_FILE_ROOT that contains a hidden file allows it', async () => {
    writeFileSync(join(root, '.env'), 'chosen by the operator');
    expect((await readLocalFile(policy(), join(root, '.env'), 100, [])).toString()).toBe('chosen by the operator');
    expect((await prepareLocalTarget(policy(), join(root, '.cache', 'x'))).path).toBe(join(root, '.cache', 'x'));
  });

  test('the secret ledger, its reservations and the log file are refused even inside the root, under any name', async () => {
    const ledger = join(root, 'secrets.jsonl');
    const log = join(root, 'server.log');
    writeFileSync(ledger, '{"secret":"x"}\n');
    writeFileSync(log, '{}\n');
    writeFileSync(`${ledger}.abc.pending`, '');
    linkSync(ledger, join(root, 'innocent.txt'));
    symlinkSync(log, join(root, 'log-link'));
    const guarded = { ...policy(), secretSinkFile: ledger, logFile: log };
    for (const path of [ledger, log, `${ledger}.abc.pending`, join(root, 'innocent.txt'), join(root, 'log-link')]) {
      const error = await refusal(readLocalFile(guarded, path, 1000, []));
      expect([error.code, error.message], path).toEqual(['local_file_refused', expect.stringContaining("this server's own files")]);
    }
    expect((await refusal(prepareLocalTarget(guarded, `${ledger}.def.pending`))).code).toBe('local_file_refused');
  });
});

describe('reads under a racing symlink swap', () => {
  test('the descriptor that was opened decides: a swap between check and open never reads outside the root', async () => {
    mkdirSync(join(root, 'real'));
    writeFileSync(join(root, 'real', 'file.txt'), 'inside');
    writeFileSync(join(outside, 'file.txt'), 'OUTSIDE');
    writeFileSync(join(root, 'plain.txt'), 'inside');
    const stop = new Int32Array(new SharedArrayBuffer(4));
    // The attacker: swaps the directory `real` for a symlink out of the root, and the file
    // `plain.txt` for a symlink to the outside file, back and forth, until told to stop.
    const swapper = new Worker(
      `const { workerData } = require('node:worker_threads');
       const fs = require('node:fs');
       const { root, outside, stop } = workerData;
       const flag = new Int32Array(stop);
       for (let i = 0; i < 1e6 && Atomics.load(flag, 0) === 0; i++) {
         try {
           fs.renameSync(root + '/real', root + '/parked');
           fs.symlinkSync(outside, root + '/real');
           fs.unlinkSync(root + '/real');
           fs.renameSync(root + '/parked', root + '/real');
           fs.symlinkSync(outside + '/file.txt', root + '/swap');
           fs.renameSync(root + '/swap', root + '/plain.txt');
           fs.writeFileSync(root + '/swap', 'inside');
           fs.renameSync(root + '/swap', root + '/plain.txt');
         } catch {}
       }`,
      { eval: true, workerData: { root, outside, stop: stop.buffer } },
    );
    const exited = new Promise((resolve) => swapper.once('exit', resolve));
    const outcomes = new Map<string, number>();
    try {
      for (let i = 0; i < 400; i++) {
        for (const path of [join(root, 'real', 'file.txt'), join(root, 'plain.txt')]) {
          const outcome = await readLocalFile(policy(), path, 100, []).then(
            (bytes) => bytes.toString(),
            (error: ToolError) => error.code,
          );
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        }
      }
    } finally {
      Atomics.store(stop, 0, 1);
      await exited;
    }
    expect(outcomes.has('OUTSIDE'), JSON.stringify([...outcomes])).toBe(false);
    expect(
      [...outcomes.keys()].every((outcome) => ['inside', 'local_file_refused', 'file_not_found', 'invalid_path'].includes(outcome)),
    ).toBe(true);
  });

  test('without /proc/self/fd, the path resolved after the open must still be the file that was opened', async () => {
    writeFileSync(join(root, 'a.txt'), 'a');
    writeFileSync(join(root, 'b.txt'), 'b');
    const noLinks = join(root, 'no-such-links');
    const handle = await openHandle(join(root, 'a.txt'), 'r');
    try {
      expect(await openedRealPath(handle, join(root, 'a.txt'), noLinks)).toBe(join(realpathSync(root), 'a.txt'));
      // The name now leads to another file than the one opened: no answer.
      expect(await openedRealPath(handle, join(root, 'b.txt'), noLinks)).toBeUndefined();
      expect(await openedRealPath(handle, join(root, 'gone.txt'), noLinks)).toBeUndefined();
      expect(await openedRealPath(handle, join(root, 'b.txt'))).toBe(join(realpathSync(root), 'a.txt'));
    } finally {
      await handle.close();
    }
  });
});

describe('S3 error mapping', () => {
  const sdkError = (name: string, status: number | undefined, message = 'm', extra: Record<string, unknown> = {}) =>
    Object.assign(new Error(message), {
      name,
      ...(status !== undefined ? { $metadata: { httpStatusCode: status, requestId: 'REQ1' } } : {}),
      ...extra,
    });

  test('service errors keep S3 code, status and request id', () => {
    expect(s3ErrorFrom(sdkError('NoSuchKey', 404, 'gone'))).toMatchObject({
      status: 404,
      code: 'NoSuchKey',
      message: 'gone',
      requestId: 'REQ1',
    });
  });

  test('bodiless HEAD answers get a useful code', () => {
    expect(s3ErrorFrom(sdkError('NotFound', 404, 'UnknownError'), 'NoSuchBucket')).toMatchObject({ code: 'NoSuchBucket' });
    expect(s3ErrorFrom(sdkError('NotFound', 404, 'UnknownError'))).toMatchObject({ code: 'NoSuchKey' });
    expect(s3ErrorFrom(sdkError('Forbidden', 403, 'UnknownError'))).toMatchObject({ status: 403, code: 'AccessDenied' });
  });

  test('InvalidAccessKeyId and "malformed access key id" carry the master-key hint', () => {
    expect(s3ErrorFrom(sdkError('InvalidAccessKeyId', 403, 'Malformed Access Key Id')).message).toBe(
      `Malformed Access Key Id${MASTER_KEY_HINT}`,
    );
    expect(s3ErrorFrom(sdkError('AccessDenied', 403, 'malformed access key id')).message).toContain(MASTER_KEY_HINT.trim());
  });

  test('transport failures and cancellation', () => {
    expect(s3ErrorFrom(sdkError('Error', undefined, 'connect ECONNREFUSED', { code: 'ECONNREFUSED' }))).toMatchObject({
      status: 503,
      code: 'network_error',
    });
    expect(s3ErrorFrom(sdkError('TimeoutError', undefined))).toMatchObject({ status: 504, code: 'request_timeout' });
    expect(s3ErrorFrom(sdkError('AbortError', undefined))).toMatchObject({ code: 'cancelled' });
  });
});
