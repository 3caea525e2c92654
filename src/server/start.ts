import { createHash } from 'node:crypto';
import { ConfigError, loadConfig, type Credentials, type ServerConfig, type Transport } from './config.js';
import { createLogger } from './logger.js';
import { packageVersion } from './package-info.js';
import { ConfirmationStates } from './policy/gate.js';
import { collectSecretValues, createSanitizer } from './policy/sanitize.js';
import { encodeToon } from './policy/toon.js';
import { PROFILES } from './profiles.js';
import { availablePrompts } from './prompts/availability.js';
import { resolveSurface, type SurfaceInput } from './registry.js';
import { createServerFactory, type CredentialSession, type ServerRuntime } from './server.js';

/** Which surface this process serves: a pinned profile, the full override, or the key's own capabilities. */
async function surfaceInput(config: ServerConfig, credentials: Credentials | undefined): Promise<SurfaceInput> {
  const secretSink = config.secretSink;
  if (config.profile) {
    const profile = PROFILES[config.profile];
    return { capabilities: profile.capabilities && new Set(profile.capabilities), partner: profile.partner, secretSink };
  }
  if (config.registerAllTools) return { capabilities: null, partner: true, secretSink };
  const partner = Boolean(credentials?.masterKeyId && credentials.masterKeyId !== credentials.applicationKeyId);
  throw new ConfigError(`Capability discovery needs the native B2 client, which is not part of this build; pin B2_MCP_PROFILE or set B2_REGISTER_ALL_TOOLS=true.${partner ? '' : ''}`);
}

/** A cache key for a credential that reveals nothing about it. */
function credentialFingerprint(credentials: Credentials | undefined): string {
  if (!credentials) return 'none';
  const material = [credentials.applicationKeyId, credentials.applicationKey, credentials.masterKeyId ?? '', credentials.masterKey ?? ''];
  return createHash('sha256').update(material.join('\0')).digest('hex');
}

export async function createRuntime(env: NodeJS.ProcessEnv, transport: Transport): Promise<ServerRuntime> {
  const config = loadConfig(env, transport);
  if (config.outputFormat === 'toon' && encodeToon({ ok: true }) !== 'ok: true') {
    throw new ConfigError('B2_MCP_OUTPUT_FORMAT=toon failed its self-test; use json.');
  }
  const secrets = collectSecretValues(env, [config.credentials?.applicationKey, config.credentials?.masterKey]);
  const sanitizer = createSanitizer(secrets);
  const logSanitizer = createSanitizer(secrets, { mode: 'log' });
  const logger = createLogger({ level: config.logLevel, file: config.logFile, redact: (record) => logSanitizer.value(record) });
  const shared = { config, version: packageVersion(), logger, sanitizer, states: new ConfirmationStates() };
  const sessions = new Map<string, Promise<CredentialSession>>();
  const sessionFor = (credentials: Credentials | undefined = config.credentials): Promise<CredentialSession> => {
    const key = credentialFingerprint(credentials);
    let session = sessions.get(key);
    if (!session) {
      session = surfaceInput(config, credentials).then((input) => {
        const surface = resolveSurface(input);
        const prompts = config.promptsEnabled ? availablePrompts(surface, input.capabilities) : [];
        return { surface, prompts, factory: createServerFactory(shared, surface, prompts) };
      });
      // A failed discovery must not poison the cache: the next request tries again.
      session.catch(() => sessions.delete(key));
      sessions.set(key, session);
    }
    return session;
  };
  return { ...shared, sessionFor };
}
