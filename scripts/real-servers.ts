/**
 * The published MCP servers `npm run test:real-servers` checks, installed from the npm registry
 * into a cache of their own, outside the project's dependencies: one npm prefix per package
 * version, so several versions of one package sit side by side. A version already installed is
 * left as it is. Run as a script, it installs what is missing.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../src/server/package-info.js';
import { holdsVersion, installInto, packageDirIn, type PinnedPackage } from './npm-prefix.js';

export type RealServerVersion = PinnedPackage;

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
export const installedPackageDir = (server: RealServerVersion): string => packageDirIn(prefixOf(server), server.package);

/** Install every pinned version not yet in the cache (no install scripts run: the servers need none to list their tools). */
export function installRealServers(log: (line: string) => void = console.log): void {
  for (const { package: name, versions } of realServerVersions()) {
    for (const version of versions) {
      const server = { package: name, version };
      if (!holdsVersion(prefixOf(server), server)) installInto(prefixOf(server), server, false, log);
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) installRealServers();
