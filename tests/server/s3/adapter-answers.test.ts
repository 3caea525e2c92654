/**
 * The S3 adapter against answers real S3-compatible servers give and the sandbox does not: keys
 * sent without the requested URL encoding, markers left unencoded in an encoded answer, garbled
 * encodings, and a multipart completion whose first answer was lost.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { ToolContext } from '../../../src/server/context.js';
import { createS3Adapter, type S3Adapter } from '../../../src/server/s3/adapter.js';
import { s3ObjectTools } from '../../../src/server/tools/s3-objects.js';
import { failure } from '../../support/failure.js';

/** How the fake server spells a listing. */
interface Spelling {
  /** Declare `<EncodingType>url</EncodingType>` and percent-encode keys (spaces as `+`). */
  encodeKeys: boolean;
  /** Percent-encode `NextKeyMarker` too (S3 does; some servers leave it raw). */
  encodeMarker: boolean;
}

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
}

const KEYS = ['a b', 'a%b', 'a%2Bb', 'a+b', 'z%zz'].sort();

const formEncoded = (key: string) => encodeURIComponent(key).replace(/%20/g, '+');
const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

let server: Server;
let s3: S3Adapter;
let spelling: Spelling;
/** Replaces the listing's keys, spelled exactly as given (for garbled answers). */
let rawKeys: string[] | undefined;
let seen: Seen[];
let completion: { attempts: number; loseFirstAnswer: boolean; forgetsCompleted: boolean; headEtag?: string; answerEtag: string };
/** When set, every request is answered 200 with this body. */
let garbage: string | undefined;
/** DeleteObject's answer headers. */
let deleteAnswer: Record<string, string>;

function listing(root: string, entries: string, page: string[], encoded: (k: string) => string): string {
  const last = page.at(-1);
  const truncated = last !== undefined && KEYS.indexOf(last) < KEYS.length - 1 && !rawKeys;
  const marker = truncated ? `<NextKeyMarker>${xmlText(spelling.encodeMarker ? encoded(last) : last)}</NextKeyMarker>` : '';
  return `<?xml version="1.0" encoding="UTF-8"?><${root}>${spelling.encodeKeys ? '<EncodingType>url</EncodingType>' : ''}<IsTruncated>${truncated}</IsTruncated>${marker}${entries}</${root}>`;
}

function pageAfter(query: URLSearchParams): string[] {
  const marker = query.get('key-marker') ?? '';
  return KEYS.filter((k) => k > marker).slice(0, 1);
}

function answer(req: IncomingMessage, res: ServerResponse, body: string): void {
  const url = new URL(req.url ?? '/', 'http://fake');
  const query = url.searchParams;
  seen.push({ method: req.method ?? '', path: url.pathname, query });
  if (garbage !== undefined) {
    res.writeHead(200, { 'content-type': 'application/xml' });
    return void res.end(garbage);
  }
  const encoded = (k: string) => (spelling.encodeKeys ? formEncoded(k) : k);
  const spelled = (page: string[]) => rawKeys ?? page.map(encoded);
  const xml = (status: number, text: string) => {
    res.writeHead(status, { 'content-type': 'application/xml' });
    res.end(text);
  };
  if (req.method === 'GET' && query.has('versions')) {
    const page = pageAfter(query);
    const entries = spelled(page)
      .map((k, i) => `<Version><Key>${xmlText(k)}</Key><VersionId>v${i}</VersionId><IsLatest>true</IsLatest><Size>1</Size></Version>`)
      .join('');
    return void xml(200, listing('ListVersionsResult', entries, page, formEncoded));
  }
  if (req.method === 'GET' && query.has('uploads')) {
    const page = pageAfter(query);
    const entries = spelled(page)
      .map((k) => `<Upload><Key>${xmlText(k)}</Key><UploadId>u-${xmlText(k)}</UploadId></Upload>`)
      .join('');
    return void xml(200, listing('ListMultipartUploadsResult', entries, page, formEncoded));
  }
  if (req.method === 'GET' && query.get('list-type') === '2') {
    const entries = spelled(KEYS)
      .map((k) => `<Contents><Key>${xmlText(k)}</Key><Size>1</Size></Contents>`)
      .join('');
    return void xml(
      200,
      `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult>${spelling.encodeKeys ? '<EncodingType>url</EncodingType>' : ''}<IsTruncated>false</IsTruncated><KeyCount>${KEYS.length}</KeyCount>${entries}</ListBucketResult>`,
    );
  }
  if (req.method === 'POST' && query.has('uploadId')) {
    completion.attempts += 1;
    if (completion.attempts === 1 && completion.loseFirstAnswer) return void req.socket.destroy();
    if (completion.attempts > 1 && completion.forgetsCompleted) {
      return void xml(404, '<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>');
    }
    return void xml(
      200,
      `<CompleteMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><ETag>${xmlText(completion.answerEtag)}</ETag></CompleteMultipartUploadResult>`,
    );
  }
  if (req.method === 'DELETE') {
    res.writeHead(204, deleteAnswer);
    return void res.end();
  }
  if (req.method === 'HEAD') {
    if (!completion.headEtag) {
      res.writeHead(404);
      return void res.end();
    }
    res.writeHead(200, { etag: completion.headEtag, 'x-amz-version-id': 'completed-version', 'content-length': '0' });
    return void res.end();
  }
  xml(400, `<Error><Code>Unexpected</Code><Message>${xmlText(req.method ?? '')} ${xmlText(body)}</Message></Error>`);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => answer(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  s3 = createS3Adapter({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    accessKeyId: 'AKFAKE',
    secretAccessKey: 'fake-secret',
  });
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  spelling = { encodeKeys: true, encodeMarker: true };
  rawKeys = undefined;
  seen = [];
  completion = { attempts: 0, loseFirstAnswer: false, forgetsCompleted: false, answerEtag: '"fresh-1"' };
  deleteAnswer = {};
  garbage = undefined;
});

async function allVersionKeys(): Promise<string[]> {
  const keys: string[] = [];
  let keyMarker: string | undefined;
  for (let page = 0; page < KEYS.length + 2; page++) {
    const result = await s3.listObjectVersions({ bucket: 'b', keyMarker, maxKeys: 1 });
    keys.push(...result.versions.map((v) => v.key));
    if (!result.isTruncated) return keys;
    keyMarker = result.nextKeyMarker;
  }
  throw new Error(`listing did not end: ${keys.join(' | ')}`);
}

async function allUploadKeys(): Promise<string[]> {
  const keys: string[] = [];
  let keyMarker: string | undefined;
  for (let page = 0; page < KEYS.length + 2; page++) {
    const result = await s3.listMultipartUploads({ bucket: 'b', keyMarker, maxUploads: 1 });
    keys.push(...result.uploads.map((u) => u.key));
    if (!result.isTruncated) return keys;
    keyMarker = result.nextKeyMarker;
  }
  throw new Error(`listing did not end: ${keys.join(' | ')}`);
}

describe('listing keys are decoded only where the answer declares EncodingType=url', () => {
  test('every listing asks for EncodingType=url', async () => {
    await s3.listObjectsV2({ bucket: 'b' });
    await s3.listObjectVersions({ bucket: 'b' });
    await s3.listMultipartUploads({ bucket: 'b' });
    expect(seen.map((s) => s.query.get('encoding-type'))).toEqual(['url', 'url', 'url']);
  });

  test('a declared answer is decoded: %XX escapes, and + for a space', async () => {
    const listed = await s3.listObjectsV2({ bucket: 'b' });
    expect(listed.objects.map((o) => o.key)).toEqual(KEYS);
  });

  test('an undeclared answer is taken as sent: % stays, + stays +', async () => {
    spelling = { encodeKeys: false, encodeMarker: false };
    const listed = await s3.listObjectsV2({ bucket: 'b' });
    expect(listed.objects.map((o) => o.key)).toEqual(KEYS);
    expect(listed.objects.map((o) => o.key)).toContain('a+b');
    expect(listed.objects.map((o) => o.key)).toContain('z%zz');
  });

  test.each([
    ['encoded keys and markers (S3)', { encodeKeys: true, encodeMarker: true }],
    ['encoded keys, raw markers (RADOS Gateway)', { encodeKeys: true, encodeMarker: false }],
    ['nothing encoded (a server that ignores EncodingType)', { encodeKeys: false, encodeMarker: false }],
  ])('version paging lists every key exactly once: %s', async (_name, how) => {
    spelling = how;
    expect(await allVersionKeys()).toEqual(KEYS);
  });

  test.each([
    ['encoded keys and markers', { encodeKeys: true, encodeMarker: true }],
    ['encoded keys, raw markers', { encodeKeys: true, encodeMarker: false }],
    ['nothing encoded', { encodeKeys: false, encodeMarker: false }],
  ])('upload paging lists every key exactly once: %s', async (_name, how) => {
    spelling = how;
    expect(await allUploadKeys()).toEqual(KEYS);
  });

  test('a declared answer whose key is not percent-encoding is reported as a garbled answer', async () => {
    rawKeys = ['fine', 'bad%zzkey'];
    const error = await failure(s3.listObjectsV2({ bucket: 'b' }));
    expect(error).toMatchObject({ status: 502, code: 'invalid_response' });
    expect(error.message).toContain('garbled listing');
    expect(error.message).toContain('"bad%zzkey"');
    expect(error.message).not.toMatch(/without an HTTP answer|URI malformed/);
    expect((await failure(s3.listObjectVersions({ bucket: 'b' }))).message).toContain('"bad%zzkey"');
  });
});

describe('a 200 that is not an S3 answer is reported as one', () => {
  test('an unreadable body: invalid_response naming the 200, not an S3 error code', async () => {
    garbage = '<ListBucketResult><Contents><Key>a</Key></Contents';
    const error = await failure(s3.listObjectsV2({ bucket: 'b' }));
    expect(error).toMatchObject({ status: 502, code: 'invalid_response' });
    expect(error.message).toMatch(/^S3 answered HTTP 200 with a body that is not a valid S3 answer/);
  });

  test.each([
    ['ListObjectsV2', () => s3.listObjectsV2({ bucket: 'b' })],
    ['ListObjectVersions', () => s3.listObjectVersions({ bucket: 'b' })],
    ['ListMultipartUploads', () => s3.listMultipartUploads({ bucket: 'b' })],
  ])('a well-formed page that is not a listing is not an empty %s', async (operation, list) => {
    garbage = '<html><body>Welcome to the captive portal</body></html>';
    const error = await failure(list());
    expect(error).toMatchObject({ status: 502, code: 'invalid_response' });
    expect(error.message).toContain(`S3 answered ${operation} with a body that is not a listing`);
  });
});

describe('multipart completion after a lost answer', () => {
  const parts = [
    { partNumber: 1, etag: `"${createHash('md5').update('one').digest('hex')}"` },
    { partNumber: 2, etag: `"${createHash('md5').update('two').digest('hex')}"` },
  ];
  const partsEtag = () => {
    const hash = createHash('md5');
    for (const p of parts) hash.update(Buffer.from(p.etag.slice(1, -1), 'hex'));
    return `"${hash.digest('hex')}-2"`;
  };
  const complete = () => s3.completeMultipartUpload({ bucket: 'b', key: 'k', uploadId: 'up-1', parts });

  test('a server that answers the retry like S3 (200) gives its answer', async () => {
    completion.loseFirstAnswer = true;
    expect(await complete()).toMatchObject({ etag: '"fresh-1"' });
    expect(completion.attempts).toBe(2);
  });

  test("a server that forgets the completed upload: the object with these parts' ETag proves the completion", async () => {
    Object.assign(completion, { loseFirstAnswer: true, forgetsCompleted: true, headEtag: partsEtag() });
    expect(await complete()).toEqual({ bucket: 'b', key: 'k', etag: partsEtag(), versionId: 'completed-version' });
    expect(seen.filter((s) => s.method === 'HEAD').map((s) => s.path)).toEqual(['/b/k']);
  });

  test('an object with another ETag, or none, leaves the NoSuchUpload standing', async () => {
    Object.assign(completion, { loseFirstAnswer: true, forgetsCompleted: true, headEtag: '"0123456789abcdef0123456789abcdef-2"' });
    expect(await failure(complete())).toMatchObject({ status: 404, code: 'NoSuchUpload' });
    Object.assign(completion, { attempts: 0, headEtag: undefined });
    expect(await failure(complete())).toMatchObject({ status: 404, code: 'NoSuchUpload' });
  });

  test('ETags come back in quotes as S3 spells them; an empty one is left out, not made up', async () => {
    completion.answerEtag = 'bare-2';
    expect((await complete()).etag).toBe('"bare-2"');
    completion.answerEtag = '';
    expect(await complete()).not.toHaveProperty('etag');
  });

  test('NoSuchUpload on the first attempt is the answer: no second guess', async () => {
    Object.assign(completion, { attempts: 1, forgetsCompleted: true, headEtag: partsEtag() });
    expect(await failure(complete())).toMatchObject({ status: 404, code: 'NoSuchUpload' });
    expect(seen.filter((s) => s.method === 'HEAD')).toEqual([]);
  });
});

describe('s3_delete_object says what happened', () => {
  const deleteObject = s3ObjectTools.find((t) => t.name === 's3_delete_object')!.handler;
  const context = { s3: async () => s3, signal: new AbortController().signal } as unknown as ToolContext;
  const textOf = async (args: Record<string, unknown>) => ((await deleteObject(args, context)) as { text: string }).text;

  test('an unversioned bucket (no delete marker in the answer): the object is gone', async () => {
    const text = await textOf({ bucket: 'b', key: 'k.txt' });
    expect(text).toMatch(/^Deleted s3:\/\/b\/k\.txt; /);
    expect(text).toContain('gone for good');
    expect(text).not.toMatch(/nothing changed|no current version/);
  });

  test('a versioned bucket: a delete marker hides the object', async () => {
    deleteAnswer = { 'x-amz-delete-marker': 'true', 'x-amz-version-id': 'marker-1' };
    expect(await textOf({ bucket: 'b', key: 'k.txt' })).toMatch(/hidden by delete marker marker-1; earlier versions remain/);
  });
});
