/**
 * Request bodies into stored bodies, streamed: bytes are hashed as they arrive, small bodies stay
 * in memory, and anything past `SPILL_BYTES` goes to a temporary file, so a 1 GiB upload never
 * sits in memory. The temporary directory lives as long as the process.
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { createWriteStream, mkdtempSync, rmSync, unlinkSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { bytesBody } from '../bodies.js';
import type { StoredBody } from '../model.js';
import type { PayloadPromise } from './auth.js';
import { S3Failure } from './errors.js';

/** Bodies up to this size stay in memory; larger ones are spilled to disk. */
const SPILL_BYTES = 1024 * 1024;
/** S3's single-request upload limit. */
const MAX_UPLOAD_BYTES = 5 * 1024 ** 3;

export interface IngestedBody {
  body: StoredBody;
  size: number;
  md5: string;
  sha1: string;
}

let spillDirectory: string | undefined;
let spillCounter = 0;

function spillPath(): string {
  if (!spillDirectory) {
    const dir = mkdtempSync(join(tmpdir(), 'b2-sandbox-s3-'));
    spillDirectory = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return join(spillDirectory, `body-${process.pid}-${++spillCounter}`);
}

async function closeFile(file: WriteStream): Promise<void> {
  if (file.writableFinished) return;
  file.end();
  await once(file, 'finish');
}

/**
 * Read `source` to its end into a stored body. `expectedLength` (Content-Length) must match when
 * given; a signed SHA-256 or a Content-MD5 must match the bytes, or nothing is kept.
 */
export async function ingestBody(
  source: AsyncIterable<Buffer | Uint8Array>,
  options: { expectedLength?: number; payload?: PayloadPromise; contentMd5?: string; limit?: number; inMemory?: boolean },
): Promise<IngestedBody> {
  const limit = options.limit ?? MAX_UPLOAD_BYTES;
  if (options.expectedLength !== undefined && options.expectedLength > limit) {
    throw new S3Failure(400, 'EntityTooLarge', `Your proposed upload exceeds the maximum allowed size of ${limit} bytes`);
  }
  const md5 = createHash('md5');
  const sha1 = createHash('sha1');
  const sha256 = options.payload?.kind === 'sha256' ? createHash('sha256') : undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  let path: string | undefined;
  let file: WriteStream | undefined;
  try {
    for await (const piece of source) {
      const chunk = Buffer.isBuffer(piece) ? piece : Buffer.from(piece);
      size += chunk.length;
      if (size > limit)
        throw new S3Failure(400, 'EntityTooLarge', `Your proposed upload exceeds the maximum allowed size of ${limit} bytes`);
      md5.update(chunk);
      sha1.update(chunk);
      sha256?.update(chunk);
      if (!file) {
        chunks.push(chunk);
        if (size <= SPILL_BYTES || options.inMemory) continue;
        path = spillPath();
        file = createWriteStream(path, { flags: 'wx' });
        for (const held of chunks.splice(0)) file.write(held);
        if (file.writableNeedDrain) await once(file, 'drain');
      } else if (!file.write(chunk)) {
        await once(file, 'drain');
      }
    }
    if (file) await closeFile(file);
    if (options.expectedLength !== undefined && size !== options.expectedLength) {
      throw new S3Failure(400, 'IncompleteBody', 'You did not provide the number of bytes specified by the Content-Length HTTP header.');
    }
    if (sha256 && options.payload?.kind === 'sha256' && sha256.digest('hex') !== options.payload.hex) {
      throw new S3Failure(400, 'XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.");
    }
    const md5Digest = md5.digest();
    if (options.contentMd5 !== undefined && md5Digest.toString('base64') !== options.contentMd5) {
      throw new S3Failure(400, 'BadDigest', 'The Content-MD5 you specified did not match what we received.');
    }
    const body: StoredBody = path ? { kind: 'file', path, size } : bytesBody(Buffer.concat(chunks));
    return { body, size, md5: md5Digest.toString('hex'), sha1: sha1.digest('hex') };
  } catch (error) {
    file?.destroy();
    if (path) {
      try {
        unlinkSync(path);
      } catch {
        // already gone
      }
    }
    throw error;
  }
}

/**
 * A small body (XML documents) read whole, with the same integrity checks. With
 * `requireChecksum` (S3's rule for DeleteObjects and lifecycle configuration) the request must
 * carry Content-MD5 or x-amz-checksum-crc32, and it must match.
 */
export async function readSmallBody(
  source: AsyncIterable<Buffer | Uint8Array>,
  options: { payload: PayloadPromise; limit: number; headers: Record<string, string | string[] | undefined>; requireChecksum?: boolean },
): Promise<Buffer> {
  const contentMd5 = options.headers['content-md5'];
  const checksum = options.headers['x-amz-checksum-crc32'];
  if (options.requireChecksum && contentMd5 === undefined && checksum === undefined) {
    throw new S3Failure(400, 'InvalidRequest', 'Missing required header for this request: Content-MD5 (or x-amz-checksum-crc32).');
  }
  const ingested = await ingestBody(source, {
    payload: options.payload,
    limit: options.limit,
    inMemory: true,
    ...(typeof contentMd5 === 'string' ? { contentMd5 } : {}),
  });
  const data = (ingested.body as { kind: 'bytes'; data: Buffer }).data;
  if (typeof checksum === 'string') {
    const actual = Buffer.alloc(4);
    actual.writeUInt32BE(crc32(data));
    if (actual.toString('base64') !== checksum)
      throw new S3Failure(400, 'BadDigest', 'The CRC32 you specified did not match the calculated checksum.');
  }
  return data;
}
