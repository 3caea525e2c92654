import { describe, expect, it } from 'vitest';
import {
  REDACTED,
  collectSecretValues,
  createSanitizer,
  sanitizeProviderCode,
  sanitizeRequestId,
} from '../../../src/server/policy/sanitize.js';

const CANARY = 'B2_MCP_CANARY_SECRET_abc123';
const CONFIGURED = 'K005canaryapplicationkeyXYZ';

const results = createSanitizer([CONFIGURED]);
const logs = createSanitizer([CONFIGURED], { mode: 'log' });

function serialized(v: unknown): string {
  return JSON.stringify(v);
}

describe('key-based redaction', () => {
  it('K1: every structured secret name, in any normalized spelling, any value type', () => {
    const out = results.value({
      applicationKey: 'abc',
      app_key: 12345,
      'Master-Key': { nested: 'x' },
      uploadUrl: 'https://pod-000.backblaze.example/upload',
      customerKeyMd5: ['a', 'b'],
      password: null,
      privateKey: true,
      bucketName: 'photos',
    });
    expect(out).toEqual({
      applicationKey: REDACTED,
      app_key: REDACTED,
      'Master-Key': REDACTED,
      uploadUrl: REDACTED,
      customerKeyMd5: REDACTED,
      password: REDACTED,
      privateKey: REDACTED,
      bucketName: 'photos',
    });
  });

  it('K2: keys ending in "secret" are redacted, secretName is not', () => {
    expect(results.value({ clientSecret: 'short', webhook_secret: 'x', secretName: 'prod-hmac' })).toEqual({
      clientSecret: REDACTED,
      webhook_secret: REDACTED,
      secretName: 'prod-hmac',
    });
  });

  it('K3: keys ending in "token" are redacted, pagination cursors are not', () => {
    expect(
      results.value({
        refreshToken: 'rt',
        id_token: 'it',
        continuationToken: 'cursor-1',
        NextContinuationToken: 'cursor-2',
        next_token: 'cursor-3',
      }),
    ).toEqual({
      refreshToken: REDACTED,
      id_token: REDACTED,
      continuationToken: 'cursor-1',
      NextContinuationToken: 'cursor-2',
      next_token: 'cursor-3',
    });
  });

  it('K4: header values under any customHeaders ancestor are redacted, elsewhere "value" is kept', () => {
    const out = results.value({
      eventNotificationRules: [
        {
          targetConfiguration: {
            custom_headers: [
              { name: 'X-Team', value: 'hdr-val' },
              { name: 'X-Other', detail: { value: 'deep' } },
            ],
          },
        },
      ],
      metric: { value: 42 },
    });
    expect(out).toEqual({
      eventNotificationRules: [
        {
          targetConfiguration: {
            custom_headers: [
              { name: 'X-Team', value: REDACTED },
              { name: 'X-Other', detail: { value: REDACTED } },
            ],
          },
        },
      ],
      metric: { value: 42 },
    });
  });

  it('K5: secret header names', () => {
    const headers = {
      cookie: 'sid=1',
      'Set-Cookie': 'sid=2',
      'x-b2-mcp-key': 'k1',
      'X-B2-Master-Key': 'k2',
      'x-b2-app-key': 'k3',
      'content-type': 'application/json',
    };
    expect(results.value({ headers })).toEqual({
      headers: {
        cookie: REDACTED,
        'Set-Cookie': REDACTED,
        'x-b2-mcp-key': REDACTED,
        'X-B2-Master-Key': REDACTED,
        'x-b2-app-key': REDACTED,
        'content-type': 'application/json',
      },
    });
  });

  it('K6: key ids are kept in results and redacted in log mode', () => {
    const input = { applicationKeyId: '005abc', accessKeyId: 'AKIA1', app_key_id: 'x', masterKeyId: 'm' };
    expect(results.value(input)).toEqual(input);
    expect(logs.value(input)).toEqual({
      applicationKeyId: REDACTED,
      accessKeyId: REDACTED,
      app_key_id: REDACTED,
      masterKeyId: REDACTED,
    });
  });

  it('redacts inside nested arrays of arrays', () => {
    const out = results.value([[{ authToken: 'a' }], [[{ keep: 'b', nested: [{ sessionToken: 'c' }] }]]]);
    expect(out).toEqual([[{ authToken: REDACTED }], [[{ keep: 'b', nested: [{ sessionToken: REDACTED }] }]]]);
  });
});

describe('string-based redaction', () => {
  it('S1: configured secrets anywhere in any string, including keys that are not secret', () => {
    const out = results.value({ note: `created with ${CONFIGURED}.`, list: [CONFIGURED] });
    expect(out).toEqual({ note: `created with ${REDACTED}.`, list: [REDACTED] });
  });

  it('S1: several secrets, longest first, overlapping occurrences leave no fragment', () => {
    const sanitizer = createSanitizer(['abcdefgh12', 'gh12345678', 'abcdefgh12XYZW']);
    expect(sanitizer.text('a abcdefgh12XYZW b')).toBe(`a ${REDACTED} b`);
    const overlapped = sanitizer.text('[abcdefgh12345678]');
    expect(overlapped).toBe(`[${REDACTED}]`);
    expect(sanitizer.text('x abcdefgh12 y gh12345678 z')).toBe(`x ${REDACTED} y ${REDACTED} z`);
  });

  it('S1: regex metacharacters in secret values are literal', () => {
    const sanitizer = createSanitizer(['a+b*c?(d)[e]$']);
    expect(sanitizer.text('key a+b*c?(d)[e]$ end')).toBe(`key ${REDACTED} end`);
    expect(sanitizer.text('key aab*c?(d)[e]$ end')).toBe('key aab*c?(d)[e]$ end');
  });

  it('S1: values shorter than 8 characters, blank values and the marker itself are not secrets', () => {
    const sanitizer = createSanitizer(['short12', '          ', REDACTED, '']);
    expect(sanitizer.text('short12 and          spaces')).toBe('short12 and          spaces');
  });

  it('S2: canary values are redacted wherever they appear', () => {
    expect(results.text(`prefix ${CANARY}-tail! suffix`)).toBe(`prefix ${REDACTED}! suffix`);
    expect(results.value({ fileName: `dir/${CANARY}.txt` })).toEqual({ fileName: `dir/${REDACTED}.txt` });
  });

  it('S3: Bearer and Basic credentials lose the credential, keep the scheme', () => {
    expect(results.text('sent Bearer eyJhbGciOi.xyz_123 to server')).toBe(`sent Bearer ${REDACTED} to server`);
    expect(results.text('Basic dXNlcjpwYXNzd29yZA==')).toBe(`Basic ${REDACTED}`);
    expect(results.text('Bearer short')).toBe('Bearer short');
  });

  it('S4: labelled secrets in JSON, YAML-ish, header and env forms', () => {
    expect(results.text('{"applicationKey": "K001zzzzzz", "bucket":"b"}')).toBe(`{"applicationKey": "${REDACTED}", "bucket":"b"}`);
    expect(results.text("password='hunter2' user=bob")).toBe(`password='${REDACTED}' user=bob`);
    expect(results.text('x-b2-mcp-key=abc123&next=1')).toBe(`x-b2-mcp-key=${REDACTED}`);
    expect(results.text('B2_APPLICATION_KEY = K00xyz, region')).toBe(`B2_APPLICATION_KEY = ${REDACTED}, region`);
    expect(results.text('AUTHORIZATIONTOKEN:abc}')).toBe(`AUTHORIZATIONTOKEN:${REDACTED}}`);
    expect(results.text('B2_CREDENTIAL_PROD_MASTER_KEY=abc')).toBe(`B2_CREDENTIAL_PROD_MASTER_KEY=${REDACTED}`);
  });

  it('S4: longest label wins, already-redacted values and unrelated labels are left alone', () => {
    expect(results.text('masterApplicationKey: abc')).toBe(`masterApplicationKey: ${REDACTED}`);
    expect(results.text(`applicationKey: "${REDACTED}"`)).toBe(`applicationKey: "${REDACTED}"`);
    expect(results.text('applicationKeyId: 005abc, secretName: prod')).toBe('applicationKeyId: 005abc, secretName: prod');
  });

  it('rules apply in order: S3 then S4 leave neither the bearer credential nor the label value', () => {
    const out = results.text('Authorization: Bearer abcdefghijkl');
    expect(out).not.toContain('abcdefghijkl');
    expect(out).toBe(`Authorization: ${REDACTED} ${REDACTED}`);
  });

  it('S1 runs before S4: a configured secret with a label is redacted once, not mangled', () => {
    expect(results.text(`applicationKey=${CONFIGURED}`)).toBe(`applicationKey=${REDACTED}`);
  });

  it('strings that cannot match any rule come back unchanged', () => {
    for (const s of ['', 'a:b', 'bucket-1', 'plain text with no secrets in it', 'Bearer', 'size=10']) {
      expect(results.text(s)).toBe(s);
    }
  });
});

describe('S5: secrets inside encoded runs', () => {
  const binary = (text: string) => Buffer.concat([Buffer.from([0, 159, 255, 10]), Buffer.from(`${text} `), Buffer.from([0, 200])]);
  const decodedBase64 = (s: string) => Buffer.from(s, 'base64').toString('latin1');

  it.each([
    ['a configured secret', `env ${CONFIGURED} end`],
    ['a canary', `x ${CANARY} y`],
    ['a bearer credential', 'Authorization header Bearer abcdefghijklmnop'],
    ['a labelled secret', 'B2_APPLICATION_KEY=s3cr3tvalue12'],
    ['a labelled secret split by a line break', 'cookie:\nab'],
  ])('finds %s in base64 content and re-encodes it redacted, the other bytes intact', (_what, secret) => {
    const encoded = binary(secret).toString('base64');
    const out = results.text(encoded);
    expect(out).not.toBe(encoded);
    const decoded = decodedBase64(out);
    expect(decoded).toContain(REDACTED);
    expect(decoded.startsWith('\x00\x9f\xff\n')).toBe(true);
    expect(decoded.endsWith('\x00\xc8')).toBe(true);
    expect(results.value({ encoding: 'base64', content: encoded })).toEqual({ encoding: 'base64', content: out });
  });

  it('finds a secret in URL-safe base64 and in hex of either case, keeping the encoding', () => {
    const bytes = binary(`key ${CONFIGURED}`);
    const urlSafe = results.text(bytes.toString('base64url'));
    expect(urlSafe).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(urlSafe, 'base64url').toString('latin1')).toContain(`key ${REDACTED}`);
    for (const hex of [bytes.toString('hex'), bytes.toString('hex').toUpperCase()]) {
      const out = results.text(`dump: ${hex}`);
      const run = out.slice('dump: '.length);
      expect(run === run.toUpperCase()).toBe(hex === hex.toUpperCase());
      expect(Buffer.from(run, 'hex').toString('latin1')).toContain(`key ${REDACTED}`);
    }
  });

  it('finds a secret in hex written with a 0x prefix or with an odd digit before or after it, and keeps the rest of the run', () => {
    const hex = Buffer.from(`key ${CONFIGURED}`).toString('hex');
    for (const [run, prefix, suffix] of [
      [`0x${hex}`, '0x', ''],
      [`0X${hex.toUpperCase()}`, '0X', ''],
      [`7${hex}`, '7', ''],
      [`${hex}7`, '', '7'],
    ] as const) {
      const out = results.text(`dump: ${run} end`);
      expect(out).not.toContain(hex.slice(8, 40));
      const redacted = out.slice('dump: '.length, -' end'.length);
      expect([redacted.slice(0, prefix.length), redacted.slice(redacted.length - suffix.length)]).toEqual([prefix, suffix]);
      const digits = redacted.slice(prefix.length, redacted.length - suffix.length);
      expect(Buffer.from(digits, 'hex').toString('latin1')).toBe(`key ${REDACTED}`);
    }
  });

  it('finds the shortest configured secret (8 bytes) in the shortest run that carries it', () => {
    const short = createSanitizer(['abcdefgh']);
    expect(short.text(Buffer.from('abcdefgh').toString('base64'))).not.toBe(Buffer.from('abcdefgh').toString('base64'));
    expect(short.text(Buffer.from('abcdefgh').toString('hex'))).not.toBe(Buffer.from('abcdefgh').toString('hex'));
  });

  it('leaves encoded runs without secrets, ids and hashes untouched', () => {
    for (const s of [
      Buffer.from('harmless binary payload, nothing to see').toString('base64'),
      'da39a3ee5e6b4b0d3255bfef95601890afd80709',
      '4_z27c88f1d182b150646ff0b16_f1004ba650fe24e6b_d20260101_m1',
      '"0123456789abcdef0123456789abcdef"',
    ]) {
      expect(results.text(s)).toBe(s);
    }
  });
});

describe('S5 in every text layout, fragments, windows and per-request secrets', () => {
  const note = `the key used was ${CONFIGURED} until rotated`;
  const utf16le = Buffer.from(note, 'utf16le');
  const layouts: Record<string, Buffer> = {
    'UTF-16LE': utf16le,
    'UTF-16BE': Buffer.from(utf16le).swap16(),
    'UTF-16LE from an odd byte': Buffer.concat([Buffer.from([0x7f]), utf16le]),
    'UTF-16BE with a byte-order mark': Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(utf16le).swap16()]),
    'base64 text inside base64': Buffer.from(`blob ${Buffer.from(note).toString('base64')} end`),
    'hex of UTF-16LE': Buffer.from(utf16le.toString('hex')),
  };
  /** Any 6 characters of the secret, in any layout the test knows. */
  const leaks = (bytes: Buffer): boolean => {
    const pieces = Array.from({ length: CONFIGURED.length - 5 }, (_, i) => CONFIGURED.slice(i, i + 6));
    const views = [
      bytes.toString('latin1'),
      bytes.toString('utf16le'),
      bytes.subarray(1).toString('utf16le'),
      Buffer.from(bytes.subarray(0, bytes.length & ~1))
        .swap16()
        .toString('utf16le'),
      Buffer.from(bytes.subarray(1, 1 + ((bytes.length - 1) & ~1)))
        .swap16()
        .toString('utf16le'),
    ];
    const decoded = views.flatMap((view) =>
      [...view.matchAll(/[A-Za-z0-9+/]{16,}={0,2}|[0-9a-f]{16,}/g)].flatMap((run) =>
        [Buffer.from(run[0], 'base64'), Buffer.from(run[0], 'hex')].flatMap((b) => [b.toString('latin1'), b.toString('utf16le')]),
      ),
    );
    return [...views, ...decoded].some((text) => pieces.some((piece) => text.includes(piece)));
  };

  it.each(Object.keys(layouts))('finds the secret in %s carried as base64 and redacts it in that layout', (name) => {
    const bytes = layouts[name]!;
    expect(leaks(bytes)).toBe(true);
    const out = Buffer.from(results.text(bytes.toString('base64')), 'base64');
    expect(leaks(out)).toBe(false);
    // Only the secret went: the rest reads as before in the same layout.
    if (name === 'UTF-16LE') expect(out.toString('utf16le')).toBe(`the key used was ${REDACTED} until rotated`);
    if (name === 'UTF-16BE') expect(Buffer.from(out).swap16().toString('utf16le')).toBe(`the key used was ${REDACTED} until rotated`);
  });

  it('finds UTF-16 that decoded as UTF-8 text (NUL characters in a string)', () => {
    const out = results.text(utf16le.toString('utf8'));
    expect(leaks(Buffer.from(out, 'utf8'))).toBe(false);
    expect(Buffer.from(out, 'utf8').toString('utf16le')).toBe(`the key used was ${REDACTED} until rotated`);
  });

  it('redacts a secret cut in two, each piece in its own value', () => {
    const half = Math.floor(CONFIGURED.length / 2);
    expect(results.value({ a: `x ${CONFIGURED.slice(0, half)}`, b: `${CONFIGURED.slice(half)} y` })).toEqual({
      a: `x ${REDACTED}`,
      b: `${REDACTED} y`,
    });
  });

  it('leaves a piece shorter than the fragment length alone (12 characters: ordinary text stays readable)', () => {
    expect(results.text(`${CONFIGURED.slice(0, 11)} end`)).toBe(`${CONFIGURED.slice(0, 11)} end`);
  });

  it('window: any window that overlaps the secret gives none of it, in every layout; windows beside it are exact', () => {
    for (const [name, bytes] of Object.entries(layouts)) {
      for (let size = 1; size <= 12; size += 5) {
        const windows: Buffer[] = [];
        for (let start = 0; start < bytes.length; start += size)
          windows.push(results.window(bytes, start, Math.min(start + size, bytes.length)));
        expect(windows.some(leaks) || leaks(Buffer.concat(windows)), `${name}, windows of ${size}`).toBe(false);
      }
    }
    const plain = Buffer.from(note);
    expect(results.window(plain, 4, 7).toString()).toBe('key');
    expect(results.window(plain, 20, 24).toString()).toBe(REDACTED);
  });

  it('scanMargin reaches past the longest secret in its widest layout', () => {
    expect(results.scanMargin).toBeGreaterThanOrEqual(8 * CONFIGURED.length);
    expect(createSanitizer(['x'.repeat(1000)]).scanMargin).toBeGreaterThanOrEqual(8000);
  });

  it("withSecrets adds one request's own secrets and keeps the configured ones", () => {
    const own = 'K005therequestsownkey0123';
    const request = results.withSecrets([own, undefined]);
    expect(request.text(`a ${own} b ${CONFIGURED}`)).toBe(`a ${REDACTED} b ${REDACTED}`);
    expect(results.text(`a ${own}`)).toBe(`a ${own}`);
    expect(results.withSecrets([CONFIGURED, 'short'])).toBe(results);
    expect(logs.withSecrets([own]).mode).toBe('log');
  });
});

describe('structure handling', () => {
  it('never invokes accessors: they become [accessor] (or [redacted] under a secret key)', () => {
    let calls = 0;
    const hostile = {
      visible: 'ok',
      get trap(): string {
        calls += 1;
        throw new Error('getter invoked');
      },
    };
    Object.defineProperty(hostile, 'applicationKey', {
      enumerable: true,
      get() {
        calls += 1;
        return 'leak';
      },
    });
    const list: unknown[] = ['a'];
    Object.defineProperty(list, 1, {
      enumerable: true,
      get() {
        calls += 1;
        return 'leak';
      },
    });
    expect(results.value({ hostile, list })).toEqual({
      hostile: { visible: 'ok', trap: '[accessor]', applicationKey: REDACTED },
      list: ['a', '[accessor]'],
    });
    expect(logs.value(hostile)).toEqual({ visible: 'ok', trap: '[accessor]', applicationKey: REDACTED });
    expect(calls).toBe(0);
  });

  it('copies own enumerable properties only', () => {
    const proto = { inherited: 'no' };
    const obj = Object.create(proto) as Record<string, unknown>;
    obj.own = 'yes';
    Object.defineProperty(obj, 'hidden', { value: 'no', enumerable: false });
    obj[Symbol('sym') as unknown as string] = 'no';
    const out = results.value(obj) as Record<string, unknown>;
    expect(out).toEqual({ own: 'yes' });
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it('marks circular references, but copies shared (non-circular) references', () => {
    const shared = { name: 'shared' };
    const root: Record<string, unknown> = { a: shared, b: shared, list: [] as unknown[] };
    root.self = root;
    (root.list as unknown[]).push(root.list, { up: root });
    expect(results.value(root)).toEqual({
      a: { name: 'shared' },
      b: { name: 'shared' },
      list: ['[circular]', { up: '[circular]' }],
      self: '[circular]',
    });
  });

  it('does not mutate the input', () => {
    const input = {
      applicationKey: 'k',
      note: `uses ${CONFIGURED}`,
      nested: [{ authToken: 't', message: CANARY }],
    };
    const before = structuredClone(input);
    const out = results.value(input) as typeof input;
    expect(input).toEqual(before);
    expect(out).not.toBe(input);
    expect(out.nested).not.toBe(input.nested);
  });

  it('a "__proto__" key is copied as data, not as a prototype', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as object;
    const out = results.value(input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__', 'ok']);
    expect((out as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('keeps primitives and undefined array holes', () => {
    expect(results.value(5)).toBe(5);
    expect(results.value(null)).toBeNull();
    expect(results.value(true)).toBe(true);
    // eslint-disable-next-line no-sparse-arrays
    // biome-ignore lint/suspicious/noSparseArray: the hole is the case under test
    expect(serialized(results.value([1, , 3]))).toBe('[1,null,3]');
  });

  it('result mode drops functions, so a toJSON hook cannot bring back secrets', () => {
    const sneaky = { keep: 'x', toJSON: () => ({ leaked: CANARY }) };
    const out = results.value(sneaky);
    expect(Object.keys(out as object)).toEqual(['keep']);
    expect(serialized(out)).not.toContain(CANARY);
  });

  it('binary data is summarized, never copied', () => {
    const bytes = Buffer.from(`${CONFIGURED}`);
    expect(results.value({ bytes })).toEqual({ bytes: { type: 'Buffer', byteLength: bytes.length } });
    expect(logs.value(new Uint8Array(4))).toEqual({ type: 'ArrayBufferView', byteLength: 4 });
  });
});

describe('log mode extras', () => {
  it('functions, dates and invalid dates', () => {
    expect(logs.value({ fn: () => 1, at: new Date(Date.UTC(2026, 0, 2)), bad: new Date(Number.NaN) })).toEqual({
      fn: '[function]',
      at: '2026-01-02T00:00:00.000Z',
      bad: '[invalid_date]',
    });
  });

  it('errors are rebuilt with sanitized name, message, stack, cause and own fields', () => {
    const cause = new Error(`inner ${CANARY}`);
    const error = Object.assign(new TypeError(`outer uses ${CONFIGURED}`, { cause }), {
      code: 'bad_request',
      authorizationToken: 'tok',
    });
    const out = logs.value({ error }) as { error: Record<string, unknown> };
    expect(out.error.name).toBe('TypeError');
    expect(out.error.message).toBe(`outer uses ${REDACTED}`);
    expect(out.error.stack).toContain(`TypeError: outer uses ${REDACTED}`);
    expect(out.error.code).toBe('bad_request');
    expect(out.error.authorizationToken).toBe(REDACTED);
    expect((out.error.cause as Record<string, unknown>).message).toBe(`inner ${REDACTED}`);
    const text = serialized(out);
    expect(text).not.toContain(CONFIGURED);
    expect(text).not.toContain(CANARY);
  });

  it('error message getters are not invoked and self-referencing causes terminate', () => {
    let calls = 0;
    class Hostile extends Error {
      override get message(): string {
        calls += 1;
        return 'leak';
      }
    }
    const error = new Hostile();
    Object.defineProperty(error, 'cause', { value: error, enumerable: false });
    const out = logs.value(error) as Record<string, unknown>;
    expect(calls).toBe(0);
    expect(out.message).toBe('[accessor]');
    expect(out.stack).toBe('[accessor]');
    expect(out.cause).toBe('[circular]');
  });

  it('a whole log record carries no canary or configured secret', () => {
    const record = {
      event: 'tool.call',
      tool: 'b2_create_key',
      args: { keyName: 'ci', applicationKeyId: '0050000000000000000001' },
      detail: `response body {"applicationKey":"${CONFIGURED}","note":"${CANARY}"}`,
    };
    const line = serialized(logs.value(record));
    expect(line).not.toContain(CONFIGURED);
    expect(line).not.toContain(CANARY);
    expect(line).not.toContain('0050000000000000000001');
    expect(line).toContain('b2_create_key');
  });
});

describe('collectSecretValues', () => {
  it('reads the secret env names case-insensitively, keeps values ≥ 8 chars, skips blanks and duplicates', () => {
    const env = {
      AWS_SECRET_ACCESS_KEY: 'awssecret123',
      b2_application_key: 'K005lowercase',
      B2_APP_KEY: 'short',
      B2_MASTER_KEY: '          ',
      B2_CREDENTIAL_PROD_APP_KEY: 'credprod-app',
      b2_credential_ci_2_master_key: 'credci-master',
      B2_CREDENTIAL_X_APPLICATION_KEY: 'awssecret123',
      B2_APPLICATION_KEY_ID: '005keyid00000',
      B2_CREDENTIAL_PROD_APP_KEY_ID: '005keyid00001',
      HOME: '/home/someone',
    };
    expect(collectSecretValues(env, [undefined, 'configKey-1', 'tiny', CONFIGURED]).sort()).toEqual(
      ['awssecret123', 'K005lowercase', 'credprod-app', 'credci-master', 'configKey-1', CONFIGURED].sort(),
    );
  });

  it('collected values drive S1', () => {
    const sanitizer = createSanitizer(collectSecretValues({ B2_APPLICATION_KEY: 'K005fromEnvValue' }));
    expect(sanitizer.text('echo K005fromEnvValue')).toBe(`echo ${REDACTED}`);
  });
});

describe('provider identifiers', () => {
  it('codes: kept when plain, redacted when a rule changes them or the shape is wrong, unknown when empty', () => {
    expect(sanitizeProviderCode('bad_auth_token', results)).toBe('bad_auth_token');
    expect(sanitizeProviderCode('NoSuchKey', results)).toBe('NoSuchKey');
    expect(sanitizeProviderCode(undefined, results)).toBe('unknown_error');
    expect(sanitizeProviderCode('', results)).toBe('unknown_error');
    expect(sanitizeProviderCode(CONFIGURED, results)).toBe(REDACTED);
    expect(sanitizeProviderCode(CANARY, results)).toBe(REDACTED);
    expect(sanitizeProviderCode('has space', results)).toBe(REDACTED);
    expect(sanitizeProviderCode('_leading', results)).toBe(REDACTED);
    expect(sanitizeProviderCode('a'.repeat(129), results)).toBe(REDACTED);
  });

  it('request ids: kept when id-shaped and unchanged, absent stays absent', () => {
    expect(sanitizeRequestId('req-1:abc/def+ghi=', results)).toBe('req-1:abc/def+ghi=');
    expect(sanitizeRequestId(undefined, results)).toBeUndefined();
    expect(sanitizeRequestId('', results)).toBeUndefined();
    expect(sanitizeRequestId('password=hunter22', results)).toBe(REDACTED);
    expect(sanitizeRequestId('id with space', results)).toBe(REDACTED);
    expect(sanitizeRequestId('a'.repeat(257), results)).toBe(REDACTED);
  });
});

describe('large listings', () => {
  it('a 1000-file listing of ordinary names and ids passes through unchanged', () => {
    const files = Array.from({ length: 1000 }, (_, i) => ({
      fileName: `photos/2026/img_${i}.jpg`,
      fileId: `4_z27c88f1d182b150646ff0b16_f1004ba650fe24e6b_d20260101_m${i}`,
      contentLength: 1024 * i,
      contentType: 'image/jpeg',
      uploadTimestamp: 1767225600000 + i,
      fileInfo: { src_last_modified_millis: '1767225600000' },
      action: 'upload',
    }));
    const payload = { files, nextFileName: null, continuationToken: 'c' };
    // How fast it does so is a benchmark's business, not a unit test's.
    expect(results.value(payload)).toEqual(payload);
  });
});
