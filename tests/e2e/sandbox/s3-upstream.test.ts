/**
 * `b2-mcp sandbox --s3-upstream URL`: the authorize answer hands out another S3 server, whose
 * access key the sandbox accepts as an application key, so the unchanged server runs against it.
 * Here the upstream is a second sandbox's S3 API; tests/s3-real runs the same against Ceph RGW.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { S3_UPSTREAM_ENV, SandboxUsageError, runSandboxCommand } from '../../../src/sandbox/cli.js';
import type { RunningSandbox } from '../../../src/sandbox/index.js';
import { createB2NativeClient } from '../../../src/server/b2/native-client.js';
import { DATA_CAPABILITIES } from '../../support/s3.js';
import { connectToSandbox, createKey, startTestSandbox, textOf, type SandboxKey } from '../../support/sandbox-harness.js';

const UPSTREAM_SECRET = 'upstream-secret-canary-7f3a';
const env = { [S3_UPSTREAM_ENV.accessKeyId]: 'UPSTREAMKEY', [S3_UPSTREAM_ENV.secretAccessKey]: UPSTREAM_SECRET };
const never = new Promise<void>(() => {});

async function started(options: Record<string, string>, extraEnv: Record<string, string> = env) {
  const stdout = new PassThrough();
  let output = '';
  stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const running = runSandboxCommand({ seed: 'none', ...options }, { stdout, stopped, env: extraEnv });
  await expect.poll(() => output.includes('\n')).toBe(true);
  return { details: JSON.parse(output) as Record<string, string>, output, stop: async () => (stop(), await running) };
}

describe('the --s3-upstream option', () => {
  test('authorize answers point s3ApiUrl at the upstream; its access key is a sandbox key; the secret is not printed', async () => {
    const sandbox = await started({ s3Upstream: 'http://127.0.0.1:7480/' });
    try {
      expect(sandbox.details).toMatchObject({ s3Url: 'http://127.0.0.1:7480', s3UpstreamKeyId: 'UPSTREAMKEY' });
      expect(sandbox.output).not.toContain(UPSTREAM_SECRET);
      const viaUpstreamKey = await createB2NativeClient({
        apiUrl: sandbox.details.apiUrl!,
        applicationKeyId: 'UPSTREAMKEY',
        applicationKey: UPSTREAM_SECRET,
      }).authorize();
      expect(viaUpstreamKey.s3ApiUrl).toBe('http://127.0.0.1:7480');
      const viaMaster = await createB2NativeClient({
        apiUrl: sandbox.details.apiUrl!,
        applicationKeyId: sandbox.details.applicationKeyId!,
        applicationKey: sandbox.details.applicationKey!,
      }).authorize();
      expect(viaMaster.s3ApiUrl).toBe('http://127.0.0.1:7480');
      await expect(
        createB2NativeClient({ apiUrl: sandbox.details.apiUrl!, applicationKeyId: 'UPSTREAMKEY', applicationKey: 'wrong' }).authorize(),
      ).rejects.toMatchObject({ status: 401 });
    } finally {
      await sandbox.stop();
    }
  });

  test('the access key id may come from the flag', async () => {
    const sandbox = await started(
      { s3Upstream: 'https://s3.example.test', s3UpstreamAccessKeyId: 'FLAGKEY' },
      { [S3_UPSTREAM_ENV.secretAccessKey]: 'x' },
    );
    try {
      expect(sandbox.details).toMatchObject({ s3Url: 'https://s3.example.test', s3UpstreamKeyId: 'FLAGKEY' });
    } finally {
      await sandbox.stop();
    }
  });

  test.each([
    [{ s3Upstream: 'ftp://127.0.0.1/' }, env, /must be an http\(s\) URL/],
    [{ s3Upstream: 'not a url' }, env, /must be an http\(s\) URL/],
    [{ s3Upstream: 'http://id:secret@127.0.0.1/' }, env, /must not carry credentials/],
    [{ s3Upstream: 'http://127.0.0.1/bucket' }, env, /root URL/],
    [{ s3Upstream: 'http://127.0.0.1/' }, { [S3_UPSTREAM_ENV.accessKeyId]: 'K' }, new RegExp(S3_UPSTREAM_ENV.secretAccessKey)],
    [{ s3Upstream: 'http://127.0.0.1/' }, { [S3_UPSTREAM_ENV.secretAccessKey]: 'x' }, /access key id/],
    [{ s3Upstream: 'http://127.0.0.1/', s3UpstreamAccessKeyId: 'has:colon' }, env, /without ":"/],
    [{ s3UpstreamAccessKeyId: 'K' }, env, /needs --s3-upstream/],
  ])('refuses %j with a usage error', async (options, givenEnv, message) => {
    const running = runSandboxCommand({ seed: 'none', ...options }, { stopped: never, env: givenEnv });
    await expect(running).rejects.toThrow(SandboxUsageError);
    await expect(running).rejects.toThrow(message);
  });
});

describe("the unchanged server against an upstream (a second sandbox's S3 API)", () => {
  let upstream: RunningSandbox;
  let front: RunningSandbox;
  let key: SandboxKey;

  beforeAll(async () => {
    upstream = await startTestSandbox();
    key = await createKey(upstream, { capabilities: DATA_CAPABILITIES });
    front = await startTestSandbox({
      seed: 'none',
      s3Upstream: { url: upstream.s3Url, accessKeyId: key.applicationKeyId, secretAccessKey: key.applicationKey },
    });
  });
  afterAll(async () => {
    await front?.close();
    await upstream?.close();
  });

  test('s3_* tools reach the upstream; the front sandbox has no bucket of that name', async () => {
    expect(front.s3Url).toBe(upstream.s3Url);
    expect(front.store.findBucketByName('demo-private-assets')).toBeUndefined();
    const client = await connectToSandbox(front, key, { env: { B2_MCP_PROFILE: 'full' } });
    try {
      const put = await client.callTool('s3_put_object', {
        bucket: 'demo-private-assets',
        key: 'via-front/hello.txt',
        content: Buffer.from('hello upstream').toString('base64'),
      });
      expect(put.isError, textOf(put)).toBeFalsy();
      const bucketId = upstream.store.findBucketByName('demo-private-assets')!.bucketId;
      expect(upstream.store.latestVisible(bucketId, 'via-front/hello.txt')?.contentLength).toBe(14);
    } finally {
      await client.close();
    }
  });
});
