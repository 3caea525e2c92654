import { badArguments } from '../s3/rules.js';
import { defineTool, type GateTrigger, type ToolDefinition, type ToolHandler } from './definition.js';
import { array, boolean, integer, object, oneOf, string, toolInput } from './schema.js';

const bucket = string({ minLength: 1 });
const days = integer(1, 36500);

const isSet = (value: unknown): boolean => value !== undefined && value !== null;

/**
 * Every S3 lifecycle rule needs an action, and each action deletes or discards something, so every
 * replacement asks; the effect names what the new rules would do.
 */
const lifecycleEffects: GateTrigger<typeof putBucketLifecycleInput> = (args) => {
  const rules = Array.isArray(args.rules) ? args.rules : [];
  if (rules.length === 0) return "remove the bucket's lifecycle configuration";
  const effects: string[] = [];
  if (rules.some((rule) => isSet(rule.expiration) || isSet(rule.noncurrentVersionExpiration))) {
    effects.push('schedule objects or old versions for automatic deletion');
  }
  if (rules.some((rule) => isSet(rule.abortIncompleteMultipartUpload))) {
    effects.push('schedule cancellation of unfinished multipart uploads, discarding their uploaded parts');
  }
  return effects.length > 0 ? effects.join(' and ') : "replace the bucket's lifecycle configuration";
};

const headBucketInput = toolInput({ bucket }, ['bucket']);

const headBucket: ToolHandler<typeof headBucketInput> = async (args, context) => {
  const { bucket } = args;
  const s3 = await context.s3();
  const result = await s3.headBucket(bucket, { signal: context.signal });
  return { text: `Bucket ${bucket} exists and this key can access it${result.region ? ` (region ${result.region})` : ''}.` };
};

const getBucketLocationInput = toolInput({ bucket }, ['bucket']);

const getBucketLocation: ToolHandler<typeof getBucketLocationInput> = async (args, context) => {
  const s3 = await context.s3();
  return { structured: await s3.getBucketLocation(args.bucket, { signal: context.signal }) };
};

const putBucketLifecycleInput = toolInput(
  {
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
  ['bucket', 'rules'],
);

const putBucketLifecycle: ToolHandler<typeof putBucketLifecycleInput> = async (args, context) => {
  const { bucket, rules } = args;
  const ids = new Set<string>();
  for (const rule of rules) {
    if (ids.has(rule.id)) throw badArguments(`Rule ids must be unique; "${rule.id}" appears more than once.`);
    ids.add(rule.id);
    if (rule.expiration && rule.expiration.days === undefined && rule.expiration.expiredObjectDeleteMarker === undefined) {
      throw badArguments(`Rule "${rule.id}": expiration needs days or expiredObjectDeleteMarker.`);
    }
  }
  const s3 = await context.s3();
  if (rules.length === 0) {
    await s3.deleteBucketLifecycle(bucket, { signal: context.signal });
    return { text: `Removed the lifecycle configuration of bucket ${bucket}.` };
  }
  await s3.putBucketLifecycle(bucket, rules, { signal: context.signal });
  return { text: `Replaced the lifecycle configuration of bucket ${bucket} with ${rules.length} rule(s).` };
};

export const s3BucketTools: ToolDefinition[] = [
  defineTool({
    name: 's3_head_bucket',
    title: 'Head bucket',
    description: 'Check that a bucket exists and the key can access it.',
    input: headBucketInput,
    backing: 'awsS3Sdk',
    capabilities: ['listBuckets'],
    effect: 'read',
    handler: headBucket,
  }),
  defineTool({
    name: 's3_get_bucket_location',
    title: 'Get bucket location',
    description: 'Get the region of a bucket.',
    input: getBucketLocationInput,
    backing: 'awsS3Sdk',
    capabilities: ['listBuckets'],
    effect: 'read',
    handler: getBucketLocation,
  }),
  defineTool({
    name: 's3_put_bucket_lifecycle',
    title: 'Put bucket lifecycle',
    description:
      "Replace a bucket's S3 lifecycle rules (expiration, noncurrent expiration, abort incomplete uploads; no transitions); [] removes them.",
    input: putBucketLifecycleInput,
    backing: 'awsS3Sdk',
    capabilities: ['writeBuckets'],
    effect: 'idempotent-write',
    gate: lifecycleEffects,
    handler: putBucketLifecycle,
  }),
];
