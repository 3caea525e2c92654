import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERAS, type Era } from '../contract/constants.js';
import { ConformError } from './errors.js';
import type { WrittenFixture } from './snapshot.js';

/** Beside the fixtures of a snapshot that is its own baseline: which eras the server offered. */
export interface SnapshotManifest {
  pack: string;
  profile: string;
  eras: Era[];
  /** Eras the server refused when the snapshot was taken, with the reason. */
  notOffered: { era: Era; reason: string }[];
}

export const SNAPSHOT_MANIFEST = 'snapshot.json';

export function writeSnapshotManifest(dir: string, manifest: SnapshotManifest): WrittenFixture {
  const file = join(dir, SNAPSHOT_MANIFEST);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
  } catch (error) {
    throw new ConformError('usage', `cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return { file, items: 'eras', count: manifest.eras.length, hash: '' };
}

/** The manifest of a fixtures directory, or undefined when it has none (fixtures of a contract). */
export function readSnapshotManifest(dir: string): SnapshotManifest | undefined {
  const file = join(dir, SNAPSHOT_MANIFEST);
  if (!existsSync(file)) return undefined;
  let value: Partial<SnapshotManifest>;
  try {
    value = JSON.parse(readFileSync(file, 'utf8')) as Partial<SnapshotManifest>;
  } catch (error) {
    throw new ConformError('usage', `snapshot manifest is not valid JSON: ${file} (${(error as Error).message})`);
  }
  const eras = value?.eras;
  if (!Array.isArray(eras) || eras.length === 0 || !eras.every((era) => (ERAS as readonly unknown[]).includes(era))) {
    throw new ConformError('usage', `snapshot manifest ${file}: "eras" must list at least one of ${ERAS.join(', ')}`);
  }
  return value as SnapshotManifest;
}
