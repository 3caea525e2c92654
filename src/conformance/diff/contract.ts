import type { ProfileName } from '../../contract/constants.js';
import type { LoadedContract, LoadedContractProfile } from '../../contract/artifact.js';
import { compareCodeUnits } from '../../contract/normalize.js';
import { deepEqual, joinPath } from './schema.js';
import type { Change } from './changes.js';
import { profileSpellings } from '../connect/target.js';
import { contractBeside, loadContract } from './fixtures.js';

/** The name a profile has in another contract, under any spelling of it (`phase1-default` is `default`). */
function counterpartOf(name: string, other: LoadedContract): string | undefined {
  return profileSpellings(name).find((spelling) => Object.hasOwn(other.profiles, spelling));
}

/** The parts of a contract compared when both sides have them, as the evidence names them. */
const PARTS = { toolBacking: 'toolBacking', naming: 'naming policy', approvedCacheHint: 'approvedCacheHint' } as const;

/**
 * The SDK versions a contract or a fixture was generated with, for each package both sides record.
 * A package on one side only says who wrote the file (a snapshot records the checker's client, a
 * generated fixture the server's SDKs), not a change of the server.
 */
export function sdkChanges(before: Record<string, string> | undefined, after: Record<string, string> | undefined): Change[] {
  const a = before ?? {};
  const b = after ?? {};
  const shared = Object.keys(a)
    .filter((name) => Object.hasOwn(b, name))
    .sort(compareCodeUnits);
  return shared
    .filter((name) => a[name] !== b[name])
    .map((name) => ({ kind: 'contract-sdk-changed', path: joinPath('sdk', name), before: a[name], after: b[name] }));
}

/** A changed list, element by element: what is new and what is gone. */
function listDelta(before: readonly string[], after: readonly string[]): { added: string[]; removed: string[] } {
  return { added: after.filter((item) => !before.includes(item)), removed: before.filter((item) => !after.includes(item)) };
}

/**
 * The key capabilities a profile is derived from, as the fixtures or the contract record them
 * (null: the full surface, no key read). Compared where both sides record the profile.
 */
export function keyCapabilitiesChange(
  profile: string,
  before: readonly string[] | null,
  after: readonly string[] | null,
): Change | undefined {
  if (deepEqual(before, after)) return undefined;
  return { kind: 'contract-key-capabilities-changed', profile, path: 'capabilities', before, after };
}

/** What a list gained and lost, for a message: `writeKeys, deleteBuckets` or `none`. */
export function listDeltaText(before: unknown, after: unknown): { gained: string; lost: string } | undefined {
  const list = (value: unknown) => (Array.isArray(value) ? value.map(String) : null);
  const was = list(before);
  const now = list(after);
  if (!was && !now) return undefined;
  const { added, removed } = listDelta(was ?? [], now ?? []);
  const show = (items: string[], whole: string[] | null) => (whole === null ? 'no list (the full surface)' : items.join(', ') || 'none');
  return { gained: show(added, now), lost: show(removed, was) };
}

/** A tool's name on the after side: renamed tools are compared under their new name, as the tool diff reports them. */
type Renamed = (name: string) => string;

function profileChanges(name: string, a: LoadedContractProfile, b: LoadedContractProfile, renamed: Renamed): Change[] {
  const changes: Change[] = [];
  const at = (key: string) => joinPath(joinPath('profiles', name), key);
  if (a.description !== b.description)
    changes.push({
      kind: 'contract-description-changed',
      profile: name,
      path: at('description'),
      before: a.description,
      after: b.description,
    });
  const capabilities = keyCapabilitiesChange(name, a.capabilities ?? null, b.capabilities ?? null);
  if (capabilities) changes.push(capabilities);
  const gated = listDelta((a.confirmTools ?? []).map(renamed), b.confirmTools ?? []);
  for (const tool of gated.added)
    changes.push({ kind: 'contract-confirm-tool-added', profile: name, tool, path: at('confirmTools'), before: undefined, after: tool });
  for (const tool of gated.removed)
    changes.push({ kind: 'contract-confirm-tool-removed', profile: name, tool, path: at('confirmTools'), before: tool, after: undefined });
  for (const key of ['counts', 'backingCounts'] as const) {
    if (a[key] === undefined || b[key] === undefined || deepEqual(a[key], b[key])) continue;
    changes.push({ kind: 'contract-counts-changed', profile: name, path: at(key), before: a[key], after: b[key] });
  }
  return changes;
}

/**
 * Every difference between two contract artifacts, for the profiles both list under any spelling
 * (reported under the newer name; a profile on one side only is a profile change of its own), and
 * the parts one side lacks (not compared).
 */
function diffContracts(
  a: LoadedContract,
  b: LoadedContract,
  renames: ReadonlyMap<string, string> = new Map(),
): { changes: Change[]; unrecorded: { part: string; missingIn: 'before' | 'after' }[] } {
  const renamed: Renamed = (name) => renames.get(name) ?? name;
  const changes: Change[] = [];
  for (const name of Object.keys(a.profiles).sort(compareCodeUnits)) {
    const counterpart = counterpartOf(name, b);
    if (counterpart !== undefined)
      changes.push(
        ...profileChanges(
          counterpart,
          a.profiles[name as keyof typeof a.profiles],
          b.profiles[counterpart as keyof typeof b.profiles],
          renamed,
        ),
      );
  }
  const unrecorded: { part: string; missingIn: 'before' | 'after' }[] = [];
  for (const [key, part] of Object.entries(PARTS) as [keyof typeof PARTS, string][]) {
    if ((a[key] === undefined) !== (b[key] === undefined)) unrecorded.push({ part, missingIn: a[key] === undefined ? 'before' : 'after' });
  }
  if (a.toolBacking && b.toolBacking) {
    const backingA: Record<string, string> = Object.fromEntries(
      Object.entries(a.toolBacking).map(([tool, category]) => [renamed(tool), category]),
    );
    const backingB: Record<string, string> = b.toolBacking;
    for (const tool of [...new Set([...Object.keys(backingA), ...Object.keys(backingB)])].sort(compareCodeUnits)) {
      const was = Object.hasOwn(backingA, tool) ? backingA[tool] : undefined;
      const now = Object.hasOwn(backingB, tool) ? backingB[tool] : undefined;
      if (was !== now)
        changes.push({ kind: 'contract-backing-changed', tool, path: joinPath('toolBacking', tool), before: was, after: now });
    }
  }
  if (a.naming && b.naming) {
    for (const key of Object.keys({ ...a.naming, ...b.naming }).sort(compareCodeUnits) as (keyof typeof a.naming)[]) {
      if (!deepEqual(a.naming[key], b.naming[key]))
        changes.push({ kind: 'contract-naming-changed', path: joinPath('naming', key), before: a.naming[key], after: b.naming[key] });
    }
  }
  if (a.approvedCacheHint && b.approvedCacheHint && !deepEqual(a.approvedCacheHint, b.approvedCacheHint)) {
    changes.push({
      kind: 'contract-cache-hint-changed',
      path: 'approvedCacheHint',
      before: a.approvedCacheHint,
      after: b.approvedCacheHint,
    });
  }
  changes.push(...sdkChanges(a.sdk, b.sdk));
  return { changes, unrecorded };
}

/**
 * The contract artifacts of the repositories the two directories belong to, compared: each profile
 * one lists and the other does not, then what both list (see diffContracts), each renamed tool
 * under its new name. A side without a usable contract, or a part one contract lacks, is a note.
 */
export function contractComparison(
  beforeDir: string,
  afterDir: string,
  renames: ReadonlyMap<string, string>,
): { changes: Change[]; notes: string[] } {
  const read = (dir: string): { file?: string; contract?: LoadedContract; problem: string } => {
    const file = contractBeside(dir);
    if (file === undefined) return { problem: `no contract artifact beside ${dir}` };
    try {
      return { file, contract: loadContract(file), problem: '' };
    } catch (error) {
      return { file, problem: (error as Error).message };
    }
  };
  const a = read(beforeDir);
  const b = read(afterDir);
  if (!a.contract || !b.contract) {
    // Neither side has a contract at all: a plain fixtures diff, nothing to say.
    const problems = [a, b].filter((side) => !side.contract).map((side) => side.problem);
    return { changes: [], notes: a.file || b.file ? [`the contract artifacts were not compared: ${problems.join('; ')}`] : [] };
  }
  if (a.file === b.file) return { changes: [], notes: [] };
  const { changes, unrecorded } = diffContracts(a.contract, b.contract, renames);
  const tools = (contract: LoadedContract, name: string) => `${contract.profiles[name as ProfileName].names.length} tools`;
  for (const name of Object.keys(a.contract.profiles).filter((name) => counterpartOf(name, b.contract!) === undefined))
    changes.push({ kind: 'profile-removed', profile: name, path: '', before: tools(a.contract, name), after: undefined });
  for (const name of Object.keys(b.contract.profiles).filter((name) => counterpartOf(name, a.contract!) === undefined))
    changes.push({ kind: 'profile-added', profile: name, path: '', before: undefined, after: tools(b.contract, name) });
  const notes = unrecorded.map(
    ({ part, missingIn }) =>
      `${part}: not recorded in the ${missingIn === 'before' ? 'older' : 'newer'} contract (${missingIn === 'before' ? a.file : b.file}), not compared`,
  );
  return { changes, notes };
}
