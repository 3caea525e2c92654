import { LRUCache } from 'lru-cache';
import { createBackends, type Backends } from './backends.js';
import { b2UserAgent } from './b2/native-client.js';
import { B2Error } from './b2/errors.js';
import type { ProfileName } from '../contract/constants.js';
import { ConfigError, loadConfig, readSetting, redisUrlPasswords, type Credentials, type ServerConfig, type Transport } from './config.js';
import { StatusError } from './errors.js';
import { createLogger, withRedaction, type Logger } from './logger.js';
import { packageVersion } from './package-info.js';
import { ConfirmationStates } from './policy/gate.js';
import { collectSecretValues, createSanitizer } from './policy/sanitize.js';
import { encodeToon } from './policy/toon.js';
import { PROFILES } from './profiles.js';
import { availablePrompts } from './prompts/availability.js';
import { resolveSurface, type SurfaceInput } from './registry.js';
import { openSecretStore } from './secrets/open.js';
import { callerIdOf } from './secrets/store.js';
import { createServerFactory, type CredentialSession, type ServerRuntime } from './server.js';

/** A credential problem found while reading the key's capabilities; `status` follows B2's answer. */
export class CredentialError extends StatusError {
  constructor(status: number, code: string, message: string) {
    super(status, code, message);
    this.name = 'CredentialError';
  }
}

/**
 * Which surface a credential gets: a pinned profile, the full override, or the key's own
 * capabilities read from B2. A key B2 rejects fails closed; B2 being unreachable degrades to
 * the full surface on stdio (calls will fail clearly later) and fails the request on HTTP.
 */
async function surfaceInput(
  config: ServerConfig,
  credentials: Credentials | undefined,
  backends: Backends | undefined,
  logger: Logger,
): Promise<SurfaceInput> {
  const secretSink = config.secretSink;
  if (config.profile) {
    const profile = PROFILES[config.profile];
    return { capabilities: profile.capabilities && new Set(profile.capabilities), partner: profile.partner, secretSink };
  }
  if (config.registerAllTools) return { capabilities: null, partner: true, secretSink };
  if (!backends || !credentials) throw new CredentialError(401, 'missing_credentials', 'No B2 application key was provided.');
  const partner = backends.partner !== backends.b2;
  try {
    const info = await backends.b2.authorize();
    return { capabilities: new Set(info.allowed.capabilities), partner, secretSink };
  } catch (error) {
    if (!(error instanceof B2Error)) throw error;
    if (error.status === 401 || error.status === 403) {
      throw new CredentialError(error.status, 'capability_auth_failed', `B2 rejected the application key (${error.code}).`);
    }
    if (config.transport === 'stdio' && (error.status === 429 || error.status >= 500)) {
      logger.warn('capabilities.unavailable', { code: error.code, status: error.status, fallback: 'full surface' });
      return { capabilities: null, partner, secretSink };
    }
    throw new CredentialError(
      error.status >= 500 ? 503 : 502,
      'capability_upstream_unavailable',
      `Could not read the key's capabilities from B2 (${error.code}).`,
    );
  }
}

/**
 * The surface a key could serve under a profile as well: only ever narrower. Capabilities are
 * intersected (the full-surface override takes the other side's), Partner tools need both.
 */
export function narrowToProfile(input: SurfaceInput, ceiling: ProfileName | undefined): SurfaceInput {
  if (!ceiling) return input;
  const profile = PROFILES[ceiling];
  const limit = profile.capabilities && new Set<string>(profile.capabilities);
  const capabilities =
    input.capabilities === null
      ? limit
      : limit === null
        ? input.capabilities
        : new Set([...input.capabilities].filter((c) => limit.has(c)));
  return { ...input, capabilities, partner: input.partner && profile.partner };
}

/** Capabilities of a key can change; a session is rebuilt (re-reading them) after this long. */
const SESSION_TTL_MS = 5 * 60 * 1000;

/** A credential's ids and secrets: no local file holding one is uploaded. */
const credentialValues = (credentials: Credentials | undefined): string[] =>
  credentials
    ? [credentials.applicationKeyId, credentials.applicationKey, credentials.masterKeyId, credentials.masterKey].filter(
        (value) => value !== undefined,
      )
    : [];

/**
 * The session cache is bounded by memory: each entry is charged more than the resident memory one
 * cached credential was measured to keep (its B2 clients, server factory, sanitizers and HTTP
 * handler, the tool surface being shared: 17–25 KiB, 10 KiB of it heap), so made-up credentials
 * under a pinned profile cannot grow the process past the budget (64 MiB, about 1,360 credentials).
 */
export const SESSION_CACHE_BYTES = 64 * 1024 * 1024;
export const CACHED_SESSION_BYTES = 48 * 1024;

export interface RuntimeOptions {
  /** The session cache's memory budget (tests shrink it). */
  sessionCacheBytes?: number;
}

/** Distinct capability sets are few; more than this many and the least used is resolved again when needed. */
const SHARED_SURFACES = 64;

/** One resolved surface per distinct input: credentials with the same capabilities share it instead of each holding a copy. */
function sharedSurfaces(config: ServerConfig): (input: SurfaceInput) => Pick<CredentialSession, 'surface' | 'prompts'> {
  const surfaces = new LRUCache<string, Pick<CredentialSession, 'surface' | 'prompts'>>({ max: SHARED_SURFACES });
  return (input) => {
    const key = JSON.stringify([input.capabilities && [...input.capabilities].sort(), input.partner, input.secretSink]);
    let resolved = surfaces.get(key);
    if (!resolved) {
      const surface = resolveSurface(input);
      resolved = { surface, prompts: config.promptsEnabled ? availablePrompts(surface, input.capabilities) : [] };
      surfaces.set(key, resolved);
    }
    return resolved;
  };
}

export async function createRuntime(env: NodeJS.ProcessEnv, transport: Transport, options: RuntimeOptions = {}): Promise<ServerRuntime> {
  // The secret sink is opened (and its ledger preflighted) once per process.
  const { config, store: secretStore } = openSecretStore(loadConfig(env, transport), env);
  if (config.outputFormat !== 'json' && encodeToon({ ok: true }) !== 'ok: true') {
    throw new ConfigError(`B2_MCP_OUTPUT_FORMAT=${config.outputFormat} failed its TOON self-test; use json.`);
  }
  const secrets = collectSecretValues(env, [
    config.credentials?.applicationKey,
    config.credentials?.masterKey,
    env.B2_OAUTH_INTROSPECTION_CLIENT_SECRET?.trim(),
    ...redisUrlPasswords(env),
  ]);
  const sanitizer = createSanitizer(secrets);
  const logSanitizer = createSanitizer(secrets, { mode: 'log' });
  const logger = createLogger({ level: config.logLevel, file: config.logFile, redact: (record) => logSanitizer.value(record) });
  const version = packageVersion();
  const userAgent = b2UserAgent(version, readSetting(env, transport, 'B2_MCP_UA_SUFFIX'));
  if (config.secretSinkUnavailable) logger.warn('secret_sink.unavailable', { reason: config.secretSinkUnavailable });
  if (config.secretSink === 'inline')
    logger.warn('secret_sink.inline', { note: 'new keys and accounts are returned in tool results; rotate them after use' });
  const shared = { config, version, logger, sanitizer, states: new ConfirmationStates(), secrets: secretStore };
  const resolved = sharedSurfaces(config);

  /** What one credential's session is built with: its own secrets join the redaction of its results and logs. */
  const sessionRuntime = (credentials: Credentials | undefined) => {
    const own = [credentials?.applicationKey, credentials?.masterKey];
    const sessionLogSanitizer = logSanitizer.withSecrets(own);
    return {
      ...shared,
      sanitizer: sanitizer.withSecrets(own),
      logger: sessionLogSanitizer === logSanitizer ? logger : withRedaction(logger, (fields) => sessionLogSanitizer.value(fields)),
    };
  };

  // HTTP headers mode sees arbitrary credentials, so the cache is bounded (least recently used goes first).
  const sessions = new LRUCache<string, Promise<CredentialSession>>({
    maxSize: options.sessionCacheBytes ?? SESSION_CACHE_BYTES,
    sizeCalculation: () => CACHED_SESSION_BYTES,
    ttl: SESSION_TTL_MS,
    perf: { now: () => Date.now() },
  });
  const sessionFor = (
    credentials: Credentials | undefined = config.credentials,
    ceiling?: ProfileName,
    principal?: string,
  ): Promise<CredentialSession> => {
    const callerId = callerIdOf(credentials, principal);
    const key = `${callerId}:${ceiling ?? ''}`;
    let session = sessions.get(key);
    if (!session) {
      const backends = credentials && createBackends(config, credentials, userAgent, logger);
      session = surfaceInput(config, credentials, backends, logger).then((discovered) => {
        const input = narrowToProfile(discovered, ceiling);
        const { surface, prompts } = resolved(input);
        const protectedValues = [...new Set([...secrets, ...credentialValues(config.credentials), ...credentialValues(credentials)])];
        const binding = { surface, prompts, capabilities: input.capabilities, backends, callerId, protectedValues };
        return { surface, prompts, factory: createServerFactory(sessionRuntime(credentials), binding) };
      });
      // A failed discovery must not poison the cache: the next request tries again.
      const created = session;
      created.catch(() => {
        if (sessions.peek(key) === created) sessions.delete(key);
      });
      sessions.set(key, session);
    }
    return session;
  };
  return { ...shared, sessionFor };
}
