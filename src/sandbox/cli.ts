/**
 * `b2-mcp sandbox`: start the sandbox, print one JSON line with its connection details on stdout,
 * run until SIGINT/SIGTERM, then close (saving `--state`) and return so the process exits 0.
 */
import { FaultSpecError, parseFaultSpec } from './faults.js';
import { startSandbox } from './index.js';
import { SEEDS, type SeedName } from './seed.js';

export class SandboxUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxUsageError';
  }
}

export interface SandboxCommandOptions {
  port?: string;
  host?: string;
  seed?: string;
  state?: string;
  faults?: string;
}

export interface SandboxCommandIo {
  stdout?: NodeJS.WritableStream;
  /** Resolves when the sandbox should stop; defaults to the first SIGINT or SIGTERM. */
  stopped?: Promise<unknown>;
}

function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export async function runSandboxCommand(options: SandboxCommandOptions, io: SandboxCommandIo = {}): Promise<void> {
  const port = Number(options.port ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65_533) {
    throw new SandboxUsageError(`--port must be an integer from 0 to 65533, got "${options.port}"`);
  }
  const seed = options.seed ?? 'demo';
  if (!(SEEDS as readonly string[]).includes(seed)) throw new SandboxUsageError(`--seed must be one of ${SEEDS.join(', ')}, got "${seed}"`);
  const host = options.host ?? '127.0.0.1';
  if (!host) throw new SandboxUsageError('--host must not be empty');

  if (options.faults) {
    try {
      parseFaultSpec(options.faults);
    } catch (error) {
      if (error instanceof FaultSpecError) throw new SandboxUsageError(error.message);
      throw error;
    }
  }

  const stopped = io.stopped ?? waitForSignal();
  const sandbox = await startSandbox({
    port,
    host,
    seed: seed as SeedName,
    ...(options.state ? { stateFile: options.state } : {}),
    ...(options.faults ? { faults: options.faults } : {}),
  });
  const details = {
    apiUrl: sandbox.apiUrl,
    s3Url: sandbox.s3Url,
    accountId: sandbox.accountId,
    applicationKeyId: sandbox.applicationKeyId,
    applicationKey: sandbox.applicationKey,
    adminUrl: sandbox.adminUrl,
  };
  (io.stdout ?? process.stdout).write(`${JSON.stringify(details)}\n`);
  await stopped;
  await sandbox.close();
}
