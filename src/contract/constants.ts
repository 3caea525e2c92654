/** Facts of the frozen Phase 1 contract shared by the server's generator and the checker. */

export const CONTRACT_VERSION = 1;
/** Tracking issue of the tool contract; recorded in fixtures for provenance. */
export const CONTRACT_ISSUE = 49;
export const PROMPT_CONTRACT_ISSUE = 166;

export const MODERN_PROTOCOL_VERSION = '2026-07-28';
export const LEGACY_PROTOCOL_VERSION = '2025-11-25';

export const SERVER_NAME = 'backblaze-b2';

/** The only cache hint the contract approves for modern `tools/list` and `server/discover`. */
export const APPROVED_CACHE_HINT = { ttlMs: 30_000, cacheScope: 'private' } as const;

export const PROFILE_NAMES = ['full', 'default', 'read-only'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

/** Older spellings a user may still type; resolved before anything else looks at a profile. */
export const PROFILE_ALIASES: Readonly<Record<string, ProfileName>> = { 'phase1-default': 'default' };

export const ERAS = ['modern', 'legacy'] as const;
export type Era = (typeof ERAS)[number];

export const BACKING_CATEGORIES = {
  nativeB2Sdk: {
    label: 'Native B2 API client',
    sdkPackage: null,
    description: 'B2 Native API operations that have no S3-compatible equivalent.',
  },
  awsS3Sdk: {
    label: 'AWS S3 SDK',
    sdkPackage: '@aws-sdk/client-s3',
    description: 'The S3-compatible data plane.',
  },
  customMcp: {
    label: 'Neither SDK',
    sdkPackage: null,
    description: 'Repository-owned analytics composed from listings and usage reports; no SDK exposes them as a primitive.',
  },
} as const;
export type BackingCategory = keyof typeof BACKING_CATEGORIES;
export const BACKING_CATEGORY_NAMES = Object.keys(BACKING_CATEGORIES) as BackingCategory[];

/**
 * The naming policy the contract publishes (the contract's tool naming conventions): the prefix
 * each backing category takes, the names exempt from verb-first, the presign name form, and the
 * renames shipped without aliases (their former names must not return). The allowed verbs are
 * the ones the registered names use; the generator derives them.
 */
export const NAMING_POLICY = {
  prefixes: { nativeB2Sdk: 'b2_', awsS3Sdk: 's3_', customMcp: 'b2_' } satisfies Record<BackingCategory, string>,
  grandfathered: ['b2_unfinished_uploads'],
  presign: { when: 'presign', pattern: '^s3_get_presigned(_[a-z0-9]+)*_url$' },
  renames: [
    { from: 'b2_egress_leaders', to: 'b2_rank_egress_leaders' },
    { from: 'b2_largest_files', to: 'b2_list_largest_files' },
    { from: 'b2_usage_growth', to: 'b2_report_usage_growth' },
    { from: 's3_presign_upload_part', to: 's3_get_presigned_upload_part_url' },
  ],
} as const;

/** Resolve a user-typed profile name (aliases included); undefined when unknown. */
export function resolveProfileName(input: string): ProfileName | undefined {
  const name = PROFILE_ALIASES[input] ?? input;
  return (PROFILE_NAMES as readonly string[]).includes(name) ? (name as ProfileName) : undefined;
}
