import { readSetting, withSecretFiles, type Transport } from './config.js';
import type { ServerRuntime } from './server.js';
import { createRuntime } from './start.js';

/** A command-line mistake: exit code 2 with a usage hint. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

function parsePort(value: string, source: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) {
    throw new UsageError(`${source} must be a port number between 0 and 65535 (got "${value}").`);
  }
  return Number(value);
}

function onShutdown(stop: () => Promise<void>): void {
  const exit = (): void => {
    void stop().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 10_000).unref();
  };
  process.once('SIGINT', exit);
  process.once('SIGTERM', exit);
}

/** The one start-up record (clients wait for it): what serves, on which transport; never a secret. */
function logStarted(runtime: ServerRuntime, transport: Transport): void {
  const { config } = runtime;
  runtime.logger.info('server.started', {
    transport,
    profile: config.profile ?? (config.registerAllTools ? 'full' : 'key-capabilities'),
    version: runtime.version,
    destructivePolicy: config.destructivePolicy,
    secretSink: config.secretSink,
    localFiles: config.allowLocalFiles ? config.fileRoot : 'off',
  });
}

export async function runStdio(givenEnv: NodeJS.ProcessEnv): Promise<void> {
  const runtime = await createRuntime(withSecretFiles(givenEnv), 'stdio');
  // Transports load on demand: stdio start-up must not pay for the HTTP stack, nor HTTP for stdio.
  const { serveOverStdio } = await import('./transports/stdio.js');
  const handle = await serveOverStdio(runtime);
  logStarted(runtime, 'stdio');
  onShutdown(() => handle.close());
  process.stdin.once('end', () => void handle.close().finally(() => process.exit(0)));
}

export async function runHttp(givenEnv: NodeJS.ProcessEnv, options: { port?: string; host: string }): Promise<void> {
  const env = withSecretFiles(givenEnv);
  const port =
    options.port !== undefined ? parsePort(options.port, '--port') : parsePort(readSetting(env, 'http', 'PORT') ?? '3000', 'PORT');
  const { loadHttpSettings } = await import('./transports/http-settings.js');
  const settings = loadHttpSettings(env);
  const runtime = await createRuntime(env, 'http');
  const { serveOverHttp } = await import('./transports/http.js');
  const { server, drain } = await serveOverHttp(runtime, { port, host: options.host, settings });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  logStarted(runtime, 'http');
  runtime.logger.info('http.listening', { url: `http://${options.host}:${bound}/mcp` });
  onShutdown(drain);
}

/** The transport used when no subcommand is given; an unknown value is a configuration error (exit 1). */
export function defaultTransport(env: NodeJS.ProcessEnv): 'stdio' | 'http' {
  return readSetting(env, 'stdio', 'B2_MCP_TRANSPORT') === 'http' ? 'http' : 'stdio';
}
