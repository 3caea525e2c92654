import type { BACKING_CATEGORIES, BackingCategory, ProfileName } from './constants.js';
import type { CacheHint, PrefixCounts } from './fixture.js';

/** Per-profile entry of the machine-readable contract. */
export interface ContractProfile {
  description: string;
  capabilities: string[] | null;
  counts: PrefixCounts;
  backingCounts: Record<BackingCategory, number>;
  names: string[];
  requiredFields: Record<string, string[]>;
  confirmTools: string[];
  hash: string;
  fixtures: { modern: string; legacy: string };
}

export interface PromptContractProfile {
  description: string;
  capabilities: string[] | null;
  counts: { total: number };
  names: string[];
  requiredTools: Record<string, string[]>;
  requiredCapabilities: Record<string, string[]>;
  hash: string;
  fixture: string;
}

/** A rename shipped without an alias: `from` is the former name, `to` the current one. */
export interface ToolRename {
  from: string;
  to: string;
}

/** The naming conventions a contract publishes; every naming rule reads them from the contract in use. */
export interface NamingPolicy {
  /** The prefix each backing category's tools take. */
  prefixes: Record<string, string>;
  /** The word after the prefix must be one of these. */
  verbs: string[];
  /** Names exempt from the verb rule. */
  grandfathered: string[];
  /** Names matching `when` must match `pattern` (both regular expressions). */
  presign: { when: string; pattern: string };
  /** Former names, never to return, and their successors. */
  renames: ToolRename[];
}

/** `docs/generated/tool-profile-contract.json`: the contract derived from the modern fixtures. */
export interface ContractArtifact {
  contractVersion: number;
  issue: number;
  mcpRevision: string;
  approvedCacheHint: CacheHint;
  sdk: Record<string, string>;
  backingCategories: typeof BACKING_CATEGORIES;
  toolBacking: Record<string, BackingCategory>;
  profiles: Record<ProfileName, ContractProfile>;
  /** Absent in contracts that predate it; the checker then applies its bundled contract's. */
  naming?: NamingPolicy;
  promptIssue?: number;
  promptProfiles?: Record<ProfileName, PromptContractProfile>;
}

export const CONTRACT_ARTIFACT_PATH = 'docs/generated/tool-profile-contract.json';
export const PROFILES_DOC_PATH = 'docs/generated/tool-profiles.md';
export const TOOL_FIXTURES_DIR = 'fixtures/tool-contract';
export const PROMPT_FIXTURES_DIR = 'fixtures/prompt-contract';

/** A profile as the checker reads it from a contract of any generation. */
export type LoadedContractProfile = Omit<ContractProfile, 'backingCounts'> & Partial<Pick<ContractProfile, 'backingCounts'>>;

/**
 * A contract artifact as the checker reads it, of any generation: the parts older contracts lack
 * (backing categories, the approved cache hint, the naming policy) are optional, and what needs
 * them is not judged (the run's evidence says so).
 */
export type LoadedContract = Omit<ContractArtifact, 'toolBacking' | 'approvedCacheHint' | 'backingCategories' | 'profiles'> &
  Partial<Pick<ContractArtifact, 'toolBacking' | 'approvedCacheHint' | 'backingCategories'>> & {
    profiles: Record<ProfileName, LoadedContractProfile>;
  };
