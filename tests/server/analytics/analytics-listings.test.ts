/**
 * b2_list_largest_files and b2_unfinished_uploads logic against the in-process sandbox over real
 * HTTP: exact results against brute force (hostile names, ties, versions), bounds and the time
 * budget (truncated, and how far the scan got).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillerBody, sha1Of } from '../../../src/sandbox/bodies.js';
import type { RunningSandbox } from '../../../src/sandbox/index.js';
import { HOSTILE_FILE_NAMES } from '../../../src/sandbox/seed.js';
import { listLargestFiles } from '../../../src/server/analytics/largest-files.js';
import { listUnfinishedUploads } from '../../../src/server/analytics/unfinished-uploads.js';
import { AWKWARD_TIMES_OF_DAY, clockAt, testClock } from '../../support/clock.js';
import { adminCall, createKey, startTestSandbox } from '../../support/sandbox-harness.js';
import { allVersions, bruteForceLargest, clientFor, NO_SIGNAL, unfinishedApiWithParts } from '../../support/analytics.js';

const NOW = Date.UTC(2026, 0, 15, 12);
const DAY = 86_400_000;
const essentials = (files: Array<{ file_name: string; size_bytes: number; file_id: string; current: boolean }>) =>
  files.map(({ file_name, size_bytes, file_id, current }) => ({ file_name, size_bytes, file_id, current }));

describe('b2_list_largest_files logic', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    let clock = NOW;
    sandbox = await startTestSandbox({ clock: () => (clock += 1000) });
    // Equal sizes whose order only the name tie-break decides (UTF-8 order: Z a b U+FFFD 🚀).
    for (const name of ['ties/🚀', 'ties/b', 'ties/\uFFFD', 'ties/Z', 'ties/a']) {
      await adminCall(sandbox, 'POST', '/files', {
        bucketName: 'demo-private-assets',
        fileName: name,
        text: 'x'.repeat(60_000_000 / 1000),
      });
    }
    // A second, larger version of a hostile name: the older one is then not current.
    await adminCall(sandbox, 'POST', '/files', {
      bucketName: 'demo-private-assets',
      fileName: 'hostile/line\nbreak.txt',
      text: 'y'.repeat(70_000),
    });
    const api = clientFor(sandbox);
    await api.createBucket({ bucketName: 'bulk-versions', bucketType: 'allPrivate' });
    for (const [namePrefix, count, size, versionsPerName] of [
      ['a/', 3000, 100, 3],
      ['b/', 1500, 5000, 1],
      ['c/', 1501, 200, 7],
    ] as const) {
      await adminCall(sandbox, 'POST', '/bulk-versions', { bucketName: 'bulk-versions', namePrefix, count, size, versionsPerName });
    }
    for (const [fileName, size] of [
      ['a/00500', 9000],
      ['b/01499', 8000],
      ['c/00001', 9000],
    ] as const) {
      await adminCall(sandbox, 'POST', '/files', { bucketName: 'bulk-versions', fileName, text: 'z'.repeat(size) });
    }
  });
  afterAll(() => sandbox.close());

  it('matches brute force on the demo bucket, hostile names included, for several k', async () => {
    const api = clientFor(sandbox);
    const versions = await allVersions(api, 'demo-private-assets');
    expect(versions.some((v) => v.action === 'hide')).toBe(true);
    expect(versions.some((v) => v.action === 'start')).toBe(true);
    for (const limit of [1, 3, 10, 100]) {
      const result = await listLargestFiles(api, { bucketName: 'demo-private-assets', limit, maxScan: 50_000, signal: NO_SIGNAL });
      expect(essentials(result.files), `limit ${limit}`).toEqual(bruteForceLargest(versions, limit));
      expect(result).toMatchObject({ truncated: false, scanned: versions.length });
      expect(result.stopped_by).toBeUndefined();
    }
  });

  it('returns every hostile name exactly, with its size, under a prefix', async () => {
    const api = clientFor(sandbox);
    const result = await listLargestFiles(api, {
      bucketName: 'demo-private-assets',
      prefix: 'hostile/',
      limit: 100,
      maxScan: 1000,
      signal: NO_SIGNAL,
    });
    const versions = await allVersions(api, 'demo-private-assets', 'hostile/');
    expect(essentials(result.files)).toEqual(bruteForceLargest(versions, 100));
    expect(new Set(result.files.map((f) => f.file_name))).toEqual(new Set(HOSTILE_FILE_NAMES));
    const lineBreak = result.files.filter((f) => f.file_name === 'hostile/line\nbreak.txt');
    expect(lineBreak.map((f) => [f.size_bytes, f.current])).toEqual([
      [70_000, true],
      [Buffer.byteLength(`content of ${JSON.stringify('hostile/line\nbreak.txt')}`), false],
    ]);
    expect(result.prefix).toBe('hostile/');
    expect(result.scanned).toBe(versions.length);
  });

  it('breaks size ties by UTF-8 name order, deterministically', async () => {
    const api = clientFor(sandbox);
    const run = () =>
      listLargestFiles(api, { bucketName: 'demo-private-assets', prefix: 'ties/', limit: 5, maxScan: 1000, signal: NO_SIGNAL });
    const first = await run();
    expect(first.files.map((f) => f.file_name)).toEqual(['ties/Z', 'ties/a', 'ties/b', 'ties/\uFFFD', 'ties/🚀']);
    expect(await run()).toEqual(first);
    expect(first.files[0]).toMatchObject({ size_bytes: 60_000, size: '60 KB', uploaded_at: expect.stringMatching(/^2026-01-15T/) });
  });

  it('stops at max_scan exactly, says so, and ranks what it scanned like brute force over that part', async () => {
    const api = clientFor(sandbox);
    const versions = await allVersions(api, 'bulk-versions');
    expect(versions).toHaveLength(3000 + 1500 + 1501 + 3);
    for (const [maxScan, pageSize] of [
      [2500, 1000],
      [2345, 700],
      [6004, 10_000],
    ] as const) {
      const result = await listLargestFiles(api, { bucketName: 'bulk-versions', limit: 7, maxScan, pageSize, signal: NO_SIGNAL });
      const seen = versions.slice(0, Math.min(maxScan, versions.length));
      expect(essentials(result.files), `max_scan ${maxScan}`).toEqual(bruteForceLargest(seen, 7));
      expect(result.scanned).toBe(seen.length);
      expect(result.scanned_bytes).toBe(seen.reduce((n, v) => n + v.contentLength, 0));
      if (maxScan < versions.length) {
        expect(result).toMatchObject({ truncated: true, stopped_by: 'max_scan', scanned_through: seen.at(-1)!.fileName });
        expect(result.note).toContain(`after ${maxScan} versions`);
      } else {
        expect(result.truncated).toBe(false);
        expect(result.note).toBeUndefined();
      }
    }
  });

  it('marks only the newest version of each name current', async () => {
    const api = clientFor(sandbox);
    const result = await listLargestFiles(api, {
      bucketName: 'bulk-versions',
      prefix: 'c/',
      limit: 100,
      maxScan: 50_000,
      signal: NO_SIGNAL,
    });
    const top = result.files;
    expect(top[0]).toMatchObject({ file_name: 'c/00001', size_bytes: 9000, current: true });
    // c/ names hold 7 versions of 200 bytes; the newest of each is current, the rest are not.
    expect(essentials(top)).toEqual(bruteForceLargest(await allVersions(api, 'bulk-versions', 'c/'), 100));
    expect(top.filter((f) => f.size_bytes === 200 && f.current).length).toBeGreaterThan(0);
    expect(top.filter((f) => f.size_bytes === 200 && !f.current).length).toBeGreaterThan(0);
  });

  it('stops at the time budget with what it had, and how far it got', async () => {
    const api = clientFor(sandbox);
    const versions = await allVersions(api, 'bulk-versions');
    await adminCall(sandbox, 'PUT', '/faults', { spec: 'latency:150ms' });
    try {
      const started = performance.now();
      const result = await listLargestFiles(api, {
        bucketName: 'bulk-versions',
        limit: 3,
        maxScan: 500_000,
        pageSize: 1000,
        budgetMs: 700,
        signal: NO_SIGNAL,
      });
      const elapsed = performance.now() - started;
      // Loose on purpose (a loaded machine fires timers late); the full scan at 150 ms a page
      // takes many seconds, and `scanned` below proves the scan stopped early.
      expect(elapsed).toBeLessThan(700 + 2_000);
      expect(result).toMatchObject({ truncated: true, stopped_by: 'time_budget' });
      expect(result.scanned % 1000).toBe(0);
      expect(result.scanned).toBeGreaterThan(0);
      expect(result.scanned).toBeLessThan(versions.length);
      expect(result.scanned_through).toBe(versions[result.scanned - 1]!.fileName);
      expect(essentials(result.files)).toEqual(bruteForceLargest(versions.slice(0, result.scanned), 3));
      expect(result.note).toContain('time budget');
    } finally {
      await adminCall(sandbox, 'DELETE', '/faults');
    }
  });

  it('propagates a caller cancellation instead of returning a partial result', async () => {
    const api = clientFor(sandbox);
    const caller = new AbortController();
    await adminCall(sandbox, 'PUT', '/faults', { spec: 'latency:100ms' });
    try {
      const cancelled = new Error('client went away');
      setTimeout(() => caller.abort(cancelled), 250);
      await expect(
        listLargestFiles(api, { bucketName: 'bulk-versions', limit: 3, maxScan: 500_000, pageSize: 500, signal: caller.signal }),
      ).rejects.toBe(cancelled);
    } finally {
      await adminCall(sandbox, 'DELETE', '/faults');
    }
  });

  it('refuses an unknown bucket with a 404 tool error', async () => {
    await expect(
      listLargestFiles(clientFor(sandbox), { bucketName: 'no-such-bucket', limit: 3, maxScan: 1000, signal: NO_SIGNAL }),
    ).rejects.toMatchObject({
      status: 404,
      code: 'bucket_not_found',
    });
  });
});

describe('b2_unfinished_uploads logic', () => {
  let sandbox: RunningSandbox;
  let bucketId: string;

  /** Starts an unfinished upload `daysAgo` days before NOW with parts of the given sizes. */
  async function unfinished(fileName: string, daysAgo: number, partSizes: number[]) {
    const file = sandbox.store.startLargeFile(bucketId, {
      fileName,
      contentType: 'application/octet-stream',
      uploadTimestamp: NOW - daysAgo * DAY,
    });
    for (const [i, size] of partSizes.entries()) {
      const body = fillerBody(size);
      sandbox.store.uploadPart(file.fileId, { partNumber: i + 1, body, contentSha1: await sha1Of(body), contentMd5: '' });
    }
    return file;
  }

  beforeAll(async () => {
    sandbox = await startTestSandbox({ clock: () => NOW });
    bucketId = (await clientFor(sandbox).createBucket({ bucketName: 'unfinished-many', bucketType: 'allPrivate' })).bucketId;
    // 130 uploads (two listing pages of 100), one with 1,200 parts (two parts pages of 1,000).
    for (let i = 0; i < 129; i++) await unfinished(`up/${String(i).padStart(3, '0')}`, i % 40, [1000 + i, 7]);
    await unfinished(
      'up/many-parts,"quoted"\nname',
      50,
      Array.from({ length: 1200 }, () => 10),
    );
  });
  afterAll(() => sandbox.close());

  /** Wasted bytes per upload straight from the store. */
  function bruteForce(olderThanDays?: number) {
    const cutoff = olderThanDays === undefined ? Infinity : NOW - olderThanDays * DAY;
    const uploads: Array<{ file_name: string; file_id: string; bytes: number; parts: number; started: number }> = [];
    let startFileId: string | undefined;
    for (;;) {
      const page = sandbox.store.listUnfinishedLargeFiles(bucketId, { maxFileCount: 100, ...(startFileId && { startFileId }) });
      for (const f of page.files) {
        if (f.uploadTimestamp > cutoff) continue;
        const parts = [...f.parts!.values()];
        uploads.push({
          file_name: f.fileName,
          file_id: f.fileId,
          bytes: parts.reduce((n, p) => n + p.contentLength, 0),
          parts: parts.length,
          started: f.uploadTimestamp,
        });
      }
      if (!page.nextFileId) break;
      startFileId = page.nextFileId;
    }
    return uploads;
  }

  it.each([testClock.label, ...AWKWARD_TIMES_OF_DAY])(
    'reports the demo partial upload and its 10 MB of parts exactly (clock: %s)',
    async (time) => {
      const clock = time === testClock.label ? testClock : clockAt(time);
      const sandboxDemo = await startTestSandbox({ clock: clock.now });
      try {
        const result = await listUnfinishedUploads(await unfinishedApiWithParts(sandboxDemo), {
          bucketName: 'demo-private-assets',
          maxUploads: 1000,
          now: clock.now,
          signal: NO_SIGNAL,
        });
        expect(result.uploads).toEqual([
          expect.objectContaining({ file_name: 'backups/partial-upload.bin', parts: 2, bytes: 10_000_000, size: '10 MB', age_days: 9 }),
        ]);
        expect(result).toMatchObject({
          upload_count: 1,
          wasted_bytes: 10_000_000,
          wasted_gb: 0.01,
          wasted: '10 MB',
          wasted_is_lower_bound: false,
          truncated: false,
          scanned: 1,
        });
      } finally {
        await sandboxDemo.close();
      }
    },
  );

  it('sums every part of every upload across listing and parts pages, like brute force', async () => {
    const api = await unfinishedApiWithParts(sandbox);
    const expected = bruteForce();
    expect(expected).toHaveLength(130);
    const result = await listUnfinishedUploads(api, { bucketName: 'unfinished-many', maxUploads: 1000, now: () => NOW, signal: NO_SIGNAL });
    expect(result.wasted_bytes).toBe(expected.reduce((n, u) => n + u.bytes, 0));
    expect(result.upload_count).toBe(130);
    expect(result.scanned).toBe(130);
    const sorted = [...expected].sort(
      (a, b) => b.bytes - a.bytes || a.started - b.started || Buffer.compare(Buffer.from(a.file_name), Buffer.from(b.file_name)),
    );
    expect(result.uploads.map((u) => [u.file_name, u.file_id, u.bytes, u.parts])).toEqual(
      sorted.map((u) => [u.file_name, u.file_id, u.bytes, u.parts]),
    );
    expect(result.uploads[0]).toMatchObject({ file_name: 'up/many-parts,"quoted"\nname', parts: 1200, bytes: 12_000, age_days: 50 });
    expect(result.uploads[1]).toMatchObject({ file_name: 'up/128', parts: 2, bytes: 1135 });
    expect(result.truncated).toBe(false);
  });

  it('filters by age', async () => {
    const api = await unfinishedApiWithParts(sandbox);
    for (const days of [0, 20, 39, 45]) {
      const expected = bruteForce(days);
      const result = await listUnfinishedUploads(api, {
        bucketName: 'unfinished-many',
        olderThanDays: days,
        maxUploads: 1000,
        now: () => NOW,
        signal: NO_SIGNAL,
      });
      expect(result.upload_count, `older than ${days}`).toBe(expected.length);
      expect(result.wasted_bytes).toBe(expected.reduce((n, u) => n + u.bytes, 0));
      expect(result.uploads.every((u) => u.age_days >= days)).toBe(true);
      expect(result.older_than_days).toBe(days);
      expect(result.scanned).toBe(130);
    }
  });

  it('caps at max_uploads and reports a lower bound', async () => {
    const api = await unfinishedApiWithParts(sandbox);
    const listed = bruteForce();
    const result = await listUnfinishedUploads(api, { bucketName: 'unfinished-many', maxUploads: 105, now: () => NOW, signal: NO_SIGNAL });
    expect(result).toMatchObject({ upload_count: 105, truncated: true, stopped_by: 'max_uploads', wasted_is_lower_bound: true });
    expect(result.wasted_bytes).toBe(listed.slice(0, 105).reduce((n, u) => n + u.bytes, 0));
    expect(result.wasted_bytes!).toBeLessThan(listed.reduce((n, u) => n + u.bytes, 0));
    expect(result.note).toContain('More than 105');
    // Exactly as many matches as the cap is complete, not truncated.
    const exact = await listUnfinishedUploads(api, { bucketName: 'unfinished-many', maxUploads: 130, now: () => NOW, signal: NO_SIGNAL });
    expect(exact).toMatchObject({ upload_count: 130, truncated: false, wasted_is_lower_bound: false });
  });

  it('stops at the time budget and marks the total a lower bound', async () => {
    const api = await unfinishedApiWithParts(sandbox);
    await clientFor(sandbox).authorize();
    await adminCall(sandbox, 'PUT', '/faults', { spec: 'latency:40ms' });
    try {
      const result = await listUnfinishedUploads(api, {
        bucketName: 'unfinished-many',
        maxUploads: 1000,
        budgetMs: 500,
        now: () => NOW,
        signal: NO_SIGNAL,
      });
      expect(result).toMatchObject({ truncated: true, stopped_by: 'time_budget', wasted_is_lower_bound: true });
      expect(result.upload_count).toBeGreaterThan(0);
      expect(result.upload_count).toBeLessThan(130);
      expect(result.note).toContain('time budget');
    } finally {
      await adminCall(sandbox, 'DELETE', '/faults');
    }
  });

  it('says wasted bytes are unknown when the key may not list parts (no writeFiles)', async () => {
    const readOnly = await createKey(sandbox, { capabilities: ['listBuckets', 'listFiles', 'readFiles'] });
    const denied = await listUnfinishedUploads(await unfinishedApiWithParts(sandbox, readOnly), {
      bucketName: 'unfinished-many',
      maxUploads: 5,
      now: () => NOW,
      signal: NO_SIGNAL,
    });
    expect(denied).toMatchObject({ wasted_bytes: null, wasted_gb: null, upload_count: 5 });
    expect(denied.uploads.every((u) => u.bytes === null && u.parts === null)).toBe(true);
    expect(denied.note).toContain('writeFiles');
  });
});
