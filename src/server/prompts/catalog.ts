import { string, type JsonSchema } from '../tools/schema.js';
import { APPROVAL_NOTE, type PromptDefinition } from './definition.js';

const positiveInteger = (description: string, defaultValue?: string): JsonSchema =>
  string({ pattern: '^[1-9][0-9]{0,8}$', description: defaultValue ? `${description} Default ${defaultValue}.` : description });
const flag = (description: string): JsonSchema => ({ type: 'string', enum: ['true', 'false'], description });

const lines = (...parts: Array<string | false | undefined>): string => [...parts.filter(Boolean), '', APPROVAL_NOTE].join('\n');

export const PROMPT_CATALOG: readonly PromptDefinition[] = [
  {
    name: 'b2_audit_public_exposure',
    title: 'Audit public B2 exposure',
    description: 'Review which buckets are public and what that exposes, with an optional remediation plan.',
    args: {
      limit: string({ pattern: '^(?:[1-9][0-9]{0,2}|1000)$', description: 'Buckets to review (1-1000). Default 100.' }),
      includeRemediationPlan: flag('Propose fixes. Default true.'),
    },
    requiredArgs: [],
    requiredTools: ['b2_list_buckets'],
    requiredCapabilities: [],
    render: (a) =>
      lines(
        `List up to ${a.limit ?? '100'} buckets with b2_list_buckets and report every allPublic bucket, its CORS rules and what kind of data it appears to hold.`,
        a.includeRemediationPlan !== 'false' &&
          'Then propose a remediation plan (for example making a bucket allPrivate and sharing with presigned URLs instead), without executing it.',
      ),
  },
  {
    name: 'b2_configure_lifecycle_cost_rules',
    title: 'Configure lifecycle cost rules',
    description: 'Plan lifecycle rules that cut storage cost: hide old versions, delete hidden ones, cancel stale large uploads.',
    args: {
      bucketName: string({ minLength: 1, description: 'Bucket to configure.' }),
      objectNamePrefix: string({ description: 'Limit the rules to this prefix.' }),
      currentVersionsToHideAfterDays: positiveInteger('Hide current versions after this many days.'),
      hiddenVersionsToDeleteAfterDays: positiveInteger('Delete hidden versions after this many days.'),
      unfinishedLargeFileCancelDays: positiveInteger('Cancel unfinished large uploads after this many days.', '7'),
    },
    requiredArgs: ['bucketName'],
    requiredTools: ['b2_list_buckets', 's3_put_bucket_lifecycle'],
    requiredCapabilities: [],
    render: (a) =>
      lines(
        `Inspect bucket "${a.bucketName}" with b2_list_buckets and its current lifecycle rules.`,
        `Draft S3 lifecycle rules${a.objectNamePrefix ? ` for prefix "${a.objectNamePrefix}"` : ''}:`,
        a.currentVersionsToHideAfterDays && `- expire current versions after ${a.currentVersionsToHideAfterDays} days;`,
        a.hiddenVersionsToDeleteAfterDays && `- delete noncurrent versions after ${a.hiddenVersionsToDeleteAfterDays} days;`,
        `- abort incomplete multipart uploads after ${a.unfinishedLargeFileCancelDays ?? '7'} days.`,
        'Show the rules and the data they would delete before calling s3_put_bucket_lifecycle.',
      ),
  },
  {
    name: 'b2_provision_locked_bucket',
    title: 'Provision Object Lock bucket',
    description: 'Create a private bucket with Object Lock and a default retention.',
    args: {
      bucketName: string({ minLength: 6, maxLength: 63, description: 'New bucket name.' }),
      retentionMode: { type: 'string', enum: ['governance', 'compliance'], description: 'Default retention mode.' },
      retentionDuration: positiveInteger('Default retention length.'),
      retentionUnit: { type: 'string', enum: ['days', 'years'], description: 'Unit of the retention length.' },
    },
    requiredArgs: ['bucketName', 'retentionMode', 'retentionDuration', 'retentionUnit'],
    requiredTools: ['b2_create_bucket', 'b2_list_buckets', 'b2_update_bucket'],
    requiredCapabilities: ['writeBucketRetentions'],
    render: (a) =>
      lines(
        `Check with b2_list_buckets that "${a.bucketName}" does not exist, then create it allPrivate with fileLockEnabled: true (b2_create_bucket).`,
        `Set its default retention to ${a.retentionMode} for ${a.retentionDuration} ${a.retentionUnit} with b2_update_bucket.`,
        a.retentionMode === 'compliance' &&
          'Warn the user that compliance retention cannot be shortened or removed by anyone until it expires.',
      ),
  },
  {
    name: 'b2_review_bucket_notifications',
    title: 'Review B2 notifications',
    description: "Review a bucket's event notification rules against what is expected.",
    args: {
      bucketId: string({ minLength: 1, description: 'Bucket to review.' }),
      expectedEventTypes: string({ description: 'Comma-separated event types that should be covered.' }),
      objectNamePrefix: string({ description: 'Prefix the rules should cover.' }),
    },
    requiredArgs: ['bucketId'],
    requiredTools: ['b2_get_bucket_notification_rules'],
    requiredCapabilities: [],
    render: (a) =>
      lines(
        `Fetch the notification rules of bucket ${a.bucketId} with b2_get_bucket_notification_rules.`,
        a.expectedEventTypes && `Check that these event types are covered: ${a.expectedEventTypes}.`,
        a.objectNamePrefix && `Check that the rules cover prefix "${a.objectNamePrefix}".`,
        'Report disabled rules, non-https or unexpected webhook hosts, and overlapping rules. Propose changes; do not apply them.',
      ),
  },
  {
    name: 'b2_rotate_application_key',
    title: 'Rotate application key',
    description: 'Replace an application key with a new one of equal or narrower scope, then retire the old one.',
    args: {
      oldApplicationKeyId: string({ minLength: 1, description: 'Key to retire.' }),
      replacementKeyName: string({ minLength: 1, description: 'Name of the new key.' }),
      capabilities: string({ description: "Comma-separated capabilities; default: the old key's." }),
      bucketIds: string({ description: "Comma-separated bucket ids; default: the old key's." }),
      namePrefix: string({ description: 'File name prefix restriction.' }),
      validDurationInSeconds: positiveInteger('Lifetime of the new key.'),
    },
    requiredArgs: ['oldApplicationKeyId', 'replacementKeyName'],
    requiredTools: ['b2_create_key', 'b2_delete_key', 'b2_list_keys'],
    requiredCapabilities: [],
    render: (a) =>
      lines(
        `Look up key ${a.oldApplicationKeyId} with b2_list_keys and note its capabilities and restrictions.`,
        `Create "${a.replacementKeyName}" with b2_create_key${a.capabilities ? ` (capabilities: ${a.capabilities})` : ' with the same or fewer capabilities'}${a.bucketIds ? `, buckets ${a.bucketIds}` : ''}${a.namePrefix ? `, prefix "${a.namePrefix}"` : ''}${a.validDurationInSeconds ? `, valid for ${a.validDurationInSeconds} s` : ''}; its secret goes to the secret sink.`,
        'Ask the user to switch every consumer to the new key, and only after they confirm that, delete the old key with b2_delete_key.',
      ),
  },
];
