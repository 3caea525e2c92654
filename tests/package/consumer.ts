/**
 * A fresh project outside the repository that installs the package the way a user does (packed
 * tarball, or git URL), from the npm cache alone when it can. npm resolves version ranges from
 * registry metadata that `npm ci` never caches, so the project gets a lockfile first: the package
 * itself, and its runtime dependencies exactly as this repository's lockfile pins them (whose
 * tarballs `npm ci` did cache). With a cold cache it falls back to --prefer-offline.
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

export const REPO_ROOT = join(import.meta.dirname, '..', '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dev?: boolean;
  [field: string]: unknown;
}

export function freshDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** `npm pack` of the working tree into `dir` (scripts skipped: the suite built dist/ already). */
export function packTarball(dir: string, options: { runScripts?: boolean } = {}): string {
  const args = ['pack', '--json', '--pack-destination', dir, ...(options.runScripts ? [] : ['--ignore-scripts'])];
  const [result] = JSON.parse(execFileSync(NPM, args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  return join(dir, basename(result!.filename));
}

export function tarballFiles(tarball: string): string[] {
  return execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((path) => path.replace(/^package\//, ''));
}

/** Where the package comes from: `spec` goes into package.json, `resolved` into the lockfile. */
export interface Source {
  spec: string;
  resolved: string;
  integrity?: string;
}

export function tarballSource(tarball: string): Source {
  return {
    spec: `file:${tarball}`,
    resolved: `file:${tarball}`,
    integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
  };
}

/** The repository's committed HEAD as a git dependency (npm clones it and runs `prepare`). */
export function gitSource(): Source {
  const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  const url = `git+file://${REPO_ROOT}`;
  return { spec: `${url}#${commit}`, resolved: `${url}#${commit}` };
}

/** The lockfile a project depending on only this package would have, pinned like ours. */
function consumerLock(source: Source): Record<string, unknown> {
  const ours = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  const runtime = Object.fromEntries(
    Object.entries(ours.packages).filter(([path, entry]) => path.startsWith('node_modules/') && !entry.dev),
  );
  return {
    name: 'consumer',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'consumer', version: '1.0.0', dependencies: { [String(manifest.name)]: source.spec } },
      [`node_modules/${String(manifest.name)}`]: {
        version: manifest.version,
        resolved: source.resolved,
        ...(source.integrity && { integrity: source.integrity }),
        license: manifest.license,
        dependencies: manifest.dependencies,
        bin: manifest.bin,
        engines: manifest.engines,
      },
      ...runtime,
    },
  };
}

export interface InstallOutcome {
  dir: string;
  /** Whether the npm cache alone was enough. */
  offline: boolean;
}

/**
 * A new project in `dir` with the package installed. Dependencies' install scripts are skipped
 * (none is needed); a git source's `prepare` still runs, as npm builds it before packing.
 */
export function installInto(dir: string, source: Source): InstallOutcome {
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module', dependencies: { 'b2-mcp-conform': source.spec } }, null, 2)}\n`,
  );
  writeFileSync(join(dir, 'package-lock.json'), `${JSON.stringify(consumerLock(source), null, 2)}\n`);
  const install = (mode: string) => spawnSync(NPM, ['install', mode, '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8' });
  const offline = install('--offline');
  if (offline.status === 0) return { dir, offline: true };
  const fallback = install('--prefer-offline');
  if (fallback.status !== 0) throw new Error(`npm install failed:\n${offline.stderr}\n${fallback.stderr}`);
  return { dir, offline: false };
}

/** A bin of the installed package, run from the project with only PATH and HOME. */
export function runBin(dir: string, bin: string, args: string[], env: Record<string, string> = {}): SpawnSyncReturns<string> {
  return spawnSync(join(dir, 'node_modules', '.bin', bin), args, {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: dir, ...env },
    input: '',
    timeout: 120_000,
  });
}
