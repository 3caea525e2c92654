import type { BackingCategory } from '../../src/contract/constants.js';

/** One tool of a test server's surface, exactly as `tools/list` will carry it. */
export interface SurfaceTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** One prompt of a test server: `argsSchema` is the JSON Schema of its string arguments. */
export interface SurfacePrompt {
  name: string;
  title?: string;
  description?: string;
  argsSchema?: { properties: Record<string, Record<string, unknown>>; required?: string[]; [keyword: string]: unknown };
}

/** What tests/support/servers/surface-server.mjs serves. */
export interface Surface {
  serverInfo?: { name: string; version: string };
  instructions?: string;
  cacheHints?: Record<'tools/list' | 'server/discover', { ttlMs: number; cacheScope: string }>;
  tools: SurfaceTool[];
  legacyTools?: SurfaceTool[];
  witnessTools?: SurfaceTool[];
  /** Served at protocol versions before 2025-11-25. */
  olderTools?: SurfaceTool[];
  olderPrompts?: SurfacePrompt[];
  /** Protocol versions whose `initialize` the server refuses. */
  refusedVersions?: string[];
  /** No prompts: the prompts capability is not advertised. */
  prompts?: SurfacePrompt[];
  legacyPrompts?: SurfacePrompt[];
  witnessPrompts?: SurfacePrompt[];
  rewrites?: unknown[];
}

const SCHEMA = 'https://json-schema.org/draft/2020-12/schema';
const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
const DESTRUCTIVE = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true };
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true };

function input(properties: Record<string, unknown>, required?: string[]): Record<string, unknown> {
  return { $schema: SCHEMA, type: 'object', properties, ...(required ? { required } : {}) };
}

/** A small surface that satisfies every rule: each broken variant is one mutation of it. */
export function baselineSurface(): Surface {
  return {
    serverInfo: { name: 'surface-test', version: '1.0.0' },
    cacheHints: { 'tools/list': { ttlMs: 30_000, cacheScope: 'private' }, 'server/discover': { ttlMs: 30_000, cacheScope: 'private' } },
    tools: [
      {
        name: 'b2_authorize_account',
        description: 'Authorize with Backblaze B2 and report the account, API URL and allowed capabilities.',
        inputSchema: input({}),
        annotations: { ...READ },
      },
      {
        name: 'b2_delete_bucket',
        description: 'Delete an empty B2 bucket permanently. Requires confirmation.',
        inputSchema: input(
          { bucketId: { type: 'string', minLength: 1 }, confirm: { type: 'boolean', description: 'Set true to confirm.' } },
          ['bucketId'],
        ),
        annotations: { ...DESTRUCTIVE },
      },
      {
        name: 'b2_list_buckets',
        description: 'List the B2 buckets of the account, optionally filtered by name or type.',
        inputSchema: input({
          bucketName: { type: 'string' },
          bucketTypes: { type: 'array', items: { type: 'string', enum: ['allPublic', 'allPrivate', 'snapshot'] }, maxItems: 3 },
        }),
        annotations: { ...READ },
      },
      {
        name: 'b2_rank_egress_leaders',
        description: 'Rank the files of a bucket that caused the most download egress in a period.',
        inputSchema: input({ bucket: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 100 } }, ['bucket']),
        annotations: { ...READ },
      },
      {
        name: 'b2_unfinished_uploads',
        description: 'List large-file uploads of a bucket that were started but never finished.',
        inputSchema: input({ bucket: { type: 'string' } }, ['bucket']),
        annotations: { ...READ },
      },
      {
        name: 'b2_update_bucket',
        description: 'Update the type, lifecycle rules or info of a B2 bucket. Some changes need confirmation.',
        inputSchema: input(
          {
            bucketId: { type: 'string' },
            bucketType: { type: 'string', enum: ['allPublic', 'allPrivate'] },
            lifecycleRules: {
              type: 'array',
              maxItems: 100,
              items: {
                type: 'object',
                properties: {
                  fileNamePrefix: { type: 'string', maxLength: 1024 },
                  daysFromHidingToDeleting: { type: 'integer', minimum: 1 },
                },
                required: ['fileNamePrefix'],
                additionalProperties: false,
              },
            },
            confirm: { type: 'boolean' },
          },
          ['bucketId'],
        ),
        annotations: { ...DESTRUCTIVE },
      },
      {
        name: 's3_get_presigned_url',
        description: 'Create a time-limited presigned URL to download or upload one object in a bucket.',
        inputSchema: input(
          {
            bucket: { type: 'string' },
            key: { type: 'string', minLength: 1 },
            operation: { type: 'string', enum: ['GetObject', 'PutObject'] },
            expiresIn: { type: 'integer', minimum: 1, maximum: 604800, default: 3600 },
            confirm: { type: 'boolean' },
          },
          ['bucket', 'key', 'operation'],
        ),
        annotations: { ...DESTRUCTIVE },
      },
      {
        name: 's3_list_objects_v2',
        description: 'List the objects of a bucket page by page through the S3-compatible API.',
        inputSchema: input(
          {
            bucket: { type: 'string' },
            prefix: { type: 'string' },
            continuationToken: { type: 'string' },
            maxKeys: { type: 'integer', minimum: 1, maximum: 1000 },
          },
          ['bucket'],
        ),
        annotations: { ...READ },
      },
      {
        name: 's3_put_object',
        description: 'Upload one object to a bucket from text content through the S3-compatible API.',
        inputSchema: input(
          {
            bucket: { type: 'string' },
            key: { type: 'string', minLength: 1 },
            body: { type: 'string' },
            metadata: { type: 'object', propertyNames: { type: 'string', maxLength: 64 }, additionalProperties: { type: 'string' } },
          },
          ['bucket', 'key'],
        ),
        annotations: { ...WRITE },
      },
    ],
  };
}

/** Backing category of every baseline tool (what the generator's backing map records). */
export const BASELINE_BACKING: Record<string, BackingCategory> = {
  b2_authorize_account: 'nativeB2Sdk',
  b2_delete_bucket: 'nativeB2Sdk',
  b2_list_buckets: 'nativeB2Sdk',
  b2_rank_egress_leaders: 'customMcp',
  b2_unfinished_uploads: 'customMcp',
  b2_update_bucket: 'nativeB2Sdk',
  s3_get_presigned_url: 'awsS3Sdk',
  s3_list_objects_v2: 'awsS3Sdk',
  s3_put_object: 'awsS3Sdk',
};

/** Two workflow prompts that satisfy every rule (the baseline surface serves none: prompts are opt-in). */
export function baselinePrompts(): SurfacePrompt[] {
  return [
    {
      name: 'b2_plan_bucket_cleanup',
      title: 'Plan a bucket cleanup',
      description: 'Plan which old versions and unfinished uploads of a bucket to remove, without removing anything.',
      argsSchema: {
        $schema: SCHEMA,
        type: 'object',
        additionalProperties: false,
        properties: {
          bucketName: { type: 'string', minLength: 1, description: 'Bucket to review.' },
          olderThanDays: { type: 'string', pattern: '^[1-9][0-9]{0,3}$', description: 'Only versions older than this many days.' },
          dryRun: { type: 'string', enum: ['true', 'false'], description: 'Only report. Default true.' },
        },
        required: ['bucketName'],
      },
    },
    {
      name: 'b2_review_public_buckets',
      title: 'Review public buckets',
      description: 'List the public buckets of the account and what each one exposes.',
      argsSchema: {
        $schema: SCHEMA,
        type: 'object',
        additionalProperties: false,
        properties: { limit: { type: 'string', pattern: '^[1-9][0-9]{0,2}$', description: 'Buckets to review.' } },
      },
    },
  ];
}
