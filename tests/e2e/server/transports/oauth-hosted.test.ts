import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../../src/sandbox/index.js';
import { createFetchHandler } from '../../../../src/index.js';
import { startFetchTarget, startProcessTarget, type GuardTarget } from '../../../support/http-guard-support.js';
import { JSON_HEADERS, modernMessage } from '../../../support/http-client.js';
import { INTROSPECTION_CLIENT, startLocalIssuer, type LocalIssuer } from '../../../support/oauth-issuer-support.js';
import { adminCall, createKey, startTestSandbox, type SandboxKey } from '../../../support/sandbox-harness.js';

/**
 * Hosted multi-user deployment: `principal` credential mode (each token subject its own B2 key),
 * opaque tokens checked by RFC 7662 introspection, required scopes and an explicit resource.
 */

const PUBLIC_URL = 'http://localhost:8080';
const RESOURCE = `${PUBLIC_URL}/mcp`;

let issuer: LocalIssuer;
beforeAll(async () => {
  issuer = await startLocalIssuer();
});
afterAll(() => issuer?.close());

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
const oauthEnv = (): Record<string, string> => ({
  B2_OAUTH_ISSUER: issuer.issuer,
  B2_MCP_PUBLIC_URL: PUBLIC_URL,
  B2_OAUTH_DANGEROUSLY_ALLOW_INSECURE_ISSUER_URL: 'true',
});

const listTools = (target: GuardTarget, headers: Record<string, string>) =>
  target.send({ headers: { ...JSON_HEADERS, 'mcp-method': 'tools/list', ...headers }, body: JSON.stringify(modernMessage('tools/list')) });

async function bucketNames(target: GuardTarget, headers: Record<string, string>): Promise<string[] | string> {
  const res = await target.send({
    headers: { ...JSON_HEADERS, 'mcp-method': 'tools/call', 'mcp-name': 'b2_list_buckets', ...headers },
    body: JSON.stringify(modernMessage('tools/call', { name: 'b2_list_buckets', arguments: {} })),
  });
  if (res.status !== 200) return `${res.status} ${res.text}`;
  const { result } = res.json() as { result: { isError?: boolean; structuredContent?: { buckets: Array<{ bucketName: string }> } } };
  if (result.isError || !result.structuredContent) return res.text;
  return result.structuredContent.buckets.map((bucket) => bucket.bucketName).sort();
}

describe('principal credential mode: each token subject uses its own B2 key (b2-mcp http against the sandbox)', () => {
  let sandbox: RunningSandbox;
  let target: GuardTarget;
  let aliceKey: SandboxKey;
  let bobKey: SandboxKey;
  let dir: string;

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    const { buckets } = await adminCall<{ buckets: Array<{ bucketId: string; bucketName: string }> }>(sandbox, 'GET', '/state');
    const idOf = (name: string): string => buckets.find((bucket) => bucket.bucketName === name)!.bucketId;
    const capabilities = ['listBuckets', 'readBuckets', 'listFiles', 'readFiles'];
    aliceKey = await createKey(sandbox, { keyName: 'alice', capabilities, bucketIds: [idOf('demo-private-assets')] });
    bobKey = await createKey(sandbox, { keyName: 'bob', capabilities, bucketIds: [idOf('demo-public-site')] });
    // Bob's key comes from secret files, as a container's secret store mounts them.
    dir = mkdtempSync(join(tmpdir(), 'b2-mcp-principal-'));
    writeFileSync(join(dir, 'bob-id'), `${bobKey.applicationKeyId}\n`);
    writeFileSync(join(dir, 'bob-key'), `${bobKey.applicationKey}\n`);
    target = await startProcessTarget(principalEnv());
  });
  /** Alice's key from the environment, Bob's from secret files (a reference written with `-` and with `_`). */
  const principalEnv = (): Record<string, string> => ({
    ...oauthEnv(),
    B2_API_URL: sandbox.apiUrl,
    B2_MCP_PROFILE: '',
    B2_HTTP_CREDENTIAL_MODE: 'principal',
    B2_PRINCIPAL_CREDENTIAL_MAP: JSON.stringify({ [`${issuer.issuer}#alice`]: 'tenant-alice', bob: 'tenant_bob' }),
    B2_CREDENTIAL_TENANT_ALICE_APPLICATION_KEY_ID: aliceKey.applicationKeyId,
    B2_CREDENTIAL_TENANT_ALICE_APPLICATION_KEY: aliceKey.applicationKey,
    B2_CREDENTIAL_TENANT_BOB_APPLICATION_KEY_ID_FILE: join(dir, 'bob-id'),
    B2_CREDENTIAL_TENANT_BOB_APPLICATION_KEY_FILE: join(dir, 'bob-key'),
  });
  afterAll(async () => {
    await target?.stop();
    await sandbox?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const token = (sub: string): Promise<string> => issuer.sign({ sub, aud: RESOURCE, scope: 'b2:read' });

  it('alice sees only her key’s bucket and bob only his (his key read from *_FILE)', async () => {
    expect(await bucketNames(target, bearer(await token('alice')))).toEqual(['demo-private-assets']);
    expect(await bucketNames(target, bearer(await token('bob')))).toEqual(['demo-public-site']);
  });

  it('a subject without a mapping is refused 403 principal_not_mapped, naming no key', async () => {
    const res = await listTools(target, bearer(await token('carol')));
    expect([res.status, res.json()]).toEqual([
      403,
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32001,
          message: "No B2 key is mapped to this token's subject (B2_PRINCIPAL_CREDENTIAL_MAP).",
          data: { code: 'principal_not_mapped', status: 403 },
        },
      },
    ]);
    for (const secret of [aliceKey.applicationKey, bobKey.applicationKey, aliceKey.applicationKeyId])
      expect(res.text).not.toContain(secret);
  });

  it('refuses credential headers, and a request without a token', async () => {
    const withKey = await listTools(target, {
      ...bearer(await token('alice')),
      'x-b2-mcp-key-id': bobKey.applicationKeyId,
      'x-b2-mcp-key': bobKey.applicationKey,
    });
    expect([withKey.status, (withKey.json() as { error: { data: unknown } }).error.data]).toEqual([
      400,
      { code: 'credential_headers_rejected', status: 400 },
    ]);
    expect((await listTools(target, {})).status).toBe(401);
  });

  it('is ready on /health without a key of its own', async () => {
    expect((await target.send({ method: 'GET', path: '/health' })).status).toBe(200);
  });

  it('writes neither mapped key to its debug log (createFetchHandler, same settings)', async () => {
    const logged = await startFetchTarget({ ...principalEnv(), LOG_LEVEL: 'debug', B2_LOG_FILE: join(dir, 'server.log') });
    try {
      expect(await bucketNames(logged, bearer(await token('alice')))).toEqual(['demo-private-assets']);
      expect(await bucketNames(logged, bearer(await token('bob')))).toEqual(['demo-public-site']);
    } finally {
      await logged.stop();
    }
    const log = readFileSync(join(dir, 'server.log'), 'utf8');
    expect(log).toMatch(/"event":"http.request".*"status":200/);
    for (const secret of [aliceKey.applicationKey, bobKey.applicationKey]) expect(log).not.toContain(secret);
  });
});

describe('principal mode settings are checked at start-up', () => {
  const env = (extra: Record<string, string>) => ({ ...oauthEnv(), B2_HTTP_CREDENTIAL_MODE: 'principal', LOG_LEVEL: 'silent', ...extra });
  it.each([
    [{ B2_OAUTH_ISSUER: '' }, /principal needs B2_OAUTH_ISSUER/],
    [{}, /principal needs B2_PRINCIPAL_CREDENTIAL_MAP/],
    [{ B2_PRINCIPAL_CREDENTIAL_MAP: '{"alice":' }, /must be a JSON object.*not JSON/],
    [{ B2_PRINCIPAL_CREDENTIAL_MAP: '["alice"]' }, /must be a JSON object/],
    [{ B2_PRINCIPAL_CREDENTIAL_MAP: '{"alice":"../etc"}' }, /a reference is 1-80 letters/],
    [
      {
        B2_PRINCIPAL_CREDENTIAL_MAP: '{"alice":"a-b","bob":"A_B"}',
        B2_CREDENTIAL_A_B_APPLICATION_KEY_ID: 'id',
        B2_CREDENTIAL_A_B_APPLICATION_KEY: 'k',
      },
      /"a-b" and "A_B" both read B2_CREDENTIAL_A_B_/,
    ],
    [
      { B2_PRINCIPAL_CREDENTIAL_MAP: '{"alice":"t1"}', B2_CREDENTIAL_T1_APPLICATION_KEY_ID: 'id-only' },
      /B2_CREDENTIAL_T1_APPLICATION_KEY_ID and B2_CREDENTIAL_T1_APPLICATION_KEY .* are not both set/,
    ],
  ] as Array<[Record<string, string>, RegExp]>)('%j is refused', (extra, message) => {
    expect(() => createFetchHandler({ env: env(extra) })).toThrow(message);
  });

  it('the map needs principal mode', () => {
    expect(() =>
      createFetchHandler({ env: { ...oauthEnv(), B2_HTTP_CREDENTIAL_MODE: 'server', B2_PRINCIPAL_CREDENTIAL_MAP: '{"a":"b"}' } }),
    ).toThrow('B2_PRINCIPAL_CREDENTIAL_MAP needs B2_HTTP_CREDENTIAL_MODE=principal.');
  });
});

describe('opaque tokens through RFC 7662 introspection (createFetchHandler and b2-mcp http)', () => {
  const introspectionEnv = (): Record<string, string> => ({
    ...oauthEnv(),
    B2_HTTP_CREDENTIAL_MODE: 'server',
    B2_MCP_PROFILE: 'full',
    B2_OAUTH_INTROSPECTION_ENDPOINT: issuer.introspectionEndpoint,
    B2_OAUTH_INTROSPECTION_CLIENT_ID: INTROSPECTION_CLIENT.id,
    B2_OAUTH_INTROSPECTION_CLIENT_SECRET: INTROSPECTION_CLIENT.secret,
    B2_OAUTH_ALLOWED_SUBJECTS: `${issuer.issuer}#alice,bob`,
  });
  const introspections = (): number => issuer.served.get('/introspect') ?? 0;
  const toolCount = async (target: GuardTarget, token: string): Promise<number | string> => {
    const res = await listTools(target, bearer(token));
    return res.status === 200 ? (res.json() as { result: { tools: unknown[] } }).result.tools.length : `${res.status} ${res.text}`;
  };

  for (const [label, start] of [
    ['createFetchHandler', startFetchTarget],
    ['b2-mcp http', startProcessTarget],
  ] as const) {
    describe(label, () => {
      let target: GuardTarget;
      beforeAll(async () => {
        target = await start(introspectionEnv());
      });
      afterAll(() => target?.stop());

      it('accepts an active opaque token, its scope narrowing the surface, and asks the endpoint once per token while cached', async () => {
        const admin = issuer.opaqueToken({ sub: 'alice', aud: RESOURCE, scope: 'b2:admin' });
        const before = introspections();
        expect(await toolCount(target, admin)).toBe(40);
        expect(introspections()).toBe(before + 1);
        expect(await toolCount(target, admin)).toBe(40);
        expect(await toolCount(target, admin)).toBe(40);
        expect(introspections()).toBe(before + 1);
        expect(await toolCount(target, issuer.opaqueToken({ sub: 'bob', aud: RESOURCE, scope: 'b2:read' }))).toBe(20);
        expect(introspections()).toBe(before + 2);
      });

      it('answers an inactive or unknown token 401 invalid_token', async () => {
        const revoked = issuer.opaqueToken({ sub: 'alice', aud: RESOURCE, scope: 'b2:admin' });
        issuer.revoke(revoked);
        for (const token of [revoked, 'not-a-token-the-issuer-made']) {
          const res = await listTools(target, bearer(token));
          expect([res.status, res.header('www-authenticate'), res.json()]).toEqual([
            401,
            `Bearer resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource/mcp", error="invalid_token", error_description="The token is not active."`,
            { error: 'invalid_token', error_description: 'The token is not active.' },
          ]);
        }
      });

      it('holds an active answer to the JWT rules: issuer, audience, expiry, token type, subject, allowed subjects, scopes', async () => {
        const nowSeconds = Math.floor(Date.now() / 1000);
        const cases: Array<[string, Record<string, unknown>, number, string]> = [
          ['another issuer', { iss: 'https://evil.example' }, 401, "The token's iss claim is not accepted."],
          ['another audience', { aud: 'https://other.example/mcp' }, 401, "The token's aud claim is not accepted."],
          ['expired', { exp: nowSeconds - 3600 }, 401, 'The token has expired.'],
          ['no exp', { exp: undefined }, 401, "The token's exp claim is not accepted."],
          ['not yet valid', { nbf: nowSeconds + 3600 }, 401, "The token's nbf claim is not accepted."],
          ['a refresh token', { token_type: 'refresh_token' }, 401, "The token's token_type is not accepted."],
          ['no subject', { sub: undefined }, 401, "The token's sub claim is not accepted."],
          ['a subject not allowed', { sub: 'carol' }, 403, "The token's subject may not use this server."],
          [
            'alice only under another issuer name',
            { sub: `https://evil.example#alice` },
            403,
            "The token's subject may not use this server.",
          ],
          ['no b2 scope', { scope: 'openid' }, 403, 'The token holds none of the b2:* scopes.'],
        ];
        for (const [what, claims, status, description] of cases) {
          const token = issuer.opaqueToken({ sub: 'alice', aud: RESOURCE, scope: 'b2:admin', ...claims });
          const res = await listTools(target, bearer(token));
          expect([res.status, (res.json() as { error_description: string }).error_description], what).toEqual([status, description]);
          expect(res.text, what).not.toContain(token);
        }
      });
    });
  }

  it('a wrong client secret makes the endpoint refuse the server: 503, the secret in no answer', async () => {
    const target = await startFetchTarget({ ...introspectionEnv(), B2_OAUTH_INTROSPECTION_CLIENT_SECRET: 'wrong-introspection-secret' });
    try {
      const res = await listTools(target, bearer(issuer.opaqueToken({ sub: 'alice', aud: RESOURCE, scope: 'b2:admin' })));
      expect([res.status, res.header('retry-after'), res.json()]).toEqual([
        503,
        '1',
        {
          error: 'temporarily_unavailable',
          error_description: 'The introspection endpoint of the authorization server could not be reached.',
        },
      ]);
      expect(res.text).not.toContain('wrong-introspection-secret');
    } finally {
      await target.stop();
    }
  });

  it('needs the client id and secret with the endpoint', () => {
    const { B2_OAUTH_INTROSPECTION_CLIENT_SECRET: _secret, ...withoutSecret } = introspectionEnv();
    expect(() => createFetchHandler({ env: withoutSecret })).toThrow(
      /B2_OAUTH_INTROSPECTION_ENDPOINT needs B2_OAUTH_INTROSPECTION_CLIENT_ID and B2_OAUTH_INTROSPECTION_CLIENT_SECRET/,
    );
  });
});

describe('B2_OAUTH_REQUIRED_SCOPES and B2_OAUTH_RESOURCE', () => {
  const resource = 'http://localhost:8080/tenant/mcp';
  let target: GuardTarget;
  beforeAll(async () => {
    target = await startFetchTarget({
      ...oauthEnv(),
      B2_MCP_PUBLIC_URL: '',
      B2_OAUTH_RESOURCE: resource,
      B2_OAUTH_REQUIRED_SCOPES: 'mcp:use, tenant:acme',
      B2_HTTP_CREDENTIAL_MODE: 'server',
      B2_MCP_PROFILE: 'full',
    });
  });
  afterAll(() => target?.stop());

  it('the metadata names the resource and the required scopes; the challenge points at the resource’s metadata', async () => {
    const metadata = await target.send({ method: 'GET', path: '/.well-known/oauth-protected-resource' });
    expect(metadata.json()).toMatchObject({ resource, scopes_supported: ['b2:admin', 'b2:write', 'b2:read', 'mcp:use', 'tenant:acme'] });
    expect((await listTools(target, {})).header('www-authenticate')).toBe(
      'Bearer resource_metadata="http://localhost:8080/.well-known/oauth-protected-resource/tenant/mcp"',
    );
  });

  it('a token for the resource with every required scope is served; one lacking a required scope gets 403 insufficient_scope', async () => {
    const ok = await listTools(target, bearer(await issuer.sign({ sub: 'u', aud: resource, scope: 'b2:read mcp:use tenant:acme' })));
    expect(ok.status).toBe(200);
    const lacking = await listTools(target, bearer(await issuer.sign({ sub: 'u', aud: resource, scope: 'b2:read mcp:use' })));
    expect([lacking.status, lacking.header('www-authenticate')]).toEqual([
      403,
      'Bearer resource_metadata="http://localhost:8080/.well-known/oauth-protected-resource/tenant/mcp", error="insufficient_scope", error_description="The token lacks the required scope tenant:acme.", scope="b2:read mcp:use tenant:acme"',
    ]);
    const elsewhere = await listTools(target, bearer(await issuer.sign({ sub: 'u', aud: RESOURCE, scope: 'b2:read mcp:use tenant:acme' })));
    expect(elsewhere.status).toBe(401);
  });

  it('a b2 scope cannot be a required scope, and OAuth needs a public URL or a resource', () => {
    expect(() => createFetchHandler({ env: { ...oauthEnv(), B2_OAUTH_REQUIRED_SCOPES: 'b2:admin' } })).toThrow(/must not name b2:admin/);
    expect(() => createFetchHandler({ env: { ...oauthEnv(), B2_MCP_PUBLIC_URL: '' } })).toThrow(
      /needs B2_MCP_PUBLIC_URL .* or B2_OAUTH_RESOURCE/,
    );
  });
});

describe('secrets from *_FILE reach the server and never its logs', () => {
  it('B2_APPLICATION_KEY_FILE and B2_OAUTH_INTROSPECTION_CLIENT_SECRET_FILE are read; both a variable and its file is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'b2-mcp-secret-files-'));
    const logFile = join(dir, 'server.log');
    writeFileSync(join(dir, 'client-secret'), `${INTROSPECTION_CLIENT.secret}\n`);
    writeFileSync(join(dir, 'key'), 'file-held-application-key\n');
    const env = {
      ...oauthEnv(),
      B2_HTTP_CREDENTIAL_MODE: 'server',
      B2_MCP_PROFILE: 'read-only',
      B2_SECRET_SINK: 'off',
      LOG_LEVEL: 'debug',
      B2_LOG_FILE: logFile,
      B2_APPLICATION_KEY_ID: 'file-test-key-id',
      B2_APPLICATION_KEY_FILE: join(dir, 'key'),
      B2_OAUTH_INTROSPECTION_ENDPOINT: issuer.introspectionEndpoint,
      B2_OAUTH_INTROSPECTION_CLIENT_ID: INTROSPECTION_CLIENT.id,
      B2_OAUTH_INTROSPECTION_CLIENT_SECRET_FILE: join(dir, 'client-secret'),
    };
    const handler = createFetchHandler({ env });
    try {
      const token = issuer.opaqueToken({ sub: 'alice', aud: RESOURCE, scope: 'b2:read' });
      const res = await handler(
        new Request(RESOURCE, {
          method: 'POST',
          headers: { ...JSON_HEADERS, 'mcp-method': 'tools/list', ...bearer(token) },
          body: JSON.stringify(modernMessage('tools/list')),
        }),
      );
      expect(res.status).toBe(200);
      const health = await handler(new Request(`${PUBLIC_URL}/health`));
      expect(health.status).toBe(200);
      const log = readFileSync(logFile, 'utf8');
      expect(log).toMatch(/"status":200/);
      for (const secret of ['file-held-application-key', INTROSPECTION_CLIENT.secret]) expect(log).not.toContain(secret);
      expect(() => createFetchHandler({ env: { ...env, B2_APPLICATION_KEY: 'also-set' } })).toThrow(
        'Set B2_APPLICATION_KEY or B2_APPLICATION_KEY_FILE, not both.',
      );
    } finally {
      await handler.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
