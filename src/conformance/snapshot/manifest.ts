import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERAS, type Era } from '../../contract/constants.js';
import { stable, type ListedTool, type NormalizedTool, type ToolSnapshot } from '../../contract/normalize.js';
import type { Refusal } from '../connect/connect.js';
import { isJudged, type ConnectionId } from '../connect/connections.js';
import { ConformError } from '../errors.js';
import type { LiveSurface, WrittenFixture } from './snapshot.js';

/**
 * What one compared-only look was shown, as it differed from what the reference look (the judged
 * 2025-era one, else the modern one, whose fixture holds its tools) was shown: the tools shown to
 * it alone or shown differently, normalized as in a fixture, and the reference's tools it was not
 * shown. From the two, `check` rebuilds the whole surface this client was shown, and diffs it.
 */
export interface RecordedLook {
  /** The client capabilities the look declared (their names). */
  capabilities: string[];
  /** The protocol version the server answered with. */
  protocolVersion: string | null;
  reference: ConnectionId;
  ownTools: NormalizedTool[];
  notShown: string[];
}

/**
 * Beside the fixtures of a snapshot that is its own baseline: which eras and protocol versions
 * the server offered, and what the compared-only looks (other versions, other capability sets)
 * were shown. The last two are absent in manifests written before they were recorded.
 */
export interface SnapshotManifest {
  pack: string;
  profile: string;
  eras: Era[];
  /** Eras the server refused when the snapshot was taken, with the reason. */
  notOffered: { era: Era; reason: string }[];
  /** Protocol versions the server accepted as asked, and those it did not (with why, or the version it answered with). */
  protocolVersions?: { accepted: string[]; notAccepted: { version: string; reason: string }[] };
  looks?: Partial<Record<ConnectionId, RecordedLook>>;
}

/** A tool as a model sees it (every key, stable order), by name: what looks are compared on. */
export function visibleTools(listed: readonly ListedTool[], omit: ReadonlySet<string> = new Set()): Map<string, Record<string, unknown>> {
  return new Map(
    listed.map((tool) => [
      tool.name,
      stable(Object.fromEntries(Object.entries(tool).filter(([key]) => !omit.has(key)))) as Record<string, unknown>,
    ]),
  );
}

export function capabilityNames(look: LiveSurface): string[] {
  return Object.keys(look.observation.identity.capabilities).sort();
}

/** The versions every look accepted as offered, and the others with the reason (a version some look got is accepted). */
export function protocolVersionsOf(
  looks: readonly LiveSurface[],
  refused: readonly Refusal[],
): NonNullable<SnapshotManifest['protocolVersions']> {
  const accepted = [
    ...new Set(
      looks
        .filter(({ observation }) => observation.protocolVersion === observation.offeredVersion)
        .map(({ observation }) => observation.offeredVersion),
    ),
  ]
    .sort()
    .reverse();
  const notAccepted = new Map<string, string>();
  for (const refusal of refused)
    if (!accepted.includes(refusal.offeredVersion) && !notAccepted.has(refusal.offeredVersion))
      notAccepted.set(refusal.offeredVersion, refusal.reason);
  return { accepted, notAccepted: [...notAccepted].map(([version, reason]) => ({ version, reason })) };
}

/** The look compared-only looks are recorded against: the judged 2025-era one, else the modern one. */
function referenceLook(looks: readonly LiveSurface[]): LiveSurface | undefined {
  return looks.find((look) => look.connection === 'legacy') ?? looks.find((look) => look.connection === 'modern');
}

/** How a look differs from the reference look (see RecordedLook). */
function relationTo(look: ToolSnapshot, reference: ToolSnapshot): Pick<RecordedLook, 'ownTools' | 'notShown'> {
  const theirs = new Map(reference.tools.map((tool) => [tool.name, JSON.stringify(tool)]));
  const mine = new Set(look.names);
  return {
    ownTools: look.tools.filter((tool) => theirs.get(tool.name) !== JSON.stringify(tool)),
    notShown: reference.names.filter((name) => !mine.has(name)),
  };
}

/** The whole surface a recorded look was shown: the reference's tools it was shown, and its own. */
export function recordedSurface(record: RecordedLook, referenceTools: readonly NormalizedTool[]): NormalizedTool[] {
  const own = new Map(record.ownTools.map((tool) => [tool.name, tool]));
  const shared = referenceTools.filter((tool) => !record.notShown.includes(tool.name) && !own.has(tool.name));
  return [...shared, ...own.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** What each compared-only look was shown, relative to the reference (the judged looks are in the fixtures). */
export function recordLooks(looks: readonly LiveSurface[]): Partial<Record<ConnectionId, RecordedLook>> {
  const reference = referenceLook(looks);
  if (!reference) return {};
  return Object.fromEntries(
    looks
      .filter((look) => !isJudged(look.connection))
      .map((look) => [
        look.connection,
        {
          capabilities: capabilityNames(look),
          protocolVersion: look.observation.protocolVersion,
          reference: reference.connection,
          ...relationTo(look, reference),
        },
      ]),
  );
}

const SNAPSHOT_MANIFEST = 'snapshot.json';

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
  const problem = recordsProblem(value);
  if (problem) throw new ConformError('usage', `snapshot manifest ${file}: ${problem}; take the snapshot again`);
  return value as SnapshotManifest;
}

const isStrings = (value: unknown): boolean => Array.isArray(value) && value.every((item) => typeof item === 'string');

/** What is wrong with the optional records of a manifest (versions and looks), if anything. */
function recordsProblem(value: Partial<SnapshotManifest>): string | undefined {
  const versions = value.protocolVersions;
  if (
    versions !== undefined &&
    (typeof versions !== 'object' || versions === null || !isStrings(versions.accepted) || !Array.isArray(versions.notAccepted))
  ) {
    return '"protocolVersions" must have an "accepted" list of versions and a "notAccepted" list';
  }
  const looks = value.looks;
  if (looks === undefined) return undefined;
  if (typeof looks !== 'object' || looks === null || Array.isArray(looks)) return '"looks" must be an object';
  for (const [connection, look] of Object.entries(looks)) {
    const valid =
      typeof look === 'object' &&
      look !== null &&
      typeof look.reference === 'string' &&
      isStrings(look.notShown) &&
      Array.isArray(look.ownTools) &&
      look.ownTools.every((tool) => typeof tool?.name === 'string');
    if (!valid) return `"looks.${connection}" is not a look this checker records (reference, ownTools, notShown)`;
  }
  return undefined;
}
