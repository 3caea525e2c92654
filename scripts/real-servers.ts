/**
 * The published MCP servers `npm run test:real-servers` checks, installed from the npm registry
 * into a cache of their own, outside the project's dependencies: one npm prefix per package
 * version, so several versions of one package sit side by side. A version already installed is
 * left as it is. Run as a script, it installs what is missing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../src/server/package-info.js';

export interface RealServerVersion {
  package: string;
  version: string;
}

/** Every pinned version, each package's in release order (tests/real-servers/servers.json). */
export function realServerVersions(): { package: string; versions: string[] }[] {
  const file = join(packageRoot(), 'tests', 'real-servers', 'servers.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { servers: { package: string; versions: string[] }[] }).servers;
}

/** Where the servers are installed: $REAL_SERVERS_CACHE, else ~/.cache/b2-mcp-conform/real-servers. */
export function realServersCache(): string {
  return process.env.REAL_SERVERS_CACHE || join(homedir(), '.cache', 'b2-mcp-conform', 'real-servers');
}

/** The npm prefix one version is installed under. */
export function prefixOf({ package: name, version }: RealServerVersion): string {
  return join(realServersCache(), `${name.replace('/', '+')}@${version}`);
}

/** The installed package's own directory. */
export function installedPackageDir(server: RealServerVersion): string {
  return join(prefixOf(server), 'node_modules', ...server.package.split('/'));
}

function isInstalled(server: RealServerVersion): boolean {
  const manifest = join(installedPackageDir(server), 'package.json');
  return existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version === server.version;
}

/** Install every pinned version not yet in the cache (no install scripts run: the servers need none to list their tools). */
export function installRealServers(log: (line: string) => void = console.log): void {
  for (const { package: name, versions } of realServerVersions()) {
    for (const version of versions) {
      const server = { package: name, version };
      if (isInstalled(server)) continue;
      const prefix = prefixOf(server);
      mkdirSync(prefix, { recursive: true });
      log(`installing ${name}@${version} into ${prefix}`);
      execFileSync(
        'npm',
        [
          'install',
          '--prefix',
          prefix,
          '--no-save',
          '--no-package-lock',
          '--no-audit',
          '--no-fund',
          '--ignore-scripts',
          '--loglevel=error',
          `${name}@${version}`,
        ],
        { stdio: 'inherit' },
      );
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) installRealServers();
