import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from './free-port.js';

/** A throwaway `redis-server` on a free loopback port, no persistence: for tests/redis (stopped and restarted mid-run) and the benchmarks. */

export const REDIS_SERVER = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim();

export interface RedisProcess {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGTERM) and resolves once it has exited. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty (nothing is persisted). */
  start(): Promise<void>;
}

function launch(port: number, extraArgs: readonly string[]): Promise<ChildProcess> {
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.resume();
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
  });
}

export async function startRedis(extraArgs: readonly string[] = []): Promise<RedisProcess> {
  const redis = await redisOnFreePort(extraArgs);
  await redis.start();
  return redis;
}

/** A free port for a Redis that is not started yet (a URL that refuses connections until `start()`). */
export async function redisOnFreePort(extraArgs: readonly string[] = []): Promise<RedisProcess> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        const running = child;
        child = undefined;
        if (!running || running.exitCode !== null) return resolve();
        running.once('exit', () => resolve());
        running.kill('SIGTERM');
      }),
    start: async () => {
      child = await launch(port, extraArgs);
    },
  };
}
