import { describe, expect, it } from 'vitest';
import type { ProbeSandbox } from '../../../src/conformance/probes/sandbox.js';
import type { TargetSeeder } from '../../../src/conformance/probes/targets.js';
import { judgeWriteEffect, writeSteps } from '../../../src/conformance/probes/writes.js';
import { FakeSandbox, type FakeServer, fakeSession, probeRun, text } from '../../support/probe-fakes.js';

/** The write probe's judgement by content: which store changes it sees, and what it says about them. */
const attempt = (result: Record<string, unknown>, mutations: Record<string, unknown>[] = []) =>
  ({
    outcome: { elicitations: [], ...result },
    mutations: mutations.map((fields, index) => ({ seq: index + 1, ...fields })),
    changes: [],
  }) as never;
const none = { mutations: [], changes: [] };

/** A fake sandbox that remembers which names the probe asked it to describe. */
class DescribingSandbox extends FakeSandbox {
  readonly described: string[][] = [];
  override asProbeSandbox(): ProbeSandbox {
    const sandbox = super.asProbeSandbox();
    const admin = sandbox.admin;
    return {
      ...sandbox,
      admin: (async (method: string, path: string, body?: Record<string, unknown>) => {
        if (path === '/describe') this.described.push(body!.names as string[]);
        return admin(method, path, body);
      }) as ProbeSandbox['admin'],
    };
  }
}

async function judgeOneWrite(sandbox: DescribingSandbox, changes: Record<string, unknown>[], state: Record<string, string | null>) {
  const run = probeRun(sandbox);
  const seeder = { seed: async () => ({}) } as unknown as TargetSeeder;
  const server: FakeServer = () => ({ outcome: text('done'), effect: { state } });
  const spec = { tool: 'b2_w', target: { kind: 'none' }, arguments: {}, effect: { mutations: [], changes } };
  await writeSteps(run, seeder, fakeSession(sandbox, server), [spec as never], {})[0]!.run();
  return run.observations.map(({ passed, detail }) => ({ passed, detail }));
}

describe('the changes a write made, as the store states them', () => {
  it('a removed version is named by the bucket and key of its digest name (a # in the key stays), and is not described', async () => {
    const sandbox = new DescribingSandbox();
    sandbox.digest['version:pics/dir/a#1.txt#f9'] = 'print';
    const removed = [{ change: 'version removed', bucket: 'pics', key: 'dir/a#1.txt' }];
    expect(await judgeOneWrite(sandbox, removed, { 'version:pics/dir/a#1.txt#f9': null })).toEqual([
      { passed: true, detail: 'did exactly what it declares (no operation; version removed pics/dir/a#1.txt)' },
    ]);
    expect(sandbox.described).toEqual([]);
  });

  it('an added version and an unfinished upload carry the facts the sandbox states about them', async () => {
    const sandbox = new DescribingSandbox();
    sandbox.facts['version:pics/a.txt#f1'] = { size: 3 };
    sandbox.facts['upload:pics/big.bin#u1'] = { parts: [1] };
    const changes = [
      { change: 'upload added', bucket: 'pics', key: 'big.bin', parts: [1] },
      { change: 'version added', bucket: 'pics', key: 'a.txt', size: 3 },
    ];
    const state = { 'version:pics/a.txt#f1': 'p1', 'upload:pics/big.bin#u1': 'p2', 'bucket:pics': 'p3' };
    const [verdict] = await judgeOneWrite(sandbox, changes, state);
    // The bucket's own change is no version or upload: it is named as it is, and it is one change too many.
    expect(verdict).toEqual({
      passed: false,
      detail: 'b2_w must change exactly what it declares; the store shows found instead or besides bucket added pics',
    });
    expect(sandbox.described).toEqual([['upload:pics/big.bin#u1', 'version:pics/a.txt#f1']]);
  });

  it('a version whose facts the sandbox does not state is missing the facts the table expects', async () => {
    const sandbox = new DescribingSandbox();
    const [verdict] = await judgeOneWrite(sandbox, [{ change: 'version added', bucket: 'b', key: 'k', size: 1 }], {
      'version:b/k#f1': 'p',
    });
    expect(verdict).toEqual({
      passed: false,
      detail:
        'b2_w must change exactly what it declares; the store shows missing version added b/k (size 1), found instead or besides version added b/k',
    });
  });
});

describe('what the write judgement says', () => {
  const logsPut = attempt(text('ok'), [{ operation: 'PutObject', bucketName: 'b', fileName: 'k' }]);

  it('a write declared to do nothing that logs an operation names "no operation" as what it must log', () => {
    expect(judgeWriteEffect('b2_w', none, logsPut, [])).toEqual({
      passed: false,
      detail: 'b2_w must log exactly no operation; it logged PutObject of b/k',
    });
  });

  it('several missing and several extra changes are listed with semicolons between them', () => {
    const expected = {
      mutations: [],
      changes: [
        { change: 'version added', bucket: 'b', key: 'one' },
        { change: 'version added', bucket: 'b', key: 'two' },
      ],
    };
    const observed = [
      { change: 'version added', bucket: 'b', key: 'three' },
      { change: 'bucket changed', name: 'b' },
    ];
    expect(judgeWriteEffect('b2_w', expected, attempt(text('ok')), observed)).toEqual({
      passed: false,
      detail:
        'b2_w must change exactly what it declares; the store shows missing version added b/one; version added b/two, found instead or besides version added b/three; bucket changed b',
    });
  });

  it('an extra change with neither a bucket nor a name is shown by what changed only', () => {
    expect(judgeWriteEffect('b2_w', none, attempt(text('ok')), [{ change: 'key added' }])).toEqual({
      passed: false,
      detail: 'b2_w must change exactly what it declares; the store shows found instead or besides key added ',
    });
  });

  it('a passing write lists every change it made, and "no change" when it made none', () => {
    const two = {
      mutations: [],
      changes: [
        { change: 'version added', bucket: 'b', key: 'one' },
        { change: 'version removed', bucket: 'b', key: 'two' },
      ],
    };
    const observed = [
      { change: 'version removed', bucket: 'b', key: 'two' },
      { change: 'version added', bucket: 'b', key: 'one' },
    ];
    expect(judgeWriteEffect('b2_w', two, attempt(text('ok')), observed)).toEqual({
      passed: true,
      detail: 'did exactly what it declares (no operation; version added b/one, version removed b/two)',
    });
    expect(judgeWriteEffect('b2_w', none, attempt(text('ok')), [])).toEqual({
      passed: true,
      detail: 'did exactly what it declares (no operation; no change)',
    });
  });
});

describe('the presigned URL a write returns', () => {
  const presign = (signedUrl: Record<string, unknown>) => ({ ...none, signedUrl }) as never;
  const judge = (want: Record<string, unknown>, said: string) => judgeWriteEffect('s3_p', presign(want), attempt(text(said)), []);

  it('an object URL without a part is named without one when it is missing', () => {
    expect(judge({ bucket: 'b', key: 'k.bin' }, 'nothing here')).toEqual({
      passed: false,
      detail: 's3_p must return exactly one presigned URL, for b/k.bin; it returned 0',
    });
  });

  it('only signed URLs count, over http or https; an unsigned link beside one is fine', () => {
    const said = 'see https://docs.example.com/presign and http://s3.example.com/b/k.bin?X-Amz-Signature=s';
    expect(judge({ bucket: 'b', key: 'k.bin' }, said)).toMatchObject({ passed: true });
  });

  it('a signed URL that is no URL at all is not counted', () => {
    expect(judge({ bucket: 'b', key: 'k.bin' }, 'https://[not-a-host/b/k.bin?X-Amz-Signature=s')).toEqual({
      passed: false,
      detail: 's3_p must return exactly one presigned URL, for b/k.bin; it returned 0',
    });
  });

  it('a virtual-hosted URL is for the object when its host starts with the bucket and its path is the key', () => {
    const want = { bucket: 'b', key: 'dir/k.bin' };
    expect(judge(want, 'https://b.s3.example.com/dir/k.bin?X-Amz-Signature=s')).toMatchObject({ passed: true });
    expect(judge(want, 'https://b.s3.example.com/dir/other.bin?X-Amz-Signature=s')).toMatchObject({ passed: false });
    expect(judge(want, 'https://s3.example.com/dir/k.bin?X-Amz-Signature=s')).toMatchObject({ passed: false });
    expect(judge(want, 'https://s3.example.b/dir/k.bin?X-Amz-Signature=s')).toMatchObject({ passed: false });
  });

  it('a URL for another upload or another part is for something else', () => {
    const want = { bucket: 'b', key: 'k.bin', uploadId: 'u1', partNumber: 2 };
    expect(judge(want, 'https://s3.example.com/b/k.bin?uploadId=u1&partNumber=2&X-Amz-Signature=s')).toMatchObject({ passed: true });
    expect(judge(want, 'https://s3.example.com/b/k.bin?uploadId=u2&partNumber=2&X-Amz-Signature=s')).toEqual({
      passed: false,
      detail: 's3_p returned a presigned URL for another object or part than b/k.bin part 2 (/b/k.bin)',
    });
    expect(judge(want, 'https://s3.example.com/b/k.bin?uploadId=u1&partNumber=3&X-Amz-Signature=s')).toMatchObject({ passed: false });
    expect(judge(want, 'https://s3.example.com/b/k.bin?partNumber=2&X-Amz-Signature=s')).toMatchObject({ passed: false });
  });
});
