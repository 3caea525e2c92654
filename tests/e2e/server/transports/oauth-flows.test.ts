import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnsecuredJWT, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchHandler } from '../../../../src/index.js';
import { startFetchTarget, startProcessTarget, type GuardTarget, type StartTarget } from '../../../support/http-guard-support.js';
import { JSON_HEADERS, LIST_HEADERS, legacyInitialize, modernMessage } from '../../../support/http-client.js';
import { startLocalIssuer, type LocalIssuer } from '../../../support/oauth-issuer-support.js';

const PUBLIC_URL = 'http://localhost:8080';
const RESOURCE = `${PUBLIC_URL}/mcp`;
const METADATA_URL = `${PUBLIC_URL}/.well-known/oauth-protected-resource/mcp`;

let issuer: LocalIssuer;
beforeAll(async () => {
  issuer = await startLocalIssuer();
});
afterAll(() => issuer?.close());

/** Server credential mode over a pinned full profile: the token's scope alone decides the surface. */
const oauthEnv = (): Record<string, string> => ({
  B2_HTTP_CREDENTIAL_MODE: 'server',
  B2_MCP_PROFILE: 'full',
  B2_OAUTH_ISSUER: issuer.issuer,
  B2_MCP_PUBLIC_URL: PUBLIC_URL,
  B2_OAUTH_DANGEROUSLY_ALLOW_INSECURE_ISSUER_URL: 'true',
});

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
const token = (claims: Record<string, unknown> = {}): Promise<string> =>
  issuer.sign({ sub: 'user-1', aud: RESOURCE, scope: 'b2:admin', ...claims });

async function toolCount(target: GuardTarget, headers: Record<string, string>): Promise<number | string> {
  const res = await target.send({ headers: { ...LIST_HEADERS, ...headers }, body: JSON.stringify(modernMessage('tools/list')) });
  return res.status === 200 ? (res.json() as { result: { tools: unknown[] } }).result.tools.length : `${res.status} ${res.text}`;
}

describe.each([
  ['createFetchHandler', startFetchTarget],
  ['b2-mcp http', startProcessTarget],
] as Array<[string, StartTarget]>)('OAuth resource server (%s)', (_label, start) => {
  let target: GuardTarget;
  beforeAll(async () => {
    target = await start(oauthEnv());
  });
  afterAll(() => target?.stop());

  it('publishes RFC 9728 metadata naming the authorization server, without a token', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await target.send({ method: 'GET', path });
      expect([res.status, res.json()], path).toEqual([
        200,
        {
          resource: RESOURCE,
          authorization_servers: [issuer.issuer],
          scopes_supported: ['b2:admin', 'b2:write', 'b2:read'],
          bearer_methods_supported: ['header'],
          resource_signing_alg_values_supported: ['RS256'],
        },
      ]);
    }
    expect((await target.send({ method: 'GET', path: '/.well-known/oauth-protected-resource/elsewhere' })).status).toBe(404);
  });

  it('answers a request without a token 401 with WWW-Authenticate naming the metadata; health needs none', async () => {
    const res = await target.send({ headers: LIST_HEADERS, body: JSON.stringify(modernMessage('tools/list')) });
    expect([res.status, res.header('www-authenticate'), res.json()]).toEqual([
      401,
      `Bearer resource_metadata="${METADATA_URL}"`,
      { error: 'unauthorized', error_description: 'A Bearer token is required.' },
    ]);
    expect((await target.send({ method: 'GET' })).status).toBe(401);
    expect((await target.send({ method: 'GET', headers: { authorization: 'Basic dXNlcjpwYXNz' } })).header('www-authenticate')).toBe(
      `Bearer resource_metadata="${METADATA_URL}", error="invalid_request"`,
    );
    // Health answers without a token (503 here only because server mode has no key of its own).
    const health = await target.send({ method: 'GET', path: '/health' });
    expect([health.status, health.header('www-authenticate')]).toEqual([503, undefined]);
  });

  it('accepts a valid token, and its scope narrows the surface: admin 40, write 37, read 20 tools', async () => {
    expect(await toolCount(target, bearer(await token()))).toBe(40);
    for (const typ of ['JWT', 'jwt', 'application/at+jwt', 'AT+JWT']) {
      expect(
        await toolCount(target, bearer(await issuer.sign({ sub: 'user-1', aud: RESOURCE, scope: 'b2:admin' }, { header: { typ } }))),
        typ,
      ).toBe(40);
    }
    expect(await toolCount(target, bearer(await token({ scope: 'openid b2:write' })))).toBe(37);
    expect(await toolCount(target, bearer(await token({ scope: 'b2:read' })))).toBe(20);
    expect(await toolCount(target, bearer(await token({ scope: undefined, scp: ['b2:read', 'b2:write'] })))).toBe(37);
  });

  it('refuses a token with none of the b2 scopes with 403 insufficient_scope', async () => {
    const res = await target.send({
      headers: { ...LIST_HEADERS, ...bearer(await token({ scope: 'openid profile' })) },
      body: JSON.stringify(modernMessage('tools/list')),
    });
    expect([res.status, res.header('www-authenticate')]).toEqual([
      403,
      `Bearer resource_metadata="${METADATA_URL}", error="insufficient_scope", error_description="The token holds none of the b2:* scopes.", scope="b2:admin b2:write b2:read"`,
    ]);
  });

  it('refuses wrong audience, wrong issuer, expired, not yet valid, issued in the future, wrong key, alg none, HS256, a missing or non-string subject and a non-access-token typ with 401 invalid_token', async () => {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const foreign = await issuer.foreignKey();
    const cases: Array<[string, string, string]> = [
      ['wrong audience', await token({ aud: 'https://other.example/mcp' }), "The token's aud claim is not accepted."],
      ['wrong issuer', await token({ iss: 'https://evil.example' }), "The token's iss claim is not accepted."],
      ['expired', await token({ exp: nowSeconds - 3600 }), 'The token has expired.'],
      ['not yet valid', await token({ nbf: nowSeconds + 3600 }), "The token's nbf claim is not accepted."],
      ['no subject', await token({ sub: undefined }), "The token's sub claim is not accepted."],
      ['subject in a list', await token({ sub: ['user-1'] }), "The token's sub claim is not accepted."],
      ['subject a number', await token({ sub: 1 }), "The token's sub claim is not accepted."],
      ['empty subject', await token({ sub: '' }), "The token's sub claim is not accepted."],
      ['issued ten years ahead', await token({ iat: nowSeconds + 10 * 365 * 86_400 }), "The token's iat claim is not accepted."],
      ['issued beyond the skew', await token({ iat: nowSeconds + 3600 }), "The token's iat claim is not accepted."],
      [
        'a logout token',
        await issuer.sign({ sub: 'user-1', aud: RESOURCE, scope: 'b2:admin' }, { header: { typ: 'logout+jwt' } }),
        "The token's typ header is not accepted.",
      ],
      [
        'an ID token type',
        await issuer.sign({ sub: 'user-1', aud: RESOURCE, scope: 'b2:admin' }, { header: { typ: 'id_token+jwt' } }),
        "The token's typ header is not accepted.",
      ],
      [
        'no typ',
        await issuer.sign({ sub: 'user-1', aud: RESOURCE, scope: 'b2:admin' }, { header: { typ: undefined } }),
        "The token's typ header is not accepted.",
      ],
      [
        'wrong key',
        await issuer.sign({ sub: 'user-1', aud: RESOURCE, scope: 'b2:admin' }, { key: foreign }),
        'The token could not be verified.',
      ],
      [
        'alg none',
        new UnsecuredJWT({ iss: issuer.issuer, sub: 'user-1', aud: RESOURCE, scope: 'b2:admin', exp: nowSeconds + 600 }).encode(),
        'The token could not be verified.',
      ],
      [
        'HS256',
        await new SignJWT({ iss: issuer.issuer, sub: 'user-1', aud: RESOURCE, scope: 'b2:admin', exp: nowSeconds + 600 })
          .setProtectedHeader({ alg: 'HS256', kid: 'key-1' })
          .sign(new TextEncoder().encode('x'.repeat(32))),
        'The token could not be verified.',
      ],
    ];
    for (const [label, jwt, description] of cases) {
      const res = await target.send({ headers: { ...LIST_HEADERS, ...bearer(jwt) }, body: JSON.stringify(modernMessage('tools/list')) });
      expect([res.status, res.header('www-authenticate'), res.json()], label).toEqual([
        401,
        `Bearer resource_metadata="${METADATA_URL}", error="invalid_token", error_description="${description}"`,
        { error: 'invalid_token', error_description: description },
      ]);
      expect(res.text, label).not.toContain(jwt);
    }
  });

  it('serves a 2025-era session to the token that opened it; a narrower or another subject’s token cannot resume it', async () => {
    const admin = bearer(await token());
    const opened = await target.send({ headers: { ...JSON_HEADERS, ...admin }, body: JSON.stringify(legacyInitialize()) });
    expect(opened.status).toBe(200);
    const session = { 'mcp-session-id': opened.header('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const resume = (auth: Record<string, string>) => target.send({ headers: { ...JSON_HEADERS, ...session, ...auth }, body: list });
    const own = await resume(bearer(await token()));
    expect([own.status, own.text]).toEqual([200, expect.stringMatching(/b2_delete_bucket/)]);
    expect((await resume(bearer(await token({ scope: 'b2:read' })))).status).toBe(404);
    expect((await resume(bearer(await token({ sub: 'user-2' })))).status).toBe(404);
    expect((await resume({})).status).toBe(401);
  });
});

describe('OAuth: who the limits count, and the headers credential mode', () => {
  const list = (handler: ReturnType<typeof createFetchHandler>, headers: Record<string, string>) =>
    handler(
      new Request(RESOURCE, {
        method: 'POST',
        headers: { ...LIST_HEADERS, ...headers },
        body: JSON.stringify(modernMessage('tools/list')),
      }),
    );

  it('in server mode, rate-limits each token subject across client addresses', async () => {
    const handler = createFetchHandler({
      env: {
        ...oauthEnv(),
        B2_SECRET_SINK: 'off',
        LOG_LEVEL: 'silent',
        B2_MCP_RATE_LIMIT_RPS: '0.1',
        B2_MCP_RATE_LIMIT_BURST: '2',
        B2_TRUST_PROXY_HEADERS: 'true',
      },
    });
    const alice = bearer(await token({ sub: 'alice' }));
    expect((await list(handler, { ...alice, 'x-forwarded-for': '10.9.0.1' })).status).toBe(200);
    expect((await list(handler, { ...alice, 'x-forwarded-for': '10.9.0.2' })).status).toBe(200);
    const limited = await list(handler, { ...alice, 'x-forwarded-for': '10.9.0.3' });
    expect([limited.status, await limited.json()]).toEqual([429, { error: 'Rate limit exceeded' }]);
    expect((await list(handler, { ...bearer(await token({ sub: 'bob' })), 'x-forwarded-for': '10.9.0.4' })).status).toBe(200);
  });

  it('in headers mode, needs both the token and the B2 key, and the scope still narrows the key’s surface', async () => {
    const handler = createFetchHandler({
      env: { ...oauthEnv(), B2_HTTP_CREDENTIAL_MODE: 'headers', B2_MCP_PROFILE: 'default', B2_SECRET_SINK: 'off', LOG_LEVEL: 'silent' },
    });
    const key = { 'x-b2-mcp-key-id': 'tenant-id', 'x-b2-mcp-key': 'tenant-secret' };
    const count = async (headers: Record<string, string>) =>
      ((await (await list(handler, headers)).json()) as { result: { tools: unknown[] } }).result.tools.length;
    expect(await count({ ...key, ...bearer(await token()) })).toBe(37);
    expect(await count({ ...key, ...bearer(await token({ scope: 'b2:read' })) })).toBe(20);
    expect((await list(handler, key)).status).toBe(401);
    expect((await list(handler, bearer(await token()))).status).toBe(401);
  });

  it('with B2_OAUTH_ALLOWED_SUBJECTS, only the subjects listed use the server; another valid token gets 403 access_denied', async () => {
    const handler = createFetchHandler({
      env: { ...oauthEnv(), B2_OAUTH_ALLOWED_SUBJECTS: 'ops-bot, user-1', B2_SECRET_SINK: 'off', LOG_LEVEL: 'silent' },
    });
    try {
      expect((await list(handler, bearer(await token()))).status).toBe(200);
      expect((await list(handler, bearer(await token({ sub: 'ops-bot', scope: 'b2:read' })))).status).toBe(200);
      // A subject that only prints as an allowed one is not a subject at all.
      for (const sub of [['ops-bot'], ['user-1'], ['ops-bot', 'user-1']]) {
        const res = await list(handler, bearer(await token({ sub })));
        expect([res.status, await res.json()], JSON.stringify(sub)).toEqual([
          401,
          { error: 'invalid_token', error_description: "The token's sub claim is not accepted." },
        ]);
      }
      for (const sub of ['user-2', 'USER-1', 'user-1 ']) {
        const res = await list(handler, bearer(await token({ sub })));
        expect([res.status, res.headers.get('www-authenticate'), res.headers.get('retry-after'), await res.json()], sub).toEqual([
          403,
          `Bearer resource_metadata="${METADATA_URL}"`,
          null,
          { error: 'access_denied', error_description: "The token's subject may not use this server." },
        ]);
      }
    } finally {
      await handler.close();
    }
  });
});

describe('OAuth: tokens stay out of the logs', () => {
  it('neither an accepted nor a refused token appears in a debug log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'b2-mcp-oauth-'));
    const logFile = join(dir, 'server.log');
    const handler = createFetchHandler({ env: { ...oauthEnv(), B2_SECRET_SINK: 'off', LOG_LEVEL: 'debug', B2_LOG_FILE: logFile } });
    try {
      const good = await token();
      const expired = await token({ exp: Math.floor(Date.now() / 1000) - 10 });
      for (const jwt of [good, expired, `${good}tampered`]) {
        await handler(
          new Request(RESOURCE, {
            method: 'POST',
            headers: { ...LIST_HEADERS, ...bearer(jwt) },
            body: JSON.stringify(modernMessage('tools/list')),
          }),
        );
      }
      const log = readFileSync(logFile, 'utf8');
      expect(log).toMatch(/"event":"http.oauth_refused"/);
      expect(log).toMatch(/"event":"http.request".*"status":200/);
      for (const jwt of [good, expired]) {
        for (const part of jwt.split('.')) expect(log).not.toContain(part);
      }
    } finally {
      await handler.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
