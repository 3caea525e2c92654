/**
 * Redaction over the bytes the model receives (issue 24, holes 3 and 4): an object holding the
 * very key the request uses must not give it back, whatever slice of the object is read and
 * however its text is encoded, in every credential mode: stdio and HTTP with the server's own
 * key, and HTTP `headers` mode, where the key arrives with the request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/index.js';
import { connectToSandbox, createKey, sandboxCredentials, startTestSandbox, type SandboxKey } from '../../support/sandbox-harness.js';
import { connectHttp, serverEnv, startHttpServer, type Connected, type HttpServer } from '../../support/server-harness.js';
import { adapterFor, DATA_CAPABILITIES } from '../../support/s3.js';

const BUCKET = 'demo-private-assets';

let sandbox: RunningSandbox;
let key: SandboxKey;
let http: HttpServer[] = [];

/** What each object holds: the key, as a person might have saved it, in one text encoding. */
function layouts(secret: string): Record<string, { bytes: Buffer; contentType: string }> {
  const text = `notes from the backup run\nthe key used was ${secret} until it was rotated\n`;
  const le = Buffer.from(text, 'utf16le');
  return {
    'ascii.txt': { bytes: Buffer.from(text), contentType: 'text/plain' },
    'ascii.bin': { bytes: Buffer.from(text), contentType: 'application/octet-stream' },
    // UTF-16LE of ASCII is valid UTF-8, so a text type comes back as text with NULs in it.
    'utf16le.txt': { bytes: le, contentType: 'text/plain' },
    'utf16le.bin': { bytes: le, contentType: 'application/octet-stream' },
    'utf16be-bom.bin': {
      bytes: Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(le).swap16()]),
      contentType: 'application/octet-stream',
    },
    'base64-in-text.txt': { bytes: Buffer.from(`backup blob ${Buffer.from(text).toString('base64')} end`), contentType: 'text/plain' },
  };
}

/** The object bytes a result hands over, whatever its encoding. */
function bytesOf(result: Record<string, unknown>): Buffer {
  const structured = result.structuredContent as { encoding: string; content: string };
  return Buffer.from(structured.content, structured.encoding === 'base64' ? 'base64' : 'utf8');
}

/** Every way those bytes can be read as text; nested base64 runs decoded too. */
function readings(bytes: Buffer): string[] {
  const views = [
    bytes.toString('latin1'),
    bytes.toString('utf16le'),
    bytes.subarray(1).toString('utf16le'),
    Buffer.from(bytes.subarray(0, bytes.length & ~1))
      .swap16()
      .toString('utf16le'),
  ];
  const nested = views.flatMap((view) =>
    [...view.matchAll(/[A-Za-z0-9+/]{16,}={0,2}/g)].map((run) => Buffer.from(run[0], 'base64').toString('latin1')),
  );
  return [...views, ...nested];
}

/** The longest run of the secret's characters found in any reading (0 when none of 6 or more). */
function longestFragment(secret: string, texts: readonly string[]): number {
  let longest = 0;
  for (let length = 6; length <= secret.length; length++) {
    const found = Array.from({ length: secret.length - length + 1 }, (_, i) => secret.slice(i, i + length)).some((piece) =>
      texts.some((text) => text.includes(piece)),
    );
    if (!found) break;
    longest = length;
  }
  return longest;
}

beforeAll(async () => {
  sandbox = await startTestSandbox();
  key = await createKey(sandbox, { capabilities: DATA_CAPABILITIES });
  const s3 = adapterFor(sandbox, key);
  for (const [name, { bytes, contentType }] of Object.entries(layouts(key.applicationKey))) {
    await s3.putObject({ bucket: BUCKET, key: `redaction/${name}`, body: bytes, contentType });
  }
  const half = Math.floor(key.applicationKey.length / 2);
  const split = { first: key.applicationKey.slice(0, half), second: key.applicationKey.slice(half) };
  await s3.putObject({
    bucket: BUCKET,
    key: 'redaction/split.txt',
    body: Buffer.from('nothing here'),
    contentType: 'text/plain',
    metadata: split,
  });
});

afterAll(async () => {
  await Promise.all(http.map((server) => server.stop()));
  http = [];
  await sandbox?.close();
});

/** The three ways a request's key reaches the server. */
const MODES: Record<string, () => Promise<Connected>> = {
  'stdio, the process key': () => connectToSandbox(sandbox, key),
  'HTTP server mode, the process key': async () => {
    const server = await startHttpServer(serverEnv(sandboxCredentials(sandbox, key)));
    http.push(server);
    return connectHttp('legacy', new URL('/mcp', server.url));
  },
  'HTTP headers mode, the key the request brings': async () => {
    const server = await startHttpServer(serverEnv({ B2_API_URL: sandbox.apiUrl, B2_HTTP_CREDENTIAL_MODE: 'headers' }));
    http.push(server);
    return connectHttp('legacy', new URL('/mcp', server.url), {
      headers: { 'x-b2-mcp-key-id': key.applicationKeyId, 'x-b2-mcp-key': key.applicationKey },
    });
  },
};

describe.each(Object.keys(MODES))('%s', (mode) => {
  let client: Connected;
  beforeAll(async () => {
    client = await MODES[mode]!();
  });
  afterAll(() => client?.close());

  const read = async (name: string, range?: string): Promise<Buffer> => {
    const result = await client.callTool('s3_get_object', { bucket: BUCKET, key: `redaction/${name}`, ...(range && { range }) });
    expect(result.isError, JSON.stringify(result)).not.toBe(true);
    return bytesOf(result);
  };

  it.each(Object.keys(layouts('x')))('a whole read of %s hands over no part of the key', async (name) => {
    const bytes = await read(name);
    expect(bytes.length).toBeGreaterThan(0);
    expect(longestFragment(key.applicationKey, readings(bytes))).toBe(0);
  });

  it.each(['ascii.txt', 'ascii.bin', 'utf16le.bin', 'utf16be-bom.bin', 'base64-in-text.txt'])(
    'ranged reads of %s that cut the key give none of it back',
    async (name) => {
      const size = layouts(key.applicationKey)[name]!.bytes.length;
      const windows: Buffer[] = [];
      // Two halves split inside the key, then small windows across the whole object.
      const cut = Math.floor(size * 0.6);
      windows.push(await read(name, `bytes=0-${cut - 1}`), await read(name, `bytes=${cut}-`));
      for (let first = 0; first < size; first += 9) windows.push(await read(name, `bytes=${first}-${Math.min(first + 8, size - 1)}`));
      windows.push(await read(name, 'bytes=-20'));
      expect(longestFragment(key.applicationKey, [...windows.flatMap(readings), ...readings(Buffer.concat(windows))])).toBe(0);
    },
  );

  it('a key split across two metadata values is redacted in each', async () => {
    const result = await client.callTool('s3_head_object', { bucket: BUCKET, key: 'redaction/split.txt' });
    expect(result.structuredContent).toMatchObject({ metadata: { first: '[redacted]', second: '[redacted]' } });
    expect(longestFragment(key.applicationKey, [JSON.stringify(result)])).toBe(0);
  });

  it('a ranged read away from the key returns exactly the bytes asked for', async () => {
    const result = await client.callTool('s3_get_object', { bucket: BUCKET, key: 'redaction/ascii.txt', range: 'bytes=6-9' });
    expect(bytesOf(result).toString()).toBe('from');
    expect(result.structuredContent).toMatchObject({ contentLength: 4, contentRange: expect.stringMatching(/^bytes 6-9\/\d+$/) });
  });
});

describe('a ranged copy (s3_upload_part_copy) that would cut the key', () => {
  let client: Connected;
  beforeAll(async () => {
    client = await connectToSandbox(sandbox, key);
  });
  afterAll(() => client?.close());

  it('is refused, while ranges that hold all of it or none of it are copied', async () => {
    const source = layouts(key.applicationKey)['ascii.txt']!.bytes;
    const at = source.indexOf(key.applicationKey);
    const upload = await client.callTool('s3_create_multipart_upload', { bucket: BUCKET, key: 'redaction/copy-target.txt' });
    const { uploadId } = upload.structuredContent as { uploadId: string };
    const copy = (partNumber: number, range: string) =>
      client.callTool('s3_upload_part_copy', {
        bucket: BUCKET,
        key: 'redaction/copy-target.txt',
        uploadId,
        partNumber,
        copySource: `${BUCKET}/redaction/ascii.txt`,
        copySourceRange: range,
      });

    for (const range of [`bytes=0-${at + 5}`, `bytes=${at + 5}-${source.length - 1}`, `bytes=${at + 3}-${at + 9}`]) {
      const refused = await copy(1, range);
      expect(refused.isError, range).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('range_cuts_secret');
    }
    for (const [partNumber, range] of [
      [1, 'bytes=0-9'],
      [2, `bytes=0-${source.length - 1}`],
      [3, `bytes=${at + key.applicationKey.length}-${source.length - 1}`],
    ] as const) {
      const copied = await copy(partNumber, range);
      expect(copied.isError, `${range}: ${JSON.stringify(copied.content)}`).not.toBe(true);
    }
  });
});
