import type { LoadedContract, NamingPolicy, ToolRename } from '../../contract/artifact.js';
import { ConformError } from '../errors.js';

/** The naming policy a run applies, and where it came from. */
export interface PolicyInUse {
  policy: NamingPolicy;
  /** `contract`: the contract in use publishes it; `fallback`: it does not, so the bundled contract's applies. */
  source: 'contract' | 'fallback';
  /** Former names that must not return, each with its successor. */
  removed: Map<string, string>;
  /** Names exempt from the verb rule. */
  grandfathered: Set<string>;
  /**
   * Fallback only: former names of the bundled policy that the contract in use still lists as
   * its own tools. A contract cannot retire a name it lists, so they count as grandfathered.
   */
  adopted: string[];
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    value !== null && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((item) => typeof item === 'string')
  );
}

/** Why a contract's `naming` block is unusable, or null when it is well-formed. */
export function namingPolicyProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'naming must be an object';
  const naming = value as Record<string, unknown>;
  if (!isStringRecord(naming.prefixes) || Object.keys(naming.prefixes).length === 0)
    return 'naming.prefixes must map backing categories to prefixes';
  if (!isStringArray(naming.verbs) || naming.verbs.length === 0) return 'naming.verbs must be a non-empty list of strings';
  if (!isStringArray(naming.grandfathered)) return 'naming.grandfathered must be a list of strings';
  if (!isStringRecord(naming.presign) || typeof naming.presign.when !== 'string' || typeof naming.presign.pattern !== 'string')
    return 'naming.presign needs when and pattern';
  for (const key of ['when', 'pattern'] as const) {
    try {
      new RegExp(naming.presign[key]!);
    } catch {
      return `naming.presign.${key} is not a valid regular expression`;
    }
  }
  const renames = naming.renames;
  if (
    !Array.isArray(renames) ||
    !renames.every((rename: unknown) => isStringRecord(rename) && typeof rename.from === 'string' && typeof rename.to === 'string')
  ) {
    return 'naming.renames must be a list of { from, to }';
  }
  return null;
}

/** Every tool name the contract lists in any profile. */
function listedNames(contract: LoadedContract): Set<string> {
  return new Set([
    ...Object.keys(contract.toolBacking ?? {}),
    ...Object.values(contract.profiles).flatMap((profile) => profile.names ?? []),
  ]);
}

/**
 * The policy of the contract in use; a contract without one gets the bundled contract's, minus
 * the former names it still lists (those it keeps as grandfathered).
 */
export function namingPolicyFor(contract: LoadedContract, bundled: LoadedContract): PolicyInUse {
  if (contract.naming) {
    const { naming } = contract;
    return {
      policy: naming,
      source: 'contract',
      removed: removedNames(naming.renames, new Set()),
      grandfathered: new Set(naming.grandfathered),
      adopted: [],
    };
  }
  if (!bundled.naming) throw new ConformError('config', 'the bundled contract carries no naming policy; reinstall the checker');
  const listed = listedNames(contract);
  const adopted = bundled.naming.renames
    .map((rename) => rename.from)
    .filter((name) => listed.has(name))
    .sort();
  return {
    policy: bundled.naming,
    source: 'fallback',
    removed: removedNames(bundled.naming.renames, listed),
    grandfathered: new Set([...bundled.naming.grandfathered, ...adopted]),
    adopted,
  };
}

function removedNames(renames: readonly ToolRename[], keep: ReadonlySet<string>): Map<string, string> {
  return new Map(renames.filter((rename) => !keep.has(rename.from)).map((rename) => [rename.from, rename.to]));
}
