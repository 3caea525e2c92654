import type { ToolArgs, ToolDefinition } from './definition.js';
import { pendingHandler } from './pending.js';
import { array, boolean, integer, object, oneOf, string } from './schema.js';

const bucket = string({ minLength: 1 });
const days = integer(1, 36500);

function lifecycleEffects(args: ToolArgs): string | undefined {
  const rules = Array.isArray(args.rules) ? (args.rules as Array<Record<string, unknown>>) : [];
  if (rules.length === 0) return 'remove the bucket\'s lifecycle configuration';
  const expires = rules.some(
    (rule) => (rule.expiration !== undefined && rule.expiration !== null) || (rule.noncurrentVersionExpiration !== undefined && rule.noncurrentVersionExpiration !== null),
  );
  return expires ? 'schedule objects or old versions for automatic deletion' : undefined;
}

export const s3BucketTools: ToolDefinition[] = [
  {
    name: 's3_head_bucket',
    title: 'Head bucket',
    description: 'Check that a bucket exists and the key can access it.',
    input: { properties: { bucket }, required: ['bucket'] },
    backing: 'awsS3Sdk',
    capabilities: ['listBuckets'],
    effect: 'read',
    handler: pendingHandler('s3_head_bucket'),
  },
  {
    name: 's3_get_bucket_location',
    title: 'Get bucket location',
    description: 'Get the region of a bucket.',
    input: { properties: { bucket }, required: ['bucket'] },
    backing: 'awsS3Sdk',
    capabilities: ['listBuckets'],
    effect: 'read',
    handler: pendingHandler('s3_get_bucket_location'),
  },
  {
    name: 's3_put_bucket_lifecycle',
    title: 'Put bucket lifecycle',
    description: 'Replace a bucket\'s S3 lifecycle rules (expiration, noncurrent-version expiration, abort incomplete uploads; no transitions). rules: [] removes them.',
    input: {
      properties: {
        bucket,
        rules: array(
          object(
            {
              id: string({ minLength: 1, maxLength: 255 }),
              status: oneOf(['Enabled', 'Disabled']),
              filter: object({ prefix: string() }),
              expiration: object({ days, expiredObjectDeleteMarker: boolean() }),
              noncurrentVersionExpiration: object({ noncurrentDays: days }, ['noncurrentDays']),
              abortIncompleteMultipartUpload: object({ daysAfterInitiation: days }, ['daysAfterInitiation']),
            },
            ['id', 'status'],
          ),
          { maxItems: 100 },
        ),
      },
      required: ['bucket', 'rules'],
    },
    backing: 'awsS3Sdk',
    capabilities: ['writeBuckets'],
    effect: 'idempotent-write',
    gate: lifecycleEffects,
    handler: pendingHandler('s3_put_bucket_lifecycle'),
  },
];
