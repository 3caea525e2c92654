import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROFILES } from '../../../src/server/profiles.js';
import { narrowToProfile } from '../../../src/server/start.js';
import { createOAuthResourceServer, loadOAuthSettings, type OAuthSettings } from '../../../src/server/transports/oauth.js';
import { INTROSPECTION_CLIENT, startLocalIssuer, type LocalIssuer } from '../../support/oauth-issuer-support.js';

const PUBLIC = 'https://mcp.example.com';

describe('OAuth settings', () => {
  const base = { B2_OAUTH_ISSUER: 'https://issuer.example', B2_MCP_PUBLIC_URL: PUBLIC };

  it('are off without an issuer, and derive resource, audience and metadata URL from the public URL', () => {
    expect(loadOAuthSettings({})).toBeUndefined();
    expect(loadOAuthSettings({ ...base, B2_MCP_PUBLIC_URL: 'https://mcp.example.com/tenant/' })).toEqual({
      issuer: 'https://issuer.example',
      audience: 'https://mcp.example.com/tenant/mcp',
      resource: 'https://mcp.example.com/tenant/mcp',
      metadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp',
      algorithms: ['RS256'],
      allowInsecureUrls: false,
      tokenTypes: new Set(['at+jwt', 'jwt']),
      requiredScopes: [],
    });
    expect(loadOAuthSettings({ ...base, B2_OAUTH_TOKEN_TYPES: 'application/AT+JWT' })?.tokenTypes).toEqual(new Set(['at+jwt']));
    expect(loadOAuthSettings({ ...base, B2_OAUTH_TOKEN_TYPES: 'at+jwt,None' })?.tokenTypes).toEqual(new Set(['at+jwt', 'none']));
    expect(loadOAuthSettings({ ...base, B2_OAUTH_ALLOWED_SUBJECTS: ' alice , bob' })?.allowedSubjects).toEqual(new Set(['alice', 'bob']));
    expect(
      loadOAuthSettings({
        ...base,
        B2_OAUTH_AUDIENCE: 'api://b2',
        B2_OAUTH_JWKS_URI: 'https://issuer.example/keys',
        B2_OAUTH_ALGORITHMS: 'ES256, RS256',
      }),
    ).toMatchObject({
      audience: 'api://b2',
      jwksUri: 'https://issuer.example/keys',
      algorithms: ['ES256', 'RS256'],
    });
  });

  it.each([
    [{ B2_OAUTH_AUDIENCE: 'x' }, 'B2_OAUTH_AUDIENCE needs B2_OAUTH_ISSUER.'],
    [
      { B2_OAUTH_ISSUER: 'https://issuer.example' },
      'B2_OAUTH_ISSUER needs B2_MCP_PUBLIC_URL (the URL clients reach this server at) or B2_OAUTH_RESOURCE.',
    ],
    [{ ...base, B2_OAUTH_RESOURCE: 'http://mcp.example.com/mcp' }, /B2_OAUTH_RESOURCE must be an https URL/],
    [{ ...base, B2_OAUTH_RESOURCE: 'https://mcp.example.com/mcp#x' }, /B2_OAUTH_RESOURCE must have no query or fragment/],
    [{ B2_OAUTH_RESOURCE: 'https://mcp.example.com/mcp' }, 'B2_OAUTH_RESOURCE needs B2_OAUTH_ISSUER.'],
    [{ ...base, B2_OAUTH_REQUIRED_SCOPES: 'mcp:use b2:write' }, /B2_OAUTH_REQUIRED_SCOPES must not name b2:write/],
    [
      { ...base, B2_OAUTH_INTROSPECTION_ENDPOINT: 'https://issuer.example/introspect' },
      /needs B2_OAUTH_INTROSPECTION_CLIENT_ID and B2_OAUTH_INTROSPECTION_CLIENT_SECRET/,
    ],
    [
      {
        ...base,
        B2_OAUTH_INTROSPECTION_ENDPOINT: 'http://issuer.example/introspect',
        B2_OAUTH_INTROSPECTION_CLIENT_ID: 'c',
        B2_OAUTH_INTROSPECTION_CLIENT_SECRET: 's',
      },
      /B2_OAUTH_INTROSPECTION_ENDPOINT must be an https URL/,
    ],
    [{ ...base, B2_OAUTH_INTROSPECTION_CLIENT_ID: 'c' }, /need B2_OAUTH_INTROSPECTION_ENDPOINT/],
    [
      {
        ...base,
        B2_OAUTH_INTROSPECTION_ENDPOINT: 'https://issuer.example/introspect',
        B2_OAUTH_INTROSPECTION_CLIENT_ID: 'c',
        B2_OAUTH_INTROSPECTION_CLIENT_SECRET: 's',
        B2_OAUTH_INTROSPECTION_CACHE_TTL_SECONDS: '1.5',
      },
      /B2_OAUTH_INTROSPECTION_CACHE_TTL_SECONDS must be a whole number of seconds/,
    ],
    [
      { ...base, B2_OAUTH_ISSUER: 'http://issuer.example' },
      'B2_OAUTH_ISSUER must be an https URL (got "http://issuer.example"); http needs B2_OAUTH_DANGEROUSLY_ALLOW_INSECURE_ISSUER_URL=true.',
    ],
    [
      { ...base, B2_MCP_PUBLIC_URL: 'http://mcp.example.com' },
      'B2_MCP_PUBLIC_URL must be an https URL with OAuth (got "http://mcp.example.com").',
    ],
    [{ ...base, B2_OAUTH_JWKS_URI: 'not a url' }, 'B2_OAUTH_JWKS_URI must be a URL (got "not a url").'],
    [{ ...base, B2_OAUTH_ALGORITHMS: 'RS256,none' }, /B2_OAUTH_ALGORITHMS must list asymmetric JWS algorithms .*; got "none"/],
    [{ ...base, B2_OAUTH_ALGORITHMS: 'HS256' }, /got "HS256"/],
    [
      { ...base, B2_OAUTH_DANGEROUSLY_ALLOW_INSECURE_ISSUER_URL: 'yes' },
      /B2_OAUTH_DANGEROUSLY_ALLOW_INSECURE_ISSUER_URL must be one of true, false/,
    ],
    [{ B2_OAUTH_ALLOWED_SUBJECTS: 'alice' }, 'B2_OAUTH_ALLOWED_SUBJECTS needs B2_OAUTH_ISSUER.'],
    [
      { ...base, B2_OAUTH_ALLOWED_SUBJECTS: 'alice,,bob' },
      'B2_OAUTH_ALLOWED_SUBJECTS must list token subjects separated by commas, none empty (got "alice,,bob").',
    ],
    [{ B2_OAUTH_TOKEN_TYPES: 'at+jwt' }, 'B2_OAUTH_TOKEN_TYPES needs B2_OAUTH_ISSUER.'],
    [
      { ...base, B2_OAUTH_TOKEN_TYPES: 'at+jwt,' },
      'B2_OAUTH_TOKEN_TYPES must list token types such as at+jwt or JWT, separated by commas, none empty (got "at+jwt,").',
    ],
    [{ ...base, B2_OAUTH_TOKEN_TYPES: 'at jwt' }, /B2_OAUTH_TOKEN_TYPES must list token types/],
  ])('%o is refused', (env, message) => {
    expect(() => loadOAuthSettings(env)).toThrow(message);
  });

  it('take an explicit resource (the metadata URL follows it, the audience defaults to it), required scopes and an introspection endpoint', () => {
    const introspection = {
      B2_OAUTH_INTROSPECTION_ENDPOINT: 'https://issuer.example/introspect',
      B2_OAUTH_INTROSPECTION_CLIENT_ID: 'rs',
      B2_OAUTH_INTROSPECTION_CLIENT_SECRET: 'rs-secret',
    };
    expect(
      loadOAuthSettings({
        B2_OAUTH_ISSUER: 'https://issuer.example',
        B2_OAUTH_RESOURCE: 'https://api.example.com/b2/mcp',
        B2_OAUTH_REQUIRED_SCOPES: 'mcp:use tenant:a,mcp:use',
        ...introspection,
      }),
    ).toMatchObject({
      resource: 'https://api.example.com/b2/mcp',
      audience: 'https://api.example.com/b2/mcp',
      metadataUrl: 'https://api.example.com/.well-known/oauth-protected-resource/b2/mcp',
      requiredScopes: ['mcp:use', 'tenant:a'],
      introspection: { endpoint: 'https://issuer.example/introspect', clientId: 'rs', clientSecret: 'rs-secret', cacheTtlMs: 60_000 },
    });
    expect(loadOAuthSettings({ ...base, ...introspection, B2_OAUTH_INTROSPECTION_CACHE_TTL_SECONDS: '0' })?.introspection?.cacheTtlMs).toBe(
      0,
    );
  });

  it('accept http URLs with the dangerous flag', () => {
    const settings = loadOAuthSettings({
      B2_OAUTH_ISSUER: 'http://127.0.0.1:1',
      B2_MCP_PUBLIC_URL: 'http://localhost:3000',
      B2_OAUTH_DANGEROUSLY_ALLOW_INSECURE_ISSUER_URL: 'true',
    });
    expect(settings).toMatchObject({ issuer: 'http://127.0.0.1:1', resource: 'http://localhost:3000/mcp', allowInsecureUrls: true });
  });
});

describe('OAuth key set: discovered once, cached, refreshed on an unknown kid', () => {
  let issuer: LocalIssuer;
  beforeAll(async () => {
    issuer = await startLocalIssuer();
  });
  afterAll(() => issuer?.close());

  const settingsFor = (extra: Partial<OAuthSettings> = {}): OAuthSettings => ({
    issuer: issuer.issuer,
    audience: 'urn:b2',
    resource: 'http://localhost/mcp',
    metadataUrl: 'http://localhost/.well-known/oauth-protected-resource/mcp',
    algorithms: ['RS256'],
    allowInsecureUrls: true,
    tokenTypes: new Set(['at+jwt', 'jwt']),
    requiredScopes: [],
    ...extra,
  });

  it('verifies from the discovered JWKS without refetching, and refetches for a new kid only after the cooldown', async () => {
    let clock = 1_000_000;
    const fetched: string[] = [];
    const server = createOAuthResourceServer(settingsFor(), {
      now: () => clock,
      fetch: (url, init) => (fetched.push(new URL(String(url)).pathname), fetch(url, init)),
    });
    const authorize = async () =>
      `Bearer ${await issuer.sign({ sub: 'u', aud: 'urn:b2', scope: 'b2:read', exp: Math.floor(clock / 1000) + 600, iat: undefined })}`;

    expect(await server.authenticate(await authorize())).toMatchObject({
      ceiling: 'read-only',
      key: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    expect(await server.authenticate(await authorize())).toMatchObject({ ceiling: 'read-only' });
    expect(fetched).toEqual(['/.well-known/oauth-authorization-server', '/jwks']);

    await issuer.rotate();
    clock += 10_000;
    expect(await server.authenticate(await authorize())).toMatchObject({ status: 401, error: 'invalid_token' });
    expect(fetched).toHaveLength(2);
    clock += 21_000;
    expect(await server.authenticate(await authorize())).toMatchObject({ ceiling: 'read-only' });
    expect(fetched).toEqual(['/.well-known/oauth-authorization-server', '/jwks', '/jwks']);

    // Past the cache's age the set is fetched again even for a known kid.
    clock += 10 * 60_000;
    expect(await server.authenticate(await authorize())).toMatchObject({ ceiling: 'read-only' });
    expect(fetched.filter((path) => path === '/jwks')).toHaveLength(3);
  });

  it('uses a configured JWKS URI without discovery, and answers 503 when the keys cannot be fetched', async () => {
    const fetched: string[] = [];
    const counting = (url: string | URL | Request, init?: RequestInit) => (fetched.push(new URL(String(url)).pathname), fetch(url, init));
    const configured = createOAuthResourceServer(settingsFor({ jwksUri: issuer.jwksUri }), { fetch: counting });
    const jwt = await issuer.sign({ sub: 'u', aud: 'urn:b2', scope: 'b2:write' });
    expect(await configured.authenticate(`bearer ${jwt}`)).toMatchObject({ ceiling: 'default' });
    expect(fetched).toEqual(['/jwks']);

    const unreachable = createOAuthResourceServer(settingsFor({ jwksUri: 'http://127.0.0.1:9/jwks' }));
    expect(await unreachable.authenticate(`Bearer ${jwt}`)).toEqual({
      status: 503,
      error: 'temporarily_unavailable',
      description: 'The keys of the authorization server could not be fetched.',
    });
    const wrongIssuer = createOAuthResourceServer(settingsFor({ issuer: `${issuer.issuer}/other` }));
    expect(await wrongIssuer.authenticate(`Bearer ${jwt}`)).toMatchObject({ status: 503 });
  });

  it("refuses a token issued in the future beyond the 60 s skew, by the server's clock", async () => {
    const clock = 2_000_000_000_000;
    const server = createOAuthResourceServer(settingsFor({ jwksUri: issuer.jwksUri }), { now: () => clock });
    const issuedAt = async (offsetSeconds: number) => {
      const iat = Math.floor(clock / 1000) + offsetSeconds;
      return server.authenticate(`Bearer ${await issuer.sign({ sub: 'u', aud: 'urn:b2', scope: 'b2:read', iat, exp: iat + 600 })}`);
    };
    expect(await issuedAt(0)).toMatchObject({ ceiling: 'read-only' });
    expect(await issuedAt(60)).toMatchObject({ ceiling: 'read-only' });
    expect(await issuedAt(61)).toMatchObject({
      status: 401,
      error: 'invalid_token',
      description: "The token's iat claim is not accepted.",
    });
    expect(await issuedAt(10 * 365 * 86_400)).toMatchObject({ status: 401, description: "The token's iat claim is not accepted." });
  });

  it('accepts only the configured token types', async () => {
    const server = createOAuthResourceServer(settingsFor({ jwksUri: issuer.jwksUri, tokenTypes: new Set(['at+jwt']) }));
    const typed = async (typ: string) =>
      server.authenticate(`Bearer ${await issuer.sign({ sub: 'u', aud: 'urn:b2', scope: 'b2:read' }, { header: { typ } })}`);
    expect(await typed('at+jwt')).toMatchObject({ ceiling: 'read-only' });
    expect(await typed('Application/At+JWT')).toMatchObject({ ceiling: 'read-only' });
    expect(await typed('JWT')).toMatchObject({ status: 401, description: "The token's typ header is not accepted." });
  });

  it('accepts a token without typ only when B2_OAUTH_TOKEN_TYPES lists none', async () => {
    const untyped = async (tokenTypes: string[]) =>
      createOAuthResourceServer(settingsFor({ jwksUri: issuer.jwksUri, tokenTypes: new Set(tokenTypes) })).authenticate(
        `Bearer ${await issuer.sign({ sub: 'u', aud: 'urn:b2', scope: 'b2:read' }, { header: { typ: undefined } })}`,
      );
    expect(await untyped(['at+jwt', 'jwt'])).toMatchObject({ status: 401, description: "The token's typ header is not accepted." });
    expect(await untyped(['at+jwt', 'none'])).toMatchObject({ ceiling: 'read-only' });
  });

  it('gives the same subject the same key, and another subject or issuer another', async () => {
    const server = createOAuthResourceServer(settingsFor({ jwksUri: issuer.jwksUri }));
    const keyOf = async (sub: string) =>
      ((await server.authenticate(`Bearer ${await issuer.sign({ sub, aud: 'urn:b2', scope: 'b2:admin' })}`)) as { key: string }).key;
    expect(await keyOf('alice')).toBe(await keyOf('alice'));
    expect(await keyOf('alice')).not.toBe(await keyOf('bob'));
  });
});

describe('a token scope caps the surface and never widens it', () => {
  const input = (capabilities: ReadonlySet<string> | null, partner: boolean) => ({ capabilities, partner, secretSink: 'off' as const });

  it('intersects the key’s capabilities with the profile’s; the full-surface override takes the profile’s', () => {
    expect(narrowToProfile(input(new Set(['listBuckets', 'writeFiles']), true), 'full')).toEqual(
      input(new Set(['listBuckets', 'writeFiles']), true),
    );
    expect(narrowToProfile(input(new Set(['listBuckets', 'writeFiles']), false), 'read-only')).toEqual(
      input(new Set(['listBuckets']), false),
    );
    expect(narrowToProfile(input(null, true), 'read-only')).toEqual(input(new Set(PROFILES['read-only'].capabilities), false));
    expect(narrowToProfile(input(null, true), 'full')).toEqual(input(null, true));
    expect(narrowToProfile(input(null, true), 'default').partner).toBe(false);
    expect(narrowToProfile(input(new Set(['readFiles']), true), undefined)).toEqual(input(new Set(['readFiles']), true));
  });
});

describe("OAuth introspection cache, on the server's clock", () => {
  let issuer: LocalIssuer;
  beforeAll(async () => {
    issuer = await startLocalIssuer();
  });
  afterAll(() => issuer?.close());

  const serverAt = (clock: () => number, cacheTtlMs: number) => {
    const asked: string[] = [];
    const settings: OAuthSettings = {
      issuer: issuer.issuer,
      audience: 'urn:b2',
      resource: 'http://localhost/mcp',
      metadataUrl: 'http://localhost/.well-known/oauth-protected-resource/mcp',
      algorithms: ['RS256'],
      allowInsecureUrls: true,
      tokenTypes: new Set(['at+jwt']),
      requiredScopes: [],
      introspection: {
        endpoint: issuer.introspectionEndpoint,
        clientId: INTROSPECTION_CLIENT.id,
        clientSecret: INTROSPECTION_CLIENT.secret,
        cacheTtlMs,
      },
    };
    const server = createOAuthResourceServer(settings, { now: clock, fetch: (url, init) => (asked.push(String(url)), fetch(url, init)) });
    return { server, asked };
  };

  it('reuses an active answer until the TTL, then asks again (a revoked token is then refused)', async () => {
    let clock = Date.now();
    const { server, asked } = serverAt(() => clock, 30_000);
    const token = issuer.opaqueToken({ sub: 'u', aud: 'urn:b2', scope: 'b2:read' });
    expect(await server.authenticate(`Bearer ${token}`)).toMatchObject({ ceiling: 'read-only', subject: 'u' });
    issuer.revoke(token);
    clock += 29_000;
    expect(await server.authenticate(`Bearer ${token}`)).toMatchObject({ ceiling: 'read-only' });
    expect(asked).toHaveLength(1);
    clock += 2_000;
    expect(await server.authenticate(`Bearer ${token}`)).toMatchObject({ status: 401, description: 'The token is not active.' });
    expect(asked).toHaveLength(2);
  });

  it("never past the token's own exp, and not at all with a TTL of 0", async () => {
    let clock = Date.now();
    const { server, asked } = serverAt(() => clock, 3_600_000);
    const token = issuer.opaqueToken({ sub: 'u', aud: 'urn:b2', scope: 'b2:read', exp: Math.floor(clock / 1000) + 10 });
    expect(await server.authenticate(`Bearer ${token}`)).toMatchObject({ ceiling: 'read-only' });
    clock += 11_000;
    await server.authenticate(`Bearer ${token}`);
    expect(asked).toHaveLength(2);

    const uncached = serverAt(() => clock, 0);
    const other = issuer.opaqueToken({ sub: 'u', aud: 'urn:b2', scope: 'b2:read' });
    await uncached.server.authenticate(`Bearer ${other}`);
    await uncached.server.authenticate(`Bearer ${other}`);
    expect(uncached.asked).toHaveLength(2);
  });
});
