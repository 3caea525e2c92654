import { ConfigError, loadConfig, type ServerConfig, type Transport } from './config.js';
import { createLogger } from './logger.js';
import { packageVersion } from './package-info.js';
import { ConfirmationStates } from './policy/gate.js';
import { collectSecretValues, createSanitizer } from './policy/sanitize.js';
import { encodeToon } from './policy/toon.js';
import { PROFILES } from './profiles.js';
import { resolveSurface, type SurfaceInput } from './registry.js';
import type { ServerRuntime } from './server.js';

/** Which surface this process serves: a pinned profile, the full override, or the key's own capabilities. */
async function surfaceInput(config: ServerConfig): Promise<SurfaceInput> {
  const secretSink = config.secretSink;
  if (config.profile) {
    const profile = PROFILES[config.profile];
    return { capabilities: profile.capabilities && new Set(profile.capabilities), partner: profile.partner, secretSink };
  }
  const partner = Boolean(config.credentials?.masterKeyId && config.credentials.masterKeyId !== config.credentials.applicationKeyId);
  if (config.registerAllTools) return { capabilities: null, partner: true, secretSink };
  throw new ConfigError('Capability discovery needs the native B2 client, which is not part of this build; pin B2_MCP_PROFILE or set B2_REGISTER_ALL_TOOLS=true.' + (partner ? '' : ''));
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
  const surface = resolveSurface(await surfaceInput(config));
  return { config, version: packageVersion(), logger, sanitizer, surface, states: new ConfirmationStates() };
}
