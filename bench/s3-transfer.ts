/**
 * S3 data-plane transfers through the sandbox, in one process: a presigned PUT of a large object
 * (the URL minted by `s3_get_presigned_url`, the bytes sent by a plain HTTP client with a declared
 * Content-Length), then `s3_get_object` with `saveToPath` streaming it back to disk. Reported:
 * throughput (MB/s, 1 MB = 10^6 bytes) and peak RSS growth over the start of each phase — the
 * streams should keep that far below the object size (target ≤ 64 MB).
 */
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { startSandbox } from '../src/sandbox/index.js';
import { loadConfig } from '../src/server/config.js';
import type { ToolContext } from '../src/server/context.js';
import { createLogger } from '../src/server/logger.js';
import { createSanitizer } from '../src/server/policy/sanitize.js';
import { createS3Adapter } from '../src/server/s3/adapter.js';
import { TOOL_CATALOG } from '../src/server/tools/catalog.js';

const GiB = 1024 ** 3;
const CHUNK = 1024 * 1024;

interface Phase {
  seconds: number;
  mbPerSecond: number;
  rssGrowthMb: number;
}

export interface S3TransferResult {
  sizeBytes: number;
  presignedPut: Phase;
  getObjectSaveToPath: Phase;
  /** The saved file's MD5 equals the uploaded bytes' MD5. */
  roundTripIntact: boolean;
}

/** Peak RSS above the level at the start, sampled while `work` runs. */
async function measured(sizeBytes: number, work: () => Promise<void>): Promise<Phase> {
  const start = process.memoryUsage.rss();
  let peak = start;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 20);
  const began = performance.now();
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - began) / 1000;
  peak = Math.max(peak, process.memoryUsage.rss());
  const round = (n: number) => Math.round(n * 10) / 10;
  return { seconds: round(seconds), mbPerSecond: round(sizeBytes / 1e6 / seconds), rssGrowthMb: round((peak - start) / 1e6) };
}

/** `sizeBytes` of non-repeating data, generated chunk by chunk (never held whole), hashed on the way. */
function generated(sizeBytes: number, md5: ReturnType<typeof createHash>): Readable {
  let sent = 0;
  let counter = 0;
  return new Readable({
    read() {
      if (sent >= sizeBytes) return void this.push(null);
      const chunk = createHash('sha512').update(String(counter++)).digest();
      const block = Buffer.alloc(Math.min(CHUNK, sizeBytes - sent));
      for (let i = 0; i < block.length; i += chunk.length) chunk.copy(block, i);
      sent += block.length;
      md5.update(block);
      this.push(block);
    },
  });
}

function putStream(url: string, body: Readable, length: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'PUT', headers: { 'content-length': String(length) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    pipeline(body, req).catch(reject);
  });
}

async function md5OfFile(path: string): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export async function benchS3Transfer(sizeBytes: number = GiB): Promise<S3TransferResult> {
  const sandbox = await startSandbox({ seed: 'none' });
  const directory = mkdtempSync(join(tmpdir(), 'bench-s3-'));
  try {
    sandbox.store.createBucket({ bucketName: 'bench-transfer', bucketType: 'allPrivate' });
    const key = sandbox.store.createKey({ keyName: 'bench', capabilities: ['listBuckets', 'listFiles', 'readFiles', 'writeFiles'] });
    const s3 = createS3Adapter({
      endpoint: sandbox.s3Url,
      region: 'us-west-004',
      accessKeyId: key.applicationKeyId,
      secretAccessKey: key.applicationKey,
    });
    const context: ToolContext = {
      config: loadConfig({ B2_MCP_PROFILE: 'full', B2_ALLOW_LOCAL_FILES: 'true', B2_FILE_ROOT: directory, B2_SECRET_SINK: 'off' }, 'stdio'),
      logger: createLogger({ level: 'silent', redact: (record) => record }),
      signal: new AbortController().signal,
      capabilities: null,
      b2: () => {
        throw new Error('not used');
      },
      partner: () => {
        throw new Error('not used');
      },
      s3: async () => s3,
      protectedValues: () => [key.applicationKeyId, key.applicationKey],
      redaction: createSanitizer([]),
    };
    const tool = (name: string) => TOOL_CATALOG.find((t) => t.name === name)!;
    // Load the SDK and warm the connection path before measuring.
    await s3.headBucket('bench-transfer');

    const minted = (await tool('s3_get_presigned_url').handler(
      { bucket: 'bench-transfer', key: 'big.bin', operation: 'PutObject', expiresIn: 3600 },
      context,
    )) as {
      structured: { url: string };
    };
    const uploaded = createHash('md5');
    let status = 0;
    const presignedPut = await measured(sizeBytes, async () => {
      status = await putStream(minted.structured.url, generated(sizeBytes, uploaded), sizeBytes);
    });
    if (status !== 200) throw new Error(`presigned PUT answered HTTP ${status}`);

    const target = join(directory, 'big.bin');
    const getObjectSaveToPath = await measured(sizeBytes, async () => {
      await tool('s3_get_object').handler({ bucket: 'bench-transfer', key: 'big.bin', saveToPath: target }, context);
    });
    const roundTripIntact = statSync(target).size === sizeBytes && (await md5OfFile(target)) === uploaded.digest('hex');
    return {
      sizeBytes,
      presignedPut,
      getObjectSaveToPath,
      roundTripIntact,
    };
  } finally {
    await sandbox.close();
    rmSync(directory, { recursive: true, force: true });
  }
}
