import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installedPackageDir, type RealServerVersion } from '../../scripts/real-servers.js';
import type { ServerLaunch } from './raw-client.js';

/**
 * How each published server is started offline over stdio, with what it needs to list its tools:
 * a directory of its own to serve, a memory file, a git repository. Everything lives in one
 * temporary directory per launch; nothing reaches the network.
 */
const RECIPES: Record<string, (work: string) => { args: string[]; env?: Record<string, string> }> = {
  '@modelcontextprotocol/server-everything': () => ({ args: ['stdio'] }),
  '@modelcontextprotocol/server-filesystem': (work) => {
    mkdirSync(join(work, 'served'));
    return { args: [join(work, 'served')] };
  },
  '@modelcontextprotocol/server-memory': (work) => ({ args: [], env: { MEMORY_FILE_PATH: join(work, 'memory.jsonl') } }),
  '@modelcontextprotocol/server-sequential-thinking': () => ({ args: [], env: { DISABLE_THOUGHT_LOGGING: 'true' } }),
  '@playwright/mcp': (work) => ({ args: ['--headless', '--isolated', '--output-dir', join(work, 'output')] }),
  '@cyanheads/git-mcp-server': (work) => {
    const repo = join(work, 'repo');
    mkdirSync(repo);
    execFileSync('git', ['init', '-q', repo]);
    writeFileSync(join(repo, 'README'), 'test repository\n');
    return { args: [], env: { MCP_TRANSPORT_TYPE: 'stdio', MCP_LOG_LEVEL: 'error', GIT_BASE_DIR: repo, LOGS_DIR: join(work, 'logs') } };
  },
};

/** The entry point a package's `bin` names (its only bin, or the first). */
function binOf(server: RealServerVersion): string {
  const dir = installedPackageDir(server);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  if (!bin) throw new Error(`${server.package}@${server.version} declares no bin`);
  return join(dir, bin);
}

export function launchOf(server: RealServerVersion): ServerLaunch {
  const recipe = RECIPES[server.package];
  if (!recipe) throw new Error(`no launch recipe for ${server.package}`);
  const work = mkdtempSync(join(tmpdir(), 'real-server-'));
  const { args, env } = recipe(work);
  return { command: process.execPath, args: [binOf(server), ...args], env: { ...env, HOME: work, NO_UPDATE_NOTIFIER: '1' }, cwd: work };
}
