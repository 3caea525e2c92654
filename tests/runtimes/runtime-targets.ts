import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleEntry, WORKER_BUNDLE } from '../../scripts/bundle-worker.js';
import { toolBinary, type ToolName } from '../../scripts/registry-tools.js';
import { packageRoot } from '../../src/server/package-info.js';
import { guardEnv, targetAt, type StartTarget } from '../support/http-guard-support.js';
import { serverEnv } from '../support/server-harness.js';

/**
 * The fetch handler served by real runtimes, each from the registry package that ships its binary
 * (scripts/registry-tools.ts): workerd through miniflare running the Worker entry point
 * (deploy/worker.ts, bundled as `npm run build:worker` bundles it), Bun and Deno running the
 * wiring docs/deploy.md shows (tests/runtimes/serve-*.ts, bundled into one file each).
 */
export interface Runtime {
  name: string;
  tools: ToolName[];
  /** Bundles what the runtime runs (once, before any target starts). */
  prepare(): Promise<void>;
  /** Serves the handler with `env` (the whole configuration) on a free loopback port. */
  listen(env: Record<string, string>): Promise<{ url: URL; stop(): Promise<void> }>;
}

const bundleOf = (name: string): string => join(packageRoot(), 'dist', 'runtimes', `${name}.js`);

/** Spawns `command` and waits for the `{"url": …}` line it prints once listening. */
async function listening(command: string, args: string[], env: Record<string, string>): Promise<{ url: URL; stop(): Promise<void> }> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<URL>((resolve, reject) => {
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /\{"url":"(http:\/\/[^"]+)"\}/.exec(output);
      if (match) resolve(new URL(match[1]!));
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code} before listening: ${output.slice(0, 2_000)}`)));
  });
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

interface MiniflareInstance {
  ready: Promise<URL>;
  dispose(): Promise<void>;
}
type MiniflareClass = new (options: Record<string, unknown>) => MiniflareInstance;

/**
 * Workers reach the network through miniflare's outbound service, here Node's fetch: workerd
 * refuses loopback addresses (the sandbox) by itself. Headers Node computes again are left out.
 */
async function outbound(request: Request): Promise<Response> {
  const headers = Object.fromEntries(
    [...request.headers].filter(([name]) => !['content-length', 'host', 'transfer-encoding'].includes(name)),
  );
  const body = ['GET', 'HEAD'].includes(request.method) ? undefined : await request.arrayBuffer();
  const response = await fetch(request.url, { method: request.method, headers, body });
  // Node's fetch has already decoded the body.
  const answer = new Headers(response.headers);
  answer.delete('content-encoding');
  answer.delete('content-length');
  return new Response(await response.arrayBuffer(), { status: response.status, headers: answer });
}

export const RUNTIMES: readonly Runtime[] = [
  {
    name: 'workerd (miniflare)',
    tools: ['miniflare'],
    prepare: () => bundleEntry(join(packageRoot(), 'deploy', 'worker.ts'), WORKER_BUNDLE, { fixedVersion: true }),
    listen: async (env) => {
      const { Miniflare } = (await import(pathToFileURL(toolBinary('miniflare')).href)) as { Miniflare: MiniflareClass };
      const worker = new Miniflare({
        modules: true,
        scriptPath: WORKER_BUNDLE,
        modulesRoot: dirname(WORKER_BUNDLE),
        compatibilityDate: '2026-07-01',
        compatibilityFlags: ['nodejs_compat'],
        bindings: env,
        outboundService: outbound,
        host: '127.0.0.1',
        port: 0,
      });
      const base = await worker.ready;
      return { url: new URL('/mcp', base), stop: () => worker.dispose() };
    },
  },
  {
    name: 'Bun',
    tools: ['bun'],
    prepare: () => bundleEntry(join(import.meta.dirname, 'serve-bun.ts'), bundleOf('bun')),
    listen: (env) => listening(toolBinary('bun'), ['run', bundleOf('bun')], env),
  },
  {
    name: 'Deno',
    tools: ['deno'],
    prepare: () => bundleEntry(join(import.meta.dirname, 'serve-deno.ts'), bundleOf('deno')),
    listen: (env) => listening(toolBinary('deno'), ['run', '--allow-all', '--quiet', bundleOf('deno')], { ...env, NO_COLOR: '1' }),
  },
];

/** A guard target on `runtime`: the suite's settings on top of the guard defaults, logs off. */
export function runtimeTarget(runtime: Runtime): StartTarget {
  return async (env) => {
    const served = await runtime.listen(serverEnv(guardEnv(env)));
    return targetAt(served.url, served.stop);
  };
}
