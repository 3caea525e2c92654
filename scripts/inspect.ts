import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { BUNDLED } from '../src/conformance/package-root.js';

/**
 * `npm run inspect`: a seeded sandbox (`b2-mcp sandbox`), the bundled b2-mcp against it over stdio,
 * and the MCP Inspector's UI on loopback; prints where to open it. Ctrl-C stops all of them.
 * `B2_MCP_PROFILE` picks the profile (default full).
 */
interface SandboxDetails {
  apiUrl: string;
  applicationKeyId: string;
  applicationKey: string;
}

// Each child leads a process group of its own: the Inspector starts a proxy and a UI server beneath it.
const children: ChildProcess[] = [];
const stopAll = () => {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
};
process.on('SIGINT', stopAll);
process.on('SIGTERM', stopAll);

function startSandbox(): Promise<SandboxDetails> {
  const sandbox = spawn(process.execPath, [BUNDLED.serverEntry, 'sandbox', '--port', '0', '--seed', 'demo'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  children.push(sandbox);
  return new Promise((resolve, reject) => {
    sandbox.once('exit', (code) => reject(new Error(`the sandbox exited with code ${code} before it was ready`)));
    createInterface({ input: sandbox.stdout! }).once('line', (line) => resolve(JSON.parse(line) as SandboxDetails));
  });
}

const inspectorCli = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json')),
  'cli/build/cli.js',
);

try {
  const sandbox = await startSandbox();
  const env = {
    B2_API_URL: sandbox.apiUrl,
    B2_APPLICATION_KEY_ID: sandbox.applicationKeyId,
    B2_APPLICATION_KEY: sandbox.applicationKey,
    B2_MCP_PROFILE: process.env.B2_MCP_PROFILE ?? 'full',
  };
  console.log(`sandbox: ${sandbox.apiUrl} (demo data); server: b2-mcp stdio, profile ${env.B2_MCP_PROFILE}`);
  const inspector = spawn(
    process.execPath,
    [
      inspectorCli,
      ...Object.entries(env).flatMap(([name, value]) => ['-e', `${name}=${value}`]),
      process.execPath,
      BUNDLED.serverEntry,
      'stdio',
    ],
    {
      stdio: 'inherit',
      detached: true,
      // Loopback only, and no browser opened for you: open the URL the Inspector prints.
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        MCP_AUTO_OPEN_ENABLED: 'false',
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${new URL('./loopback-only.js', import.meta.url).href}`.trim(),
      },
    },
  );
  children.push(inspector);
  inspector.once('exit', (code) => {
    stopAll();
    process.exitCode = code ?? 0;
  });
} catch (error) {
  console.error(`npm run inspect: ${(error as Error).message}`);
  stopAll();
  process.exitCode = 1;
}
