import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { MODERN_PROTOCOL_VERSION } from '../src/contract/constants.js';
import { packageRoot } from '../src/server/package-info.js';
import { modernRequest } from './modern-request.js';

const SERVER = join(packageRoot(), 'dist', 'bin', 'b2-mcp.js');
export const CONCURRENCY = 8;
export const WARM_UP = 80;
export const MEASURED = 800;

const BODY = JSON.stringify(modernRequest('tools/list'));

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
  'mcp-method': 'tools/list',
  // Default `headers` credential mode: every request resolves its credential, as in production.
  'x-b2-mcp-key-id': 'bench-key-id',
  'x-b2-mcp-key': 'bench-key-secret',
};

export interface BenchServer {
  url: string;
  child: ChildProcess;
}

/** Starts the built server on a free port (with `extraEnv` on top of the bench settings); resolves with its /mcp URL. */
export function startServer(extraEnv: Record<string, string> = {}): Promise<BenchServer> {
  const child = spawn(process.execPath, [SERVER, 'http', '--port', '0'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      B2_MCP_PROFILE: 'default',
      B2_SECRET_SINK: 'off',
      LOG_LEVEL: 'info',
      // The per-client and per-credential rate limit (60/s) would cap the measurement itself.
      B2_MCP_RATE_LIMIT_RPS: '1000000',
      B2_MCP_RATE_LIMIT_BURST: '1000000',
      ...extraEnv,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 15_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, child });
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
}

/** One modern `tools/list`; resolves with its latency in ms. */
export async function listTools(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', headers: HEADERS, body: BODY });
  const text = await response.text();
  if (response.status !== 200 || !text.includes('"tools":['))
    throw new Error(`tools/list failed: HTTP ${response.status} ${text.slice(0, 200)}`);
  return performance.now() - started;
}

/** Runs `total` requests with `concurrency` workers; returns each request's latency. */
export async function run(url: string, total: number, concurrency = CONCURRENCY): Promise<number[]> {
  const latencies: number[] = [];
  let issued = 0;
  const worker = async (): Promise<void> => {
    while (issued < total) {
      issued += 1;
      latencies.push(await listTools(url));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return latencies;
}

export const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
export const round = (value: number): number => Math.round(value * 10) / 10;

/** Modern `tools/list` over HTTP with raw fetch at concurrency 8, after a warm-up. */
export async function benchHttpToolsList(): Promise<{ rps: number; p50Ms: number; p99Ms: number; concurrency: number; requests: number }> {
  const { url, child } = await startServer();
  try {
    await run(url, WARM_UP);
    const started = performance.now();
    const latencies = await run(url, MEASURED);
    const elapsedMs = performance.now() - started;
    const sorted = latencies.sort((a, b) => a - b);
    return {
      rps: Math.round((latencies.length / elapsedMs) * 1000),
      p50Ms: round(percentile(sorted, 50)),
      p99Ms: round(percentile(sorted, 99)),
      concurrency: CONCURRENCY,
      requests: latencies.length,
    };
  } finally {
    await stopServer({ url, child });
  }
}

export function stopServer({ child }: BenchServer): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
