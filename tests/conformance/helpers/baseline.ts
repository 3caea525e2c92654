import type { BackingCategory } from '../../../src/contract/constants.js';

/** One tool of a test server's surface, exactly as `tools/list` will carry it. */
export interface SurfaceTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** What tests/conformance/servers/surface-server.mjs serves. */
export interface Surface {
  serverInfo?: { name: string; version: string };
  cacheHints?: Record<'tools/list' | 'server/discover', { ttlMs: number; cacheScope: string }>;
  tools: SurfaceTool[];
  legacyTools?: SurfaceTool[];
  witnessTools?: SurfaceTool[];
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
        inputSchema: input({ bucketId: { type: 'string', minLength: 1 }, confirm: { type: 'boolean', description: 'Set true to confirm.' } }, ['bucketId']),
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
