import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ProfileName } from '../../contract/constants.js';
import { ConformError } from '../errors.js';
import { BUNDLED } from '../package-root.js';
import { inheritedEnvironment } from './stdio-transport.js';
import { redact, type HttpTarget } from './target.js';

/**
 * How the embedded default runs the b2-mcp shipped in this package: pinned to the profile, with
 * the fixture generator's configuration (no secret sink, so the durable-secret tools are the
 * contract's stubs), credentials from its own empty environment. It needs no B2 account, makes
 * no B2 call and writes nothing.
 */
export function bundledEnvironment(profile: ProfileName): Record<string, string> {
  return { B2_MCP_PROFILE: profile, B2_SECRET_SINK: 'off', B2_HTTP_CREDENTIAL_MODE: 'server' };
}

export interface BundledServer {
  /** Resolves once the server listens on its loopback port. */
  ready: Promise<HttpTarget>;
  stop(): Promise<void>;
}

/**
 * Start the bundled server over Streamable HTTP on an ephemeral loopback port: one process serves
 * all three connections (the fixture generator collects over HTTP too), which is about a third of
 * the start-up cost of one stdio process per connection.
 */
export function startBundledServer(profile: ProfileName, timeoutMs: number): BundledServer {
  if (!existsSync(BUNDLED.serverEntry)) {
    throw new ConformError('connect', `the bundled server is not built (${BUNDLED.serverEntry} is missing); run npm run build`);
  }
  const env = bundledEnvironment(profile);
  const child = spawn(process.execPath, [BUNDLED.serverEntry, 'http', '--port', '0', '--host', '127.0.0.1'], {
    env: { ...inheritedEnvironment(), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let lastLine = '';
  const ready = new Promise<HttpTarget>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new ConformError('timeout', `the bundled server did not start listening within ${timeoutMs} ms (--timeout)`)),
      timeoutMs,
    );
    child.once('error', (error) => reject(new ConformError('connect', `could not start the bundled server: ${error.message}`)));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const detail = lastLine ? ` (stderr: ${redact(lastLine, []).slice(0, 200)})` : '';
      reject(
        new ConformError(
          'server-exited',
          `the bundled server exited ${signal ? `on ${signal}` : `with code ${code}`} before listening${detail}`,
        ),
      );
    });
    createInterface({ input: child.stderr! }).on('line', (line) => {
      if (line.trim()) lastLine = line;
      const url = listeningUrl(line);
      if (!url) return;
      clearTimeout(timer);
      resolve({ kind: 'http', url: new URL(url), headers: {}, bundled: { env: Object.keys(env).sort() } });
    });
  });
  ready.catch(() => {});
  return {
    ready,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const stopped = await Promise.race([
        exited.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2000).unref()),
      ]);
      if (!stopped) child.kill('SIGKILL');
    },
  };
}

/** The server logs one JSON line per event on stderr; `http.listening` carries the endpoint. */
function listeningUrl(line: string): string | undefined {
  if (!line.includes('listening')) return undefined;
  try {
    const event = JSON.parse(line) as { url?: unknown };
    return typeof event.url === 'string' && /^http:\/\/127\.0\.0\.1:\d+\//.test(event.url) ? event.url : undefined;
  } catch {
    return undefined;
  }
}
