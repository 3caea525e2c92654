/**
 * MCP tool annotation hints: the value a client assumes when a hint is absent, and the change kind
 * of each move. A move to the value that lets a client relax (skip a confirmation, retry freely,
 * assume a closed world) is the one to review.
 */
export const HINTS = {
  readOnlyHint: { absent: false, toTrue: 'annotation-read-only-claimed', toFalse: 'annotation-read-only-withdrawn' },
  destructiveHint: { absent: true, toTrue: 'annotation-destructive-claimed', toFalse: 'annotation-non-destructive-claimed' },
  idempotentHint: { absent: false, toTrue: 'annotation-idempotent-claimed', toFalse: 'annotation-idempotent-withdrawn' },
  openWorldHint: { absent: true, toTrue: 'annotation-open-world-claimed', toFalse: 'annotation-closed-world-claimed' },
} as const;

const ANNOTATION_CHANGE_KINDS = Object.values(HINTS).flatMap((hint) => [hint.toTrue, hint.toFalse]);

/**
 * Every change the differ can name. Direction matters: for an input schema, anything that
 * rejects a call that used to be accepted is a tightening (breaking for clients), the reverse a
 * loosening. Each kind maps to exactly one rule in rules/diff.json (a test holds that).
 */
export const TOOL_CHANGE_KINDS = [
  'tool-removed',
  'tool-renamed',
  'tool-added',
  'required-added',
  'required-removed',
  'property-removed',
  'property-added',
  'type-narrowed',
  'type-widened',
  'enum-narrowed',
  'enum-widened',
  'bounds-tightened',
  'bounds-loosened',
  'additional-properties-closed',
  'additional-properties-opened',
  'description-changed',
  'default-changed',
  ...ANNOTATION_CHANGE_KINDS,
  'output-schema-added',
  'output-schema-removed',
  'output-field-removed',
  'output-field-added',
  'output-widened',
  'output-narrowed',
  'output-changed',
  'task-support-narrowed',
  'task-support-widened',
  'meta-changed',
  'schema-changed',
  'schema-dialect-changed',
  'modern-block-changed',
  'instructions-changed',
  'server-capability-added',
  'server-capability-removed',
  'server-capability-changed',
] as const;

/** A profile whose fixtures (or contract entry) only one side has. */
export const PROFILE_CHANGE_KINDS = ['profile-added', 'profile-removed'] as const;

/**
 * Changes of a prompt. What `prompts/list` shows (names, title, description, argument names,
 * descriptions and required flags) is compared live and offline; the argument constraints and
 * the required tools and capabilities live only in the fixtures, so only `diff` sees them.
 */
export const PROMPT_CHANGE_KINDS = [
  'prompt-removed',
  'prompt-added',
  'prompt-argument-removed',
  'prompt-argument-added',
  'prompt-argument-required',
  'prompt-argument-optional',
  'prompt-argument-narrowed',
  'prompt-argument-widened',
  'prompt-argument-meta-changed',
  'prompt-text-changed',
  'prompt-requirement-added',
  'prompt-requirement-removed',
] as const;

/**
 * Changes of the contract artifact itself, which no fixture holds: what each profile is for, the
 * key capabilities it is derived from, the tools it gates, the backing of each tool, the published
 * counts, the naming policy, the approved cache hint and the SDKs it was generated with. Each maps
 * to one `contract/<kind without its prefix>` rule.
 */
export const CONTRACT_CHANGE_KINDS = [
  'contract-description-changed',
  'contract-key-capabilities-changed',
  'contract-confirm-tool-added',
  'contract-confirm-tool-removed',
  'contract-backing-changed',
  'contract-counts-changed',
  'contract-naming-changed',
  'contract-cache-hint-changed',
  'contract-sdk-changed',
] as const;
export type ContractChangeKind = (typeof CONTRACT_CHANGE_KINDS)[number];

export const CHANGE_KINDS = [...TOOL_CHANGE_KINDS, ...PROMPT_CHANGE_KINDS, ...PROFILE_CHANGE_KINDS] as const;
export type ToolChangeKind = (typeof TOOL_CHANGE_KINDS)[number];
export type PromptChangeKind = (typeof PROMPT_CHANGE_KINDS)[number];
export type ChangeKind = ToolChangeKind | PromptChangeKind | (typeof PROFILE_CHANGE_KINDS)[number] | ContractChangeKind;

/** The kinds the direction-aware schema comparison (`diffSchema`) names. */
export type SchemaChangeKind =
  | 'required-added'
  | 'required-removed'
  | 'property-removed'
  | 'property-added'
  | 'type-narrowed'
  | 'type-widened'
  | 'enum-narrowed'
  | 'enum-widened'
  | 'bounds-tightened'
  | 'bounds-loosened'
  | 'additional-properties-closed'
  | 'additional-properties-opened'
  | 'description-changed'
  | 'default-changed'
  | 'meta-changed'
  | 'schema-changed'
  | 'schema-dialect-changed';

/** Prose a model reads, as far as each side is known: a side that is absent was not there (added or removed text) or was not recorded (only its hash). */
export interface ChangedText {
  before?: string | undefined;
  after?: string | undefined;
}

export interface Change {
  kind: ChangeKind;
  /** The tool the change belongs to; absent for prompt changes and fixture-level changes (the modern block). */
  tool?: string;
  /** The prompt the change belongs to (prompt changes only). */
  prompt?: string;
  /** The profile the change belongs to (profile and contract changes only). */
  profile?: string;
  /** Where inside the tool, prompt or fixture, e.g. `inputSchema.properties.bucketId.type`; '' for the whole item. */
  path: string;
  before?: unknown;
  after?: unknown;
  /** `tool-renamed` only: how the rename was recognised. */
  rename?: RenameBasis;
  /** The model-visible text of a change of prose, or of an added or removed tool, when known. */
  text?: ChangedText;
  /** The tool's input schema on both sides; on the first change inside a tool's definition only, so reports hold each schema once. */
  schemas?: { before: unknown; after: unknown };
}

/** How a rename was recognised. */
export type RenameBasis =
  /** The contract records the pair; `reverted` when the after side uses the former name. */
  | { by: 'contract'; reverted: boolean }
  | { by: 'definition' }
  /** The same words in another naming style (`getTinyImage`, `get_tiny_image`, `get-tiny-image`). */
  | { by: 'spelling' }
  /** Same required inputs and most input names; `shared` of `total` input names in common. */
  | { by: 'similarity'; confidence: number; shared: number; total: number };
