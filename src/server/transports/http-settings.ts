import { ConfigError, readSetting } from '../config.js';
import type { RedisFailureMode, RedisSettings } from './shared-state.js';
import { loadOAuthSettings, type OAuthSettings } from './oauth.js';
import { loadPrincipalCredentials, type PrincipalCredentials } from './principal-credentials.js';

export type HttpCredentialMode = 'headers' | 'server' | 'principal';

/** The HTTP transport's own settings, validated once at startup. */
export interface HttpSettings {
  credentialMode: HttpCredentialMode;
  /** `Host` values accepted; empty means loopback only (unless origins are listed). */
  allowedHosts: readonly string[];
  /** Exact `Origin` values accepted; empty means origins are matched like hosts. */
  allowedOrigins: readonly string[];
  trustProxyHeaders: boolean;
  /** Trusted proxies that each append to `X-Forwarded-For`: the client's address is this many entries from the end. */
  trustedProxyHops: number;
  rateLimit: { perSecond: number; burst: number };
  /** In-flight caps (and legacy-session caps): global ⇒ 503, per key ⇒ 429. */
  maxInFlight: number;
  maxInFlightPerKey: number;
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  /** Limits and session ownership shared through Redis; absent, they stay in this process. */
  redis?: RedisSettings;
  /** Bearer tokens are required when set. */
  oauth?: OAuthSettings;
  /** `principal` mode: each token subject's own B2 key. */
  principals?: PrincipalCredentials;
}

/** Request bodies above this many bytes are refused with 413. */
export const MAX_BODY_BYTES = 1_048_576;

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

function positiveNumber(name: string, value: string | undefined, integer: boolean): number {
  const parsed = Number(value);
  if (value === undefined || !/^\d+(\.\d+)?$/.test(value) || !(parsed > 0) || (integer && !Number.isInteger(parsed))) {
    throw new ConfigError(`${name} must be a positive ${integer ? 'whole ' : ''}number (got "${value}").`);
  }
  return parsed;
}

/** The URL is checked without being echoed: it may carry a password. */
function redisSettings(env: NodeJS.ProcessEnv): RedisSettings | undefined {
  const url = readSetting(env, 'http', 'B2_MCP_REDIS_URL');
  const failure = readSetting(env, 'http', 'B2_MCP_REDIS_FAILURE') as RedisFailureMode;
  if (url === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') || parsed.hostname === '') {
    throw new ConfigError('B2_MCP_REDIS_URL must be a redis:// or rediss:// URL with a host.');
  }
  return { url, failure };
}

export function loadHttpSettings(env: NodeJS.ProcessEnv): HttpSettings {
  const requestTimeoutMs = positiveNumber('B2_HTTP_REQUEST_TIMEOUT_MS', readSetting(env, 'http', 'B2_HTTP_REQUEST_TIMEOUT_MS'), true);
  const headersTimeoutMs = positiveNumber('B2_HTTP_HEADERS_TIMEOUT_MS', readSetting(env, 'http', 'B2_HTTP_HEADERS_TIMEOUT_MS'), true);
  const redis = redisSettings(env);
  const oauth = loadOAuthSettings(env);
  const credentialMode = readSetting(env, 'http', 'B2_HTTP_CREDENTIAL_MODE') as HttpCredentialMode;
  const principals = principalSettings(env, credentialMode, oauth);
  return {
    credentialMode,
    allowedHosts: list(readSetting(env, 'http', 'B2_ALLOWED_HOSTS')).map((host) => host.toLowerCase()),
    allowedOrigins: list(readSetting(env, 'http', 'B2_ALLOWED_ORIGINS')),
    trustProxyHeaders: readSetting(env, 'http', 'B2_TRUST_PROXY_HEADERS') === 'true',
    trustedProxyHops: positiveNumber('B2_TRUSTED_PROXY_HOPS', readSetting(env, 'http', 'B2_TRUSTED_PROXY_HOPS'), true),
    rateLimit: {
      perSecond: positiveNumber('B2_MCP_RATE_LIMIT_RPS', readSetting(env, 'http', 'B2_MCP_RATE_LIMIT_RPS'), false),
      burst: positiveNumber('B2_MCP_RATE_LIMIT_BURST', readSetting(env, 'http', 'B2_MCP_RATE_LIMIT_BURST'), true),
    },
    maxInFlight: positiveNumber('B2_MAX_SESSIONS', readSetting(env, 'http', 'B2_MAX_SESSIONS'), true),
    maxInFlightPerKey: positiveNumber('B2_MAX_SESSIONS_PER_KEY', readSetting(env, 'http', 'B2_MAX_SESSIONS_PER_KEY'), true),
    requestTimeoutMs,
    // Node refuses a headers timeout longer than the request timeout.
    headersTimeoutMs: Math.min(headersTimeoutMs, requestTimeoutMs),
    ...(redis && { redis }),
    ...(oauth && { oauth }),
    ...(principals && { principals }),
  };
}

/** `principal` mode needs verified subjects (OAuth) and the map; the map means nothing in another mode. */
function principalSettings(
  env: NodeJS.ProcessEnv,
  mode: HttpCredentialMode,
  oauth: OAuthSettings | undefined,
): PrincipalCredentials | undefined {
  if (mode !== 'principal') {
    if (readSetting(env, 'http', 'B2_PRINCIPAL_CREDENTIAL_MAP') !== undefined)
      throw new ConfigError('B2_PRINCIPAL_CREDENTIAL_MAP needs B2_HTTP_CREDENTIAL_MODE=principal.');
    return undefined;
  }
  if (!oauth)
    throw new ConfigError('B2_HTTP_CREDENTIAL_MODE=principal needs B2_OAUTH_ISSUER: the B2 key is chosen by the verified token subject.');
  return loadPrincipalCredentials(env);
}
