import { createHash } from 'node:crypto';
import { createLocalJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { LRUCache } from 'lru-cache';
import type { ProfileName } from '../../contract/constants.js';
import { ConfigError, readSetting } from '../config.js';

/**
 * OAuth 2.1 resource server for HTTP: bearer tokens from one issuer, verified against its JWKS
 * (JWTs) or its RFC 7662 introspection endpoint (any token), and their `b2:*` scope turned into
 * the widest tool profile the token may use.
 */

/** Widest first: a token holding several gets the widest. */
const OAUTH_SCOPES: ReadonlyArray<{ scope: string; profile: ProfileName }> = [
  { scope: 'b2:admin', profile: 'full' },
  { scope: 'b2:write', profile: 'default' },
  { scope: 'b2:read', profile: 'read-only' },
];

/** Asymmetric signatures only: a shared-secret (HS*) or `none` token is never accepted. */
const SIGNING_ALGORITHMS = new Set(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519']);

export interface OAuthSettings {
  issuer: string;
  audience: string;
  /** The resource identifier (RFC 8707): the public URL of `/mcp`. */
  resource: string;
  /** Where the protected-resource metadata is served, as clients see it. */
  metadataUrl: string;
  /** Configured, or discovered from the issuer's metadata. */
  jwksUri?: string;
  algorithms: readonly string[];
  allowInsecureUrls: boolean;
  /** When set, only tokens whose `sub` is listed are accepted (B2_OAUTH_ALLOWED_SUBJECTS). */
  allowedSubjects?: ReadonlySet<string>;
  /** The `typ` header values a token may carry, normalized (B2_OAUTH_TOKEN_TYPES). */
  tokenTypes: ReadonlySet<string>;
  /** Scopes every token must hold besides one `b2:*` scope (B2_OAUTH_REQUIRED_SCOPES). */
  requiredScopes: readonly string[];
  /** When set, every token is checked at this RFC 7662 endpoint instead of against the JWKS. */
  introspection?: IntrospectionSettings;
}

export interface IntrospectionSettings {
  endpoint: string;
  clientId: string;
  clientSecret: string;
  /** How long an active answer is reused for the same token (0: never). */
  cacheTtlMs: number;
}

const JWKS_MAX_AGE_MS = 10 * 60_000;
/** An unknown `kid` refetches the key set, but not more often than this. */
const JWKS_REFRESH_COOLDOWN_MS = 30_000;
const FETCH_TIMEOUT_MS = 5_000;
const CLOCK_TOLERANCE_S = 60;
const WELL_KNOWN_RESOURCE = '/.well-known/oauth-protected-resource';

function url(name: string, value: string, allowInsecure: boolean): URL {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be a URL (got "${value}").`);
  }
  if (parsed.protocol === 'https:' || (allowInsecure && parsed.protocol === 'http:')) return parsed;
  throw new ConfigError(`${name} must be an https URL (got "${value}"); http needs B2_OAUTH_DANGEROUSLY_ALLOW_INSECURE_ISSUER_URL=true.`);
}

/** The OAuth settings, or undefined when `B2_OAUTH_ISSUER` is unset (no token is asked for). */
export function loadOAuthSettings(env: NodeJS.ProcessEnv): OAuthSettings | undefined {
  const issuer = readSetting(env, 'http', 'B2_OAUTH_ISSUER');
  const dependents = [
    'B2_OAUTH_AUDIENCE',
    'B2_OAUTH_RESOURCE',
    'B2_OAUTH_JWKS_URI',
    'B2_OAUTH_ALGORITHMS',
    'B2_OAUTH_ALLOWED_SUBJECTS',
    'B2_OAUTH_TOKEN_TYPES',
    'B2_OAUTH_REQUIRED_SCOPES',
    'B2_OAUTH_INTROSPECTION_ENDPOINT',
    'B2_OAUTH_INTROSPECTION_CLIENT_ID',
    'B2_OAUTH_INTROSPECTION_CLIENT_SECRET',
  ] as const;
  if (issuer === undefined) {
    const stray = dependents.find((name) => env[name]?.trim());
    if (stray) throw new ConfigError(`${stray} needs B2_OAUTH_ISSUER.`);
    return undefined;
  }
  const allowInsecureUrls = readSetting(env, 'http', 'B2_OAUTH_DANGEROUSLY_ALLOW_INSECURE_ISSUER_URL') === 'true';
  url('B2_OAUTH_ISSUER', issuer, allowInsecureUrls);
  const resource = resourceOf(env, allowInsecureUrls);
  const jwksUri = readSetting(env, 'http', 'B2_OAUTH_JWKS_URI');
  if (jwksUri !== undefined) url('B2_OAUTH_JWKS_URI', jwksUri, allowInsecureUrls);
  const algorithms = (readSetting(env, 'http', 'B2_OAUTH_ALGORITHMS') as string)
    .split(',')
    .map((alg) => alg.trim())
    .filter(Boolean);
  const refused = algorithms.find((alg) => !SIGNING_ALGORITHMS.has(alg));
  if (refused !== undefined || algorithms.length === 0) {
    throw new ConfigError(
      `B2_OAUTH_ALGORITHMS must list asymmetric JWS algorithms (${[...SIGNING_ALGORITHMS].join(', ')}); got "${refused ?? ''}".`,
    );
  }
  const allowedSubjects = subjectsOf(readSetting(env, 'http', 'B2_OAUTH_ALLOWED_SUBJECTS'));
  const introspection = introspectionOf(env, allowInsecureUrls);
  const resourceUrl = new URL(resource);
  return {
    issuer,
    audience: readSetting(env, 'http', 'B2_OAUTH_AUDIENCE') ?? resource,
    resource,
    metadataUrl: `${resourceUrl.origin}${WELL_KNOWN_RESOURCE}${resourceUrl.pathname}`,
    ...(jwksUri !== undefined && { jwksUri }),
    algorithms,
    allowInsecureUrls,
    ...(allowedSubjects && { allowedSubjects }),
    tokenTypes: tokenTypesOf(readSetting(env, 'http', 'B2_OAUTH_TOKEN_TYPES') as string),
    requiredScopes: requiredScopesOf(readSetting(env, 'http', 'B2_OAUTH_REQUIRED_SCOPES')),
    ...(introspection && { introspection }),
  };
}

/** B2_OAUTH_RESOURCE as given, else `<B2_MCP_PUBLIC_URL>/mcp`; https unless insecure URLs are allowed. */
function resourceOf(env: NodeJS.ProcessEnv, allowInsecureUrls: boolean): string {
  const configured = readSetting(env, 'http', 'B2_OAUTH_RESOURCE');
  const publicUrl = readSetting(env, 'http', 'B2_MCP_PUBLIC_URL');
  if (configured !== undefined) {
    const parsed = url('B2_OAUTH_RESOURCE', configured, allowInsecureUrls);
    if (parsed.hash || parsed.search)
      throw new ConfigError(`B2_OAUTH_RESOURCE must have no query or fragment (RFC 8707; got "${configured}").`);
    if (publicUrl !== undefined) url('B2_MCP_PUBLIC_URL', publicUrl, allowInsecureUrls);
    return configured;
  }
  if (publicUrl === undefined)
    throw new ConfigError('B2_OAUTH_ISSUER needs B2_MCP_PUBLIC_URL (the URL clients reach this server at) or B2_OAUTH_RESOURCE.');
  const base = url('B2_MCP_PUBLIC_URL', publicUrl, true);
  if (base.protocol !== 'https:' && !allowInsecureUrls)
    throw new ConfigError(`B2_MCP_PUBLIC_URL must be an https URL with OAuth (got "${publicUrl}").`);
  return `${base.href.replace(/\/+$/, '')}/mcp`;
}

/** B2_OAUTH_REQUIRED_SCOPES: comma-separated (spaces are accepted too), none a `b2:*` scope. */
function requiredScopesOf(value: string | undefined): string[] {
  const scopes = (value ?? '').split(/[\s,]+/).filter(Boolean);
  const b2Scope = scopes.find((scope) => OAUTH_SCOPES.some((known) => known.scope === scope));
  if (b2Scope)
    throw new ConfigError(
      `B2_OAUTH_REQUIRED_SCOPES must not name ${b2Scope}: the b2:* scopes choose the tool profile (any one is required).`,
    );
  return [...new Set(scopes)];
}

function introspectionOf(env: NodeJS.ProcessEnv, allowInsecureUrls: boolean): IntrospectionSettings | undefined {
  const endpoint = readSetting(env, 'http', 'B2_OAUTH_INTROSPECTION_ENDPOINT');
  const clientId = readSetting(env, 'http', 'B2_OAUTH_INTROSPECTION_CLIENT_ID');
  const clientSecret = readSetting(env, 'http', 'B2_OAUTH_INTROSPECTION_CLIENT_SECRET');
  if (endpoint === undefined) {
    if (clientId !== undefined || clientSecret !== undefined)
      throw new ConfigError('B2_OAUTH_INTROSPECTION_CLIENT_ID and _SECRET need B2_OAUTH_INTROSPECTION_ENDPOINT.');
    return undefined;
  }
  url('B2_OAUTH_INTROSPECTION_ENDPOINT', endpoint, allowInsecureUrls);
  if (clientId === undefined || clientSecret === undefined) {
    throw new ConfigError(
      'B2_OAUTH_INTROSPECTION_ENDPOINT needs B2_OAUTH_INTROSPECTION_CLIENT_ID and B2_OAUTH_INTROSPECTION_CLIENT_SECRET (RFC 7662 endpoints authenticate their callers).',
    );
  }
  const ttl = readSetting(env, 'http', 'B2_OAUTH_INTROSPECTION_CACHE_TTL_SECONDS') as string;
  if (!/^\d{1,6}$/.test(ttl))
    throw new ConfigError(`B2_OAUTH_INTROSPECTION_CACHE_TTL_SECONDS must be a whole number of seconds (got "${ttl}").`);
  return { endpoint, clientId, clientSecret, cacheTtlMs: Number(ttl) * 1000 };
}

/** A `typ` as RFC 7515 §4.1.9 compares it: case-insensitive, `application/` implied. */
const normalizedTokenType = (typ: string): string =>
  typ
    .trim()
    .toLowerCase()
    .replace(/^application\//, '');

/** The header's `typ`, normalized; `none` stands for a header without one (issuers that type no token). */
function tokenTypeOf(header: { typ?: unknown }): string {
  if (header.typ === undefined) return NO_TOKEN_TYPE;
  return typeof header.typ === 'string' ? normalizedTokenType(header.typ) : '';
}
const NO_TOKEN_TYPE = 'none';

/** B2_OAUTH_TOKEN_TYPES: comma-separated media types a token's `typ` header may name, or `none` for no `typ`. */
function tokenTypesOf(value: string): ReadonlySet<string> {
  const types = value.split(',').map(normalizedTokenType);
  if (types.some((typ) => !/^[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(typ))) {
    throw new ConfigError(
      `B2_OAUTH_TOKEN_TYPES must list token types such as at+jwt or JWT, separated by commas, none empty (got "${value}").`,
    );
  }
  return new Set(types);
}

/** B2_OAUTH_ALLOWED_SUBJECTS: comma-separated `sub` or `<issuer>#<sub>` values, compared exactly. */
function subjectsOf(value: string | undefined): ReadonlySet<string> | undefined {
  if (value === undefined) return undefined;
  const subjects = value.split(',').map((subject) => subject.trim());
  if (subjects.some((subject) => subject === ''))
    throw new ConfigError(`B2_OAUTH_ALLOWED_SUBJECTS must list token subjects separated by commas, none empty (got "${value}").`);
  return new Set(subjects);
}

/** The verified caller: who (a stable key for limits and session ownership, and its `sub`) and which profile. */
export interface OAuthPrincipal {
  key: string;
  subject: string;
  ceiling: ProfileName;
}

export interface OAuthRefusal {
  status: 401 | 403 | 503;
  error: string;
  description: string;
  wwwAuthenticate?: string;
}

/** Protected-resource metadata is served here (RFC 9728: the well-known path, with the resource path appended or not). */
const METADATA_PATHS = new Set(['', '/mcp', '/api/mcp'].map((suffix) => `${WELL_KNOWN_RESOURCE}${suffix}`));
export const isResourceMetadataPath = (path: string): boolean => METADATA_PATHS.has(path);

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A token's scopes, from `scope` (space-separated) or `scp` (a list). */
function scopesOf(payload: Record<string, unknown>): Set<string> {
  const { scope, scp } = payload;
  const listed =
    typeof scope === 'string' ? scope.split(' ') : Array.isArray(scp) ? scp.filter((s): s is string => typeof s === 'string') : [];
  return new Set(listed);
}

/**
 * What jose leaves to the caller: the token type (an ID or logout token is not an access token),
 * a subject that is a non-empty string (never an array that prints as one), and an issue time
 * that is not in the future beyond the clock skew.
 */
function unacceptedPart(
  header: { typ?: unknown },
  payload: Record<string, unknown>,
  tokenTypes: ReadonlySet<string>,
  nowMs: number,
): string | undefined {
  if (!tokenTypes.has(tokenTypeOf(header))) return 'typ header';
  if (typeof payload.sub !== 'string' || payload.sub === '') return 'sub claim';
  if (typeof payload.iat === 'number' && payload.iat > nowMs / 1000 + CLOCK_TOLERANCE_S) return 'iat claim';
  return undefined;
}

/** Raised when the issuer's metadata or key set cannot be had: the client is not at fault. */
class IssuerUnavailable extends Error {}

export interface OAuthResourceServer {
  /** The RFC 9728 document. */
  metadata(): Record<string, unknown>;
  authenticate(authorization: string | null): Promise<OAuthPrincipal | OAuthRefusal>;
}

export function createOAuthResourceServer(
  settings: OAuthSettings,
  options: { fetch?: typeof fetch; now?: () => number } = {},
): OAuthResourceServer {
  const fetchJson = async (target: string): Promise<unknown> => {
    let response: Response;
    try {
      response = await (options.fetch ?? fetch)(target, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
    } catch {
      throw new IssuerUnavailable(`could not reach ${target}`);
    }
    if (!response.ok) throw new IssuerUnavailable(`${target} answered ${response.status}`);
    try {
      return await response.json();
    } catch {
      throw new IssuerUnavailable(`${target} did not answer JSON`);
    }
  };
  const now = options.now ?? (() => Date.now());

  /** RFC 8414's well-known URL, then OpenID Connect discovery; the document must name our issuer. */
  const discoverJwksUri = async (): Promise<string> => {
    const issuer = new URL(settings.issuer);
    const path = issuer.pathname.replace(/\/+$/, '');
    const candidates = [
      `${issuer.origin}/.well-known/oauth-authorization-server${path}`,
      `${issuer.origin}${path}/.well-known/openid-configuration`,
    ];
    for (const candidate of candidates) {
      const document = await fetchJson(candidate).catch(() => undefined);
      if (!isObject(document) || document.issuer !== settings.issuer || typeof document.jwks_uri !== 'string') continue;
      try {
        return url('jwks_uri', document.jwks_uri, settings.allowInsecureUrls).href;
      } catch {
        throw new IssuerUnavailable('the issuer metadata names an insecure jwks_uri');
      }
    }
    throw new IssuerUnavailable('no authorization server metadata naming the issuer and a jwks_uri');
  };

  let discovered: Promise<string> | undefined;
  const jwksLocation = async (): Promise<string> => {
    if (settings.jwksUri !== undefined) return settings.jwksUri;
    discovered ??= discoverJwksUri();
    try {
      return await discovered;
    } catch (error) {
      discovered = undefined;
      throw error;
    }
  };

  type KeySet = ReturnType<typeof createLocalJWKSet>;
  let keys: { set: KeySet; fetchedAt: number } | undefined;
  let loading: Promise<KeySet> | undefined;
  /** One fetch at a time; concurrent verifications wait for it. */
  const loadKeys = (): Promise<KeySet> =>
    (loading ??= (async () => {
      try {
        const document = await fetchJson(await jwksLocation());
        if (!isObject(document) || !Array.isArray(document.keys)) throw new IssuerUnavailable('the JWKS document has no keys');
        const set = createLocalJWKSet(document as unknown as JSONWebKeySet);
        keys = { set, fetchedAt: now() };
        return set;
      } finally {
        loading = undefined;
      }
    })());

  const getKey: JWTVerifyGetKey = async (header, token) => {
    const current = keys && now() - keys.fetchedAt < JWKS_MAX_AGE_MS ? keys.set : await loadKeys();
    try {
      return await current(header, token);
    } catch (error) {
      const stale = !keys || now() - keys.fetchedAt >= JWKS_REFRESH_COOLDOWN_MS;
      if (!(error instanceof errors.JWKSNoMatchingKey) || !stale) throw error;
      return (await loadKeys())(header, token);
    }
  };

  const challenge = (error?: string, description?: string, scope?: string): string =>
    [
      `Bearer resource_metadata="${settings.metadataUrl}"`,
      ...(error ? [`error="${error}"`] : []),
      ...(description ? [`error_description="${description}"`] : []),
      ...(scope ? [`scope="${scope}"`] : []),
    ].join(', ');

  const invalid = (description: string): OAuthRefusal => ({
    status: 401,
    error: 'invalid_token',
    description,
    wwwAuthenticate: challenge('invalid_token', description),
  });
  const unavailable = (what: string): OAuthRefusal => ({
    status: 503,
    error: 'temporarily_unavailable',
    description: `The ${what} of the authorization server could not be reached.`,
  });

  const verifyJwt = async (token: string): Promise<Verification> => {
    let payload: Record<string, unknown>;
    let header: { typ?: unknown };
    try {
      ({ payload, protectedHeader: header } = await jwtVerify(token, getKey, {
        issuer: settings.issuer,
        audience: settings.audience,
        algorithms: [...settings.algorithms],
        requiredClaims: ['exp', 'sub'],
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: new Date(now()),
      }));
    } catch (error) {
      if (error instanceof IssuerUnavailable)
        return {
          refusal: {
            status: 503,
            error: 'temporarily_unavailable',
            description: 'The keys of the authorization server could not be fetched.',
          },
        };
      if (error instanceof errors.JWTExpired) return { refusal: invalid('The token has expired.') };
      if (error instanceof errors.JWTClaimValidationFailed)
        return { refusal: invalid(`The token's ${error.claim} claim is not accepted.`) };
      return { refusal: invalid('The token could not be verified.') };
    }
    const unaccepted = unacceptedPart(header, payload, settings.tokenTypes, now());
    return unaccepted ? { refusal: invalid(`The token's ${unaccepted} is not accepted.`) } : { claims: payload };
  };

  const introspection = settings.introspection && createIntrospection(settings.introspection, { fetch: options.fetch ?? fetch, now });
  /** RFC 7662: the endpoint says whether the token is active; its answer is then held to the JWT rules. */
  const verifyByIntrospection = async (token: string, endpoint: Introspection): Promise<Verification> => {
    let claims: Claims | undefined;
    try {
      claims = await endpoint.claimsOf(token);
    } catch {
      return { refusal: unavailable('introspection endpoint') };
    }
    if (!claims) return { refusal: invalid('The token is not active.') };
    const unaccepted = unacceptedIntrospection(claims, settings, now());
    if (unaccepted === 'exp') return { refusal: invalid('The token has expired.') };
    return unaccepted ? { refusal: invalid(`The token's ${unaccepted} is not accepted.`) } : { claims };
  };

  const scopeRefusal = (description: string, scopes: readonly string[]): OAuthRefusal => ({
    status: 403,
    error: 'insufficient_scope',
    description,
    wwwAuthenticate: challenge('insufficient_scope', description, scopes.join(' ')),
  });

  return {
    metadata: () => ({
      resource: settings.resource,
      authorization_servers: [settings.issuer],
      scopes_supported: [...OAUTH_SCOPES.map(({ scope }) => scope), ...settings.requiredScopes],
      bearer_methods_supported: ['header'],
      resource_signing_alg_values_supported: settings.algorithms,
    }),
    authenticate: async (authorization) => {
      const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(authorization?.trim() ?? '');
      if (!match) {
        const description = authorization ? 'The Authorization header is not a Bearer token.' : 'A Bearer token is required.';
        return {
          status: 401,
          error: authorization ? 'invalid_request' : 'unauthorized',
          description,
          wwwAuthenticate: challenge(authorization ? 'invalid_request' : undefined),
        };
      }
      const verified = introspection ? await verifyByIntrospection(match[1]!, introspection) : await verifyJwt(match[1]!);
      if ('refusal' in verified) return verified.refusal;
      const subject = verified.claims.sub as string;
      const held = scopesOf(verified.claims);
      const granted = OAUTH_SCOPES.find(({ scope }) => held.has(scope));
      if (!granted) {
        return scopeRefusal(
          'The token holds none of the b2:* scopes.',
          OAUTH_SCOPES.map(({ scope }) => scope),
        );
      }
      const missing = settings.requiredScopes.filter((scope) => !held.has(scope));
      if (missing.length > 0)
        return scopeRefusal(`The token lacks the required scope ${missing.join(' ')}.`, [granted.scope, ...settings.requiredScopes]);
      if (
        settings.allowedSubjects &&
        !settings.allowedSubjects.has(subject) &&
        !settings.allowedSubjects.has(`${settings.issuer}#${subject}`)
      ) {
        return {
          status: 403,
          error: 'access_denied',
          description: "The token's subject may not use this server.",
          wwwAuthenticate: challenge(),
        };
      }
      const key = createHash('sha256').update(`${settings.issuer}\0${subject}`).digest('hex').slice(0, 32);
      return { key, subject, ceiling: granted.profile };
    },
  };
}

type Claims = Record<string, unknown>;
/** A token's verified claims, or why it is refused. */
type Verification = { claims: Claims } | { refusal: OAuthRefusal };

const INTROSPECTION_CACHE_ENTRIES = 10_000;

interface Introspection {
  /** The active token's claims, or undefined for an inactive one. Throws when the endpoint cannot answer. */
  claimsOf(token: string): Promise<Claims | undefined>;
}

/** Calls the endpoint (HTTP Basic client authentication, RFC 7662 §2.1); active answers are cached by the token's hash. */
function createIntrospection(settings: IntrospectionSettings, options: { fetch: typeof fetch; now: () => number }): Introspection {
  const cache = new LRUCache<string, { claims: Claims; until: number }>({ max: INTROSPECTION_CACHE_ENTRIES });
  const basic = btoa(`${encodeURIComponent(settings.clientId)}:${encodeURIComponent(settings.clientSecret)}`);
  const ask = async (token: string): Promise<Claims | undefined> => {
    const response = await options.fetch(settings.endpoint, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
      redirect: 'error',
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
    if (!response.ok) throw new IssuerUnavailable(`introspection answered ${response.status}`);
    const answer: unknown = await response.json();
    if (!isObject(answer)) throw new IssuerUnavailable('introspection did not answer a JSON object');
    return answer.active === true ? answer : undefined;
  };
  return {
    claimsOf: async (token) => {
      const key = createHash('sha256').update(token).digest('hex');
      const cached = cache.get(key);
      if (cached && options.now() < cached.until) return cached.claims;
      const claims = await ask(token);
      if (claims && settings.cacheTtlMs > 0) {
        const expiresMs = typeof claims.exp === 'number' ? claims.exp * 1000 : 0;
        cache.set(key, { claims, until: Math.min(options.now() + settings.cacheTtlMs, expiresMs) });
      }
      return claims;
    },
  };
}

const claimValues = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/**
 * The JWT rules, applied to an introspection answer: the issuer and audience named, unexpired
 * (`exp` required) and already valid with the same skew, a `Bearer` token type if one is given,
 * and a subject that is a non-empty string.
 */
function unacceptedIntrospection(claims: Claims, settings: OAuthSettings, nowMs: number): string | undefined {
  const nowSeconds = nowMs / 1000;
  if (claims.iss !== settings.issuer) return 'iss claim';
  if (!claimValues(claims.aud).includes(settings.audience)) return 'aud claim';
  if (typeof claims.exp !== 'number') return 'exp claim';
  if (claims.exp <= nowSeconds - CLOCK_TOLERANCE_S) return 'exp';
  if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf > nowSeconds + CLOCK_TOLERANCE_S)) return 'nbf claim';
  if (claims.token_type !== undefined && (typeof claims.token_type !== 'string' || claims.token_type.toLowerCase() !== 'bearer'))
    return 'token_type';
  if (typeof claims.sub !== 'string' || claims.sub === '') return 'sub claim';
  return undefined;
}
