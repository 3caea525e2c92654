/**
 * Installing one pinned registry package into an npm prefix of its own, outside the project's
 * dependencies: what the real-server and registry-tool caches share.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PinnedPackage {
  package: string;
  version: string;
}

/** The package's own directory under a prefix. */
export const packageDirIn = (prefix: string, name: string): string => join(prefix, 'node_modules', ...name.split('/'));

/** Whether the prefix holds exactly that version of the package. */
export function holdsVersion(prefix: string, { package: name, version }: PinnedPackage): boolean {
  const manifest = join(packageDirIn(prefix, name), 'package.json');
  return existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version === version;
}

/** `npm install name@version` into the prefix, saving nothing in the project; install scripts run only when asked. */
export function installInto(
  prefix: string,
  { package: name, version }: PinnedPackage,
  runScripts: boolean,
  log: (line: string) => void,
): void {
  mkdirSync(prefix, { recursive: true });
  log(`installing ${name}@${version} into ${prefix}`);
  const flags = [
    '--no-save',
    '--no-package-lock',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
    ...(runScripts ? [] : ['--ignore-scripts']),
  ];
  execFileSync('npm', ['install', '--prefix', prefix, ...flags, `${name}@${version}`], { stdio: 'inherit' });
}
