import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SandboxUsageError, runSandboxCommand } from '../../src/sandbox/cli.js';
import { FaultInjector, FaultSpecError, parseFaultSpec } from '../../src/sandbox/faults.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { createB2NativeClient } from '../../src/server/b2/native-client.js';
import { FIXED_CLOCK, admin, authorizeRaw, b2Post, bucketIdOf } from '../support/sandbox-api.js';

describe('fault specs', () => {
  it('reads both spellings into rules', () => {
    expect(parseFaultSpec('rate=0.2,kinds=500|503|429|reset|stall,stallMs=2000,seed=1')).toEqual({
      rules: [{ rate: 0.2, kinds: ['500', '503', '429', 'reset', 'stall'] }],
      seed: 1,
      phase: 'before',
      stallMs: 2000,
      retryAfterSeconds: 1,
      latencyMs: 0,
    });
    expect(parseFaultSpec('500:0.2,429:0.1@b2_list_file_names,latency:50ms,phase=after')).toMatchObject({
      rules: [
        { rate: 0.2, kinds: ['500'] },
        { rate: 0.1, kinds: ['429'], ops: ['b2_list_file_names'] },
      ],
      latencyMs: 50,
      phase: 'after',
    });
    for (const bad of ['rate=2,kinds=500', 'kinds=500', '418:0.1', 'rate=0.1,kinds=teapot', 'nonsense', 'ops=a']) {
      expect(() => parseFaultSpec(bad), bad).toThrow(FaultSpecError);
    }
  });

  it('decides the same faults for the same seed and request sequence, only for matching operations', () => {
    const ops = Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? 'b2_list_buckets' : 'b2_list_keys'));
    const run = (seed: number) => {
      const injector = new FaultInjector(parseFaultSpec(`rate=0.3,kinds=500|503,seed=${seed},ops=b2_list_keys`));
      return ops.map((op) => injector.decide(op)?.kind ?? '-');
    };
    const first = run(42);
    expect(run(42)).toEqual(first);
    expect(run(43)).not.toEqual(first);
    expect(first.filter((_, i) => ops[i] === 'b2_list_buckets').every((k) => k === '-')).toBe(true);
    const faulted = first.filter((k) => k !== '-').length;
    expect(faulted).toBeGreaterThan(20);
    expect(faulted).toBeLessThan(70);
    expect(new FaultInjector(parseFaultSpec('429:1,phase=after')).decide('x')).toMatchObject({ kind: '429', phase: 'before' });
  });
});

describe('b2-mcp sandbox command', () => {
  it('prints exactly one JSON line with working connection details and stops on request', async () => {
    const stdout = new PassThrough();
    let output = '';
    stdout.on('data', (chunk) => (output += chunk));
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const running = runSandboxCommand({ port: '0', host: '127.0.0.1', seed: 'none' }, { stdout, stopped });
    await expect.poll(() => output.includes('\n')).toBe(true);
    expect(output.split('\n')).toHaveLength(2);
    const details = JSON.parse(output);
    expect(Object.keys(details)).toEqual(['apiUrl', 's3Url', 'accountId', 'applicationKeyId', 'applicationKey', 'adminUrl', 'adminToken']);
    const info = await createB2NativeClient({
      apiUrl: details.apiUrl,
      applicationKeyId: details.applicationKeyId,
      applicationKey: details.applicationKey,
    }).authorize();
    expect(info.accountId).toBe(details.accountId);
    expect(
      (await fetch(`${details.adminUrl}/state`, { headers: { authorization: `Bearer ${details.adminToken}` } }).then((r) => r.json())).stats
        .buckets,
    ).toBe(0);
    // The admin API answers only the holder of the printed token (a server under test can find the port, not the token).
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: details.adminToken }]) {
      const refused = await fetch(`${details.adminUrl}/mutations`, { headers });
      expect(refused.status).toBe(401);
      expect((await refused.json()).code).toBe('unauthorized');
    }
    stop();
    await running;
    await expect(fetch(`${details.apiUrl}/b2api/v4/b2_authorize_account`)).rejects.toThrow();
  });

  it('refuses bad flags with a usage error before listening', async () => {
    const never = new Promise<void>(() => {});
    await expect(runSandboxCommand({ port: 'eighty' }, { stopped: never })).rejects.toThrow(SandboxUsageError);
    await expect(runSandboxCommand({ seed: 'everything' }, { stopped: never })).rejects.toThrow(/--seed must be one of demo, none/);
    await expect(runSandboxCommand({ faults: 'rate=0.5,kinds=teapot' }, { stopped: never })).rejects.toThrow(/unknown fault kind "teapot"/);
  });
});

describe('--state', () => {
  it('saves the account on close and reloads it, keys and files included, tokens not', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'b2-sandbox-')), 'state.json');
    const first = await startSandbox({ stateFile, clock: () => FIXED_CLOCK });
    const b2 = createB2NativeClient({
      apiUrl: first.apiUrl,
      applicationKeyId: first.applicationKeyId,
      applicationKey: first.applicationKey,
    });
    const bucket = await b2.createBucket({ bucketName: 'persisted-bucket', bucketType: 'allPrivate' });
    const key = await b2.createKey({ keyName: 'persisted-key', capabilities: ['listBuckets'] });
    const oldToken = (await authorizeRaw(first)).token;
    await first.close();
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);

    const second = await startSandbox({ stateFile, seed: 'none', clock: () => FIXED_CLOCK });
    try {
      expect({ accountId: second.accountId, keyId: second.applicationKeyId, key: second.applicationKey }).toEqual({
        accountId: first.accountId,
        keyId: first.applicationKeyId,
        key: first.applicationKey,
      });
      expect(await bucketIdOf(second, 'persisted-bucket')).toBe(bucket.bucketId);
      expect((await authorizeRaw(second, key.applicationKeyId, key.applicationKey)).body.apiInfo.storageApi.allowed.capabilities).toEqual([
        'listBuckets',
      ]);
      expect((await b2Post(second, oldToken, 'b2_list_buckets', { accountId: second.accountId })).body.code).toBe('bad_auth_token');
      // The demo data came along (the seed option only applies to a fresh state).
      const master = (await authorizeRaw(second)).token;
      const files = await b2Post(second, master, 'b2_list_file_names', {
        bucketId: await bucketIdOf(second, 'demo-private-assets'),
        prefix: 'backups/',
      });
      expect(files.body.files.map((f: { fileName: string; contentLength: number }) => [f.fileName, f.contentLength])).toEqual([
        ['backups/db-2026.tar.gz', 12_000_000],
      ]);
      const unfinished = await b2Post(second, master, 'b2_list_unfinished_large_files', {
        bucketId: await bucketIdOf(second, 'demo-private-assets'),
      });
      expect(unfinished.body.files).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});

describe('demo seed and admin controls', () => {
  it('is deterministic for a given clock and id salt', async () => {
    const a = await startSandbox({ clock: () => FIXED_CLOCK, idSalt: 'same' });
    const b = await startSandbox({ clock: () => FIXED_CLOCK, idSalt: 'same' });
    try {
      const snapshot = async (s: typeof a) => {
        const state = await admin(s, 'GET', '/state');
        const token = (await authorizeRaw(s)).token;
        const versions = await b2Post(s, token, 'b2_list_file_versions', {
          bucketId: await bucketIdOf(s, 'demo-private-assets'),
          maxFileCount: 1000,
        });
        return { state, versions: versions.body };
      };
      expect(await snapshot(a)).toEqual(await snapshot(b));
      expect(a.applicationKey).toBe(b.applicationKey);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('lets tests move the clock so governance retention runs out, and reset restores the seed', async () => {
    const sandbox = await startSandbox({ clock: () => FIXED_CLOCK, idSalt: 'clock' });
    try {
      const token = (await authorizeRaw(sandbox)).token;
      const bucketId = await bucketIdOf(sandbox, 'demo-locked-records');
      const file = (await b2Post(sandbox, token, 'b2_list_file_names', { bucketId, prefix: 'ledger/2026' })).body.files[0];
      const del = () => b2Post(sandbox, token, 'b2_delete_file_version', { fileId: file.fileId, fileName: file.fileName });
      expect((await del()).status).toBe(403);
      await admin(sandbox, 'POST', '/clock', { advanceMs: 31 * 86_400_000 });
      // The master token (24 h) has expired by now as well.
      expect((await del()).body.code).toBe('expired_auth_token');
      const fresh = (await authorizeRaw(sandbox)).token;
      expect((await b2Post(sandbox, fresh, 'b2_delete_file_version', { fileId: file.fileId, fileName: file.fileName })).status).toBe(200);
      expect((await admin(sandbox, 'GET', '/mutations')).mutations).toHaveLength(1);

      await admin(sandbox, 'POST', '/reset');
      expect((await admin(sandbox, 'GET', '/mutations')).mutations).toEqual([]);
      const again = await b2Post(sandbox, fresh, 'b2_list_file_names', {
        bucketId: await bucketIdOf(sandbox, 'demo-locked-records'),
        prefix: 'ledger/2026',
      });
      expect(again.body.files).toHaveLength(1);
      await expect(admin(sandbox, 'POST', '/reset', { seed: 'bogus' })).rejects.toThrow(/seed must be one of/);
      // Every native request fails now, the admin API never does.
      await admin(sandbox, 'PUT', '/faults', { spec: 'rate=1,kinds=500|reset' });
      expect(
        (await b2Post(sandbox, fresh, 'b2_list_buckets', { accountId: sandbox.accountId }).catch(() => ({ status: 0 }))).status,
      ).not.toBe(200);
      expect((await admin(sandbox, 'GET', '/state')).accountId).toBe(sandbox.accountId);
      expect(Object.values((await admin(sandbox, 'GET', '/faults')).injected)).toEqual([1]);
      await admin(sandbox, 'DELETE', '/faults');
      await expect(admin(sandbox, 'PUT', '/faults', { spec: 'rate=9,kinds=500' })).rejects.toThrow(/rate/);
    } finally {
      await sandbox.close();
    }
  });
});
