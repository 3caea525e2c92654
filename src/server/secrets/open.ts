import { ConfigError, type ServerConfig } from '../config.js';
import { FileSecretSink, SecretSinkError } from '../policy/secret-sink.js';
import { FileSecretStore, InlineSecretStore, type SecretStore } from './store.js';

export interface OpenedSecrets {
  /** The configuration in effect: the sink is `off` when the default ledger could not be used. */
  config: ServerConfig;
  store?: SecretStore;
}

/**
 * Opens the secret sink once per process (docs/contract.md §7.2). The file ledger is preflighted
 * without creating anything (it appears on first use): an explicitly configured one that fails
 * stops start-up; the implicit stdio default degrades to `off` (the secret tools become stubs
 * that say why).
 */
export function openSecretStore(config: ServerConfig, env: NodeJS.ProcessEnv): OpenedSecrets {
  if (config.secretSink === 'inline') return { config, store: new InlineSecretStore() };
  if (config.secretSink !== 'file' || !config.secretSinkFile) return { config };
  const ledger = new FileSecretSink(config.secretSinkFile, config.logFile);
  try {
    ledger.inspect();
    return { config, store: new FileSecretStore(ledger) };
  } catch (error) {
    const reason =
      error instanceof SecretSinkError
        ? error.message
        : `Cannot prepare the secret ledger ${ledger.path} (${(error as NodeJS.ErrnoException).code ?? 'error'}).`;
    if (env.B2_SECRET_SINK?.trim() || env.B2_SECRET_SINK_FILE?.trim()) throw new ConfigError(`B2_SECRET_SINK=file: ${reason}`);
    return {
      config: {
        ...config,
        secretSink: 'off',
        secretSinkFile: undefined,
        secretSinkUnavailable: `the default secret ledger cannot be used: ${reason}`,
      },
    };
  }
}
