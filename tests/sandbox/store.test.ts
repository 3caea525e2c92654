import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { bytesBody, fillerBody, openBody, sha1Of } from '../../src/sandbox/bodies.js';
import { SandboxError } from '../../src/sandbox/errors.js';
import { compareCodePoints } from '../../src/contract/code-point-order.js';
import { SortedList } from '../../src/sandbox/sorted-list.js';
import { DAY_MS, SandboxStore, type ListPage } from '../../src/sandbox/store.js';
import { thrownBy } from '../support/failure.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');

function newStore() {
  let now = NOW;
  const store = new SandboxStore({ clock: () => now, idSalt: 'store-test' });
  return { store, tick: (ms: number) => (now += ms) };
}

function put(store: SandboxStore, bucketId: string, fileName: string, text = fileName) {
  return store.uploadFile(bucketId, {
    fileName,
    contentType: 'text/plain',
    body: bytesBody(Buffer.from(text)),
    contentSha1: 'x'.repeat(40),
  });
}

const names = (page: ListPage) => page.entries.map((e) => (e.kind === 'folder' ? `${e.fileName}[dir]` : e.version.fileName));

const refusal = (run: () => unknown): SandboxError => thrownBy(SandboxError, run);

describe('SortedList', () => {
  it('keeps any insert/remove sequence in order and seeks like a sorted array', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 300 })), { maxLength: 3000 }),
        fc.integer({ min: 0, max: 300 }),
        (ops, probe) => {
          const list = new SortedList<number>((a, b) => a - b);
          const model = new Set<number>();
          for (const [add, n] of ops) {
            if (add && !model.has(n)) {
              list.insert(n);
              model.add(n);
            } else if (!add) {
              expect(list.remove(n)).toBe(model.delete(n));
            }
          }
          const sorted = [...model].sort((a, b) => a - b);
          expect([...list]).toEqual(sorted);
          expect(list.size).toBe(sorted.length);
          expect([...list.from(list.lowerBound((x) => x < probe))]).toEqual(sorted.filter((x) => x >= probe));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('orders names by UTF-8 bytes, not UTF-16 code units', () => {
    const astral = '\u{1F680}'; // a surrogate pair in UTF-16, F0 9F 9A 80 in UTF-8
    const high = '\uFF5E'; // EF BD 9E in UTF-8
    expect(compareCodePoints(high, astral)).toBeLessThan(0);
    expect(high < astral).toBe(false); // what plain JS comparison would get wrong
    const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        fc.string({ unit: 'grapheme' }),
        (a, b) => Math.sign(compareCodePoints(a, b)) === Math.sign(byBytes(a, b)),
      ),
    );
  });
});

describe('SandboxStore listings', () => {
  it('lists names newest-version-only, hides hidden names, and pages with nextFileName', () => {
    const { store, tick } = newStore();
    const bucket = store.createBucket({ bucketName: 'listing-bucket', bucketType: 'allPrivate' });
    for (const name of ['b', 'a', 'c', 'd']) put(store, bucket.bucketId, name);
    tick(1000);
    const newest = put(store, bucket.bucketId, 'b', 'b v2');
    store.hideFile(bucket.bucketId, 'c');
    store.startLargeFile(bucket.bucketId, { fileName: 'e', contentType: 'application/octet-stream' });

    const first = store.listFileNames(bucket.bucketId, { maxFileCount: 2 });
    expect(names(first)).toEqual(['a', 'b']);
    expect(first.entries[1]).toMatchObject({ kind: 'version', version: { fileId: newest.fileId } });
    expect(first.nextFileName).toBe('d');
    const second = store.listFileNames(bucket.bucketId, { maxFileCount: 2, startFileName: first.nextFileName! });
    expect(names(second)).toEqual(['d']);
    expect(second.nextFileName).toBeNull();
  });

  it('lists every version (newest first per name, unfinished large files included) and resumes at startFileId', () => {
    const { store, tick } = newStore();
    const bucket = store.createBucket({ bucketName: 'versions-bucket', bucketType: 'allPrivate' });
    const v1 = put(store, bucket.bucketId, 'x');
    tick(1);
    const v2 = put(store, bucket.bucketId, 'x');
    const hide = store.hideFile(bucket.bucketId, 'x');
    const start = store.startLargeFile(bucket.bucketId, { fileName: 'y', contentType: 'text/plain' });

    const all = store.listFileVersions(bucket.bucketId, { maxFileCount: 10 });
    expect(all.entries.map((e) => (e.kind === 'version' ? [e.version.fileId, e.version.action] : null))).toEqual([
      [hide.fileId, 'hide'],
      [v2.fileId, 'upload'],
      [v1.fileId, 'upload'],
      [start.fileId, 'start'],
    ]);
    const page = store.listFileVersions(bucket.bucketId, { maxFileCount: 2 });
    expect(page).toMatchObject({ nextFileName: 'x', nextFileId: v1.fileId });
    const rest = store.listFileVersions(bucket.bucketId, { maxFileCount: 2, startFileName: 'x', startFileId: v1.fileId });
    expect(rest.entries.map((e) => (e.kind === 'version' ? e.version.fileId : ''))).toEqual([v1.fileId, start.fileId]);
    // Resuming still works after the resume point itself was deleted.
    store.deleteFileVersion(v1.fileId, 'x', { bypassGovernance: false });
    const afterDelete = store.listFileVersions(bucket.bucketId, { maxFileCount: 2, startFileName: 'x', startFileId: v1.fileId });
    expect(afterDelete.entries.map((e) => (e.kind === 'version' ? e.version.fileId : ''))).toEqual([start.fileId]);
  });

  it('collapses folders with a delimiter, skips folders with nothing visible, and respects prefix', () => {
    const { store } = newStore();
    const bucket = store.createBucket({ bucketName: 'folders-bucket', bucketType: 'allPrivate' });
    for (const name of ['a/1', 'a/2', 'a/b/3', 'b/1', 'c', 'gone/1', 'z/1']) put(store, bucket.bucketId, name);
    store.hideFile(bucket.bucketId, 'gone/1');

    expect(names(store.listFileNames(bucket.bucketId, { maxFileCount: 10, delimiter: '/' }))).toEqual([
      'a/[dir]',
      'b/[dir]',
      'c',
      'z/[dir]',
    ]);
    expect(names(store.listFileVersions(bucket.bucketId, { maxFileCount: 10, delimiter: '/' }))).toContain('gone/[dir]');
    expect(names(store.listFileNames(bucket.bucketId, { maxFileCount: 10, delimiter: '/', prefix: 'a/' }))).toEqual([
      'a/1',
      'a/2',
      'a/b/[dir]',
    ]);
    const paged = store.listFileNames(bucket.bucketId, { maxFileCount: 1, delimiter: '/' });
    expect(names(paged)).toEqual(['a/[dir]']);
    expect(paged.nextFileName).toBe('b/');
    expect(names(store.listFileNames(bucket.bucketId, { maxFileCount: 1, delimiter: '/', startFileName: 'b/' }))).toEqual(['b/[dir]']);
  });

  it('pages 20,000 versions without copying the collection: each page costs the same', () => {
    // Work counted, not timed: items the list's binary search compares and items a page walks.
    const work = { compared: 0, visited: 0 };
    const lowerBound = SortedList.prototype.lowerBound;
    const from = SortedList.prototype.from;
    vi.spyOn(SortedList.prototype, 'lowerBound').mockImplementation(function (this: SortedList<unknown>, isBefore) {
      return lowerBound.call(this, (item) => (work.compared++, isBefore(item)));
    });
    vi.spyOn(SortedList.prototype, 'from').mockImplementation(function* (this: SortedList<unknown>, cursor) {
      for (const item of from.call(this, cursor)) work.visited++, yield item;
    });
    const { store } = newStore();
    const bucket = store.createBucket({ bucketName: 'scale-bucket', bucketType: 'allPrivate' });
    const body = fillerBody(10);
    for (let i = 0; i < 20_000; i++) {
      store.uploadFile(bucket.bucketId, {
        fileName: `n/${String(i % 10_000).padStart(5, '0')}`,
        contentType: 'x/y',
        body,
        contentSha1: 'none',
      });
    }
    let pages = 0;
    let seen = 0;
    let startFileName: string | undefined;
    let startFileId: string | undefined;
    let previous = '';
    const costs: number[] = [];
    do {
      const before = work.compared + work.visited;
      const page = store.listFileVersions(bucket.bucketId, {
        maxFileCount: 1000,
        ...(startFileName ? { startFileName } : {}),
        ...(startFileId ? { startFileId } : {}),
      });
      costs.push(work.compared + work.visited - before);
      for (const e of page.entries) {
        const v = e.kind === 'version' ? e.version : undefined;
        const key = `${v!.fileName}\0${String(1e12 - v!.seq).padStart(13, '0')}`;
        expect(key > previous).toBe(true);
        previous = key;
      }
      seen += page.entries.length;
      pages++;
      startFileName = page.nextFileName ?? undefined;
      startFileId = page.nextFileId ?? undefined;
    } while (startFileName);
    expect(seen).toBe(20_000);
    expect(pages).toBe(20);
    // Every page walks its 1,000 items and a binary search, the last as the first (a scan from the start would walk 19,000).
    for (const cost of costs) expect(cost).toBeLessThan(1_000 + 200);
    vi.restoreAllMocks();
  });
});

describe('SandboxStore buckets and keys', () => {
  it('enforces B2 bucket name rules and uniqueness', () => {
    const { store } = newStore();
    expect(refusal(() => store.createBucket({ bucketName: 'short', bucketType: 'allPrivate' })).code).toBe('bad_request');
    expect(refusal(() => store.createBucket({ bucketName: 'has_underscore', bucketType: 'allPrivate' })).message).toMatch(
      /letters, digits/,
    );
    expect(refusal(() => store.createBucket({ bucketName: 'b2-reserved-name', bucketType: 'allPrivate' })).message).toMatch(/reserved/);
    store.createBucket({ bucketName: 'good-name-1', bucketType: 'allPrivate' });
    expect(refusal(() => store.createBucket({ bucketName: 'good-name-1', bucketType: 'allPublic' })).code).toBe('duplicate_bucket_name');
  });

  it('refuses to delete a non-empty bucket and to turn Object Lock off', () => {
    const { store } = newStore();
    const bucket = store.createBucket({ bucketName: 'locked-bucket', bucketType: 'allPrivate', fileLockEnabled: true });
    put(store, bucket.bucketId, 'f');
    expect(refusal(() => store.deleteBucket(bucket.bucketId)).code).toBe('cannot_delete_non_empty_bucket');
    expect(refusal(() => store.updateBucket(bucket.bucketId, { fileLockEnabled: false })).code).toBe('file_lock_conflict');
    expect(refusal(() => store.updateBucket(bucket.bucketId, { ifRevisionIs: 99, bucketType: 'allPublic' }))).toMatchObject({
      status: 409,
      code: 'conflict',
    });
    expect(store.updateBucket(bucket.bucketId, { ifRevisionIs: 1, bucketType: 'allPublic' }).revision).toBe(2);
  });

  it('issues tokens that expire with time, on demand, and with their key', () => {
    const { store, tick } = newStore();
    const key = store.createKey({ keyName: 'short-lived', capabilities: ['listBuckets'], validDurationInSeconds: 60 });
    const token = store.issueToken(key);
    expect(store.resolveToken(token.token).applicationKeyId).toBe(key.applicationKeyId);
    tick(61_000);
    expect(refusal(() => store.resolveToken(token.token)).code).toBe('expired_auth_token');
    expect(refusal(() => store.authenticate(key.applicationKeyId, key.applicationKey)).code).toBe('unauthorized');

    const master = store.issueToken(store.masterKey);
    expect(store.expireTokens()).toBeGreaterThan(0);
    expect(refusal(() => store.resolveToken(master.token))).toMatchObject({ status: 401, code: 'expired_auth_token' });
    expect(refusal(() => store.resolveToken('made-up'))).toMatchObject({ status: 401, code: 'bad_auth_token' });
    tick(2 * DAY_MS);
    expect(store.authenticate(store.accountId, store.masterKey.applicationKey).isMaster).toBe(true);
  });
});

describe('SandboxStore Object Lock', () => {
  function lockedBucket() {
    const ctx = newStore();
    const bucket = ctx.store.createBucket({ bucketName: 'object-lock', bucketType: 'allPrivate', fileLockEnabled: true });
    return { ...ctx, bucket };
  }

  it('legal hold blocks deletion until it is released', () => {
    const { store, bucket } = lockedBucket();
    const file = put(store, bucket.bucketId, 'held');
    store.setLegalHold(file.fileId, 'held', 'on');
    expect(refusal(() => store.deleteFileVersion(file.fileId, 'held', { bypassGovernance: true }))).toMatchObject({
      status: 403,
      code: 'access_denied',
    });
    store.setLegalHold(file.fileId, 'held', 'off');
    expect(store.deleteFileVersion(file.fileId, 'held', { bypassGovernance: false }).fileId).toBe(file.fileId);
  });

  it('compliance retention blocks deletion and weakening until it expires', () => {
    const { store, bucket, tick } = lockedBucket();
    const until = NOW + DAY_MS;
    const file = store.uploadFile(bucket.bucketId, {
      fileName: 'ledger',
      contentType: 'text/plain',
      body: bytesBody(Buffer.from('1')),
      contentSha1: 'x'.repeat(40),
      retention: { mode: 'compliance', retainUntilTimestamp: until },
    });
    expect(refusal(() => store.deleteFileVersion(file.fileId, 'ledger', { bypassGovernance: true })).code).toBe('access_denied');
    expect(refusal(() => store.setRetention(file.fileId, 'ledger', null, { bypassGovernance: true })).code).toBe('access_denied');
    expect(
      refusal(() =>
        store.setRetention(file.fileId, 'ledger', { mode: 'governance', retainUntilTimestamp: until + 1 }, { bypassGovernance: true }),
      ).code,
    ).toBe('access_denied');
    store.setRetention(file.fileId, 'ledger', { mode: 'compliance', retainUntilTimestamp: until + DAY_MS }, { bypassGovernance: false });
    tick(3 * DAY_MS);
    expect(store.deleteFileVersion(file.fileId, 'ledger', { bypassGovernance: false }).fileName).toBe('ledger');
  });

  it('governance retention yields only to bypassGovernance, and buckets apply their default', () => {
    const { store } = newStore();
    const bucket = store.createBucket({
      bucketName: 'governed',
      bucketType: 'allPrivate',
      fileLockEnabled: true,
      defaultRetention: { mode: 'governance', period: { duration: 7, unit: 'days' } },
    });
    const file = put(store, bucket.bucketId, 'doc');
    expect(file.retention).toEqual({ mode: 'governance', retainUntilTimestamp: NOW + 7 * DAY_MS });
    expect(refusal(() => store.deleteFileVersion(file.fileId, 'doc', { bypassGovernance: false })).code).toBe('access_denied');
    expect(refusal(() => store.setRetention(file.fileId, 'doc', null, { bypassGovernance: false })).code).toBe('access_denied');
    store.setRetention(file.fileId, 'doc', { mode: 'governance', retainUntilTimestamp: NOW + 30 * DAY_MS }, { bypassGovernance: false });
    expect(store.deleteFileVersion(file.fileId, 'doc', { bypassGovernance: true }).fileId).toBe(file.fileId);
  });

  it('refuses lock settings on buckets without Object Lock', () => {
    const { store } = newStore();
    const bucket = store.createBucket({ bucketName: 'plain-bucket', bucketType: 'allPrivate' });
    const file = put(store, bucket.bucketId, 'f');
    expect(refusal(() => store.setLegalHold(file.fileId, 'f', 'on')).code).toBe('bad_request');
    expect(
      refusal(() =>
        store.updateBucket(bucket.bucketId, { defaultRetention: { mode: 'governance', period: { duration: 1, unit: 'days' } } }),
      ).message,
    ).toMatch(/Object Lock/);
  });
});

describe('SandboxStore large files and bodies', () => {
  it('assembles parts in order, enforces the minimum part size, and streams ranges across parts', async () => {
    const { store } = newStore();
    const bucket = store.createBucket({ bucketName: 'large-files', bucketType: 'allPrivate' });
    const start = store.startLargeFile(bucket.bucketId, { fileName: 'big.bin', contentType: 'application/octet-stream' });
    const tiny = store.startLargeFile(bucket.bucketId, { fileName: 'tiny.bin', contentType: 'application/octet-stream' });
    const a = Buffer.alloc(5_000_000, 1);
    const b = Buffer.from('tail');
    store.uploadPart(start.fileId, { partNumber: 1, body: bytesBody(a), contentSha1: await sha1Of(bytesBody(a)), contentMd5: '' });
    store.uploadPart(start.fileId, { partNumber: 2, body: bytesBody(b), contentSha1: await sha1Of(bytesBody(b)), contentMd5: '' });
    store.uploadPart(tiny.fileId, { partNumber: 1, body: bytesBody(b), contentSha1: 'x', contentMd5: '' });
    store.uploadPart(tiny.fileId, { partNumber: 2, body: bytesBody(b), contentSha1: 'x', contentMd5: '' });

    expect(store.listUnfinishedLargeFiles(bucket.bucketId, { maxFileCount: 1 })).toMatchObject({
      files: [{ fileId: start.fileId }],
      nextFileId: tiny.fileId,
    });
    expect(refusal(() => store.finishLargeFile(start.fileId, { partSha1Array: ['wrong', 'wrong'] })).code).toBe('bad_request');
    expect(refusal(() => store.finishLargeFile(tiny.fileId, { partNumbers: [1, 2] })).code).toBe('part_too_small');
    const done = store.finishLargeFile(start.fileId, { partSha1Array: [await sha1Of(bytesBody(a)), await sha1Of(bytesBody(b))] });
    expect(done).toMatchObject({ action: 'upload', contentLength: 5_000_004 });
    expect(store.latestVisible(bucket.bucketId, 'big.bin')?.fileId).toBe(start.fileId);

    const chunks: Buffer[] = [];
    for await (const chunk of openBody(done.body!, { first: 4_999_998, last: 5_000_003 })) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks)).toEqual(Buffer.concat([Buffer.from([1, 1]), b]));
    expect(store.listUnfinishedLargeFiles(bucket.bucketId, { maxFileCount: 10 }).files.map((f) => f.fileId)).toEqual([tiny.fileId]);
  });
});
