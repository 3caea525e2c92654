import type { B2Bucket, B2CreateBucketRequest, B2ListBucketsRequest, B2UpdateBucketRequest } from '../b2/types.js';
import { checkBucketInfo, checkCorsRules } from './bucket-settings.js';
import { ToolError } from '../errors.js';
import { defineTool, type GateTrigger, type ToolDefinition, type ToolHandler } from './definition.js';
import { redactNotificationRules } from './notification-redaction.js';
import { checkWebhookUrl } from './webhook-guard.js';
import {
  array,
  boolean,
  constant,
  givenArgs,
  integer,
  nullable,
  object,
  oneOf,
  string,
  stringMap,
  toolInput,
  type ArgsOf,
  type Schema,
} from './schema.js';

const BUCKET_TYPES = ['allPublic', 'allPrivate'] as const;

const bucketInfo = stringMap(
  string({ minLength: 1, maxLength: 50, pattern: "^[A-Za-z0-9._`~!#$%^&*'|+-]+$" }),
  string({ maxLength: 10000 }),
  { maxProperties: 10 },
);

const headerList = (minItems: number): Schema<string[]> =>
  array(string({ minLength: 1, maxLength: 999 }), minItems > 0 ? { minItems, maxItems: 100 } : { maxItems: 100 });

const corsRules = array(
  object(
    {
      corsRuleName: string({ minLength: 6, maxLength: 63, pattern: '^[A-Za-z0-9-]+$' }),
      allowedOrigins: headerList(1),
      allowedOperations: headerList(1),
      allowedHeaders: headerList(0),
      exposeHeaders: headerList(0),
      maxAgeSeconds: integer(0, 86400),
    },
    ['corsRuleName', 'allowedOrigins', 'allowedOperations', 'allowedHeaders', 'maxAgeSeconds'],
  ),
  { maxItems: 100 },
);

const lifecycleDays = nullable(integer(1, 36500));
const lifecycleRules = array(
  object(
    {
      fileNamePrefix: string(),
      daysFromUploadingToHiding: lifecycleDays,
      daysFromHidingToDeleting: lifecycleDays,
      daysFromStartingToCancelingUnfinishedLargeFiles: lifecycleDays,
    },
    ['fileNamePrefix'],
  ),
  { maxItems: 100 },
);

const serverSideEncryption = object({ mode: oneOf(['none', 'SSE-B2']), algorithm: oneOf(['AES256']) }, ['mode']);

const bucketId = string({ minLength: 1 });

function bucketWouldBePublic(args: Pick<UpdateBucketArgs, 'bucketType'>): string | undefined {
  return args.bucketType === 'allPublic' ? 'make every file in the bucket publicly downloadable' : undefined;
}

/** Each update that removes a protection or widens exposure, in the order they are reported. */
const updateBucketEffects: GateTrigger<typeof updateBucketInput> = (args) => {
  const effects: string[] = [];
  const publicEffect = bucketWouldBePublic(args);
  if (publicEffect) effects.push(publicEffect);
  if (args.fileLockEnabled === false) effects.push('turn Object Lock off');
  if (args.defaultServerSideEncryption?.mode === 'none') effects.push('turn default encryption off');
  const retention = args.defaultRetention;
  if (retention && retention.mode === null) effects.push('clear the default retention');
  // The arguments alone cannot tell a shorter period (or compliance to governance) from a longer one.
  else if (retention) effects.push('replace the default retention, which may shorten or relax it');
  const rules = Array.isArray(args.lifecycleRules) ? args.lifecycleRules : [];
  if (rules.some((rule) => rule.daysFromHidingToDeleting !== undefined && rule.daysFromHidingToDeleting !== null)) {
    effects.push('schedule deletion of hidden file versions');
  }
  if (
    rules.some(
      (rule) =>
        rule.daysFromStartingToCancelingUnfinishedLargeFiles !== undefined && rule.daysFromStartingToCancelingUnfinishedLargeFiles !== null,
    )
  ) {
    effects.push('schedule cancellation of unfinished large files, discarding their uploaded parts');
  }
  if (args.replicationConfiguration !== undefined) effects.push('change replication, copying data to another bucket');
  return effects.length > 0 ? effects.join(' and ') : undefined;
};

const notificationRule = object(
  {
    name: string({ minLength: 1, maxLength: 63 }),
    eventTypes: array(string({ minLength: 1 }), { minItems: 1, maxItems: 20, description: 'e.g. b2:ObjectCreated:*' }),
    isEnabled: boolean(),
    objectNamePrefix: string({ description: 'Defaults to "" (all files).' }),
    targetConfiguration: object(
      {
        targetType: constant('webhook'),
        url: string({ minLength: 1, maxLength: 2000, description: 'Public https:// endpoint.' }),
        hmacSha256SigningSecret: string({ minLength: 32, maxLength: 32 }),
        customHeaders: array(object({ name: string({ minLength: 1 }), value: string() }, ['name', 'value']), { maxItems: 10 }),
      },
      ['targetType', 'url'],
    ),
  },
  ['name', 'eventTypes', 'isEnabled', 'targetConfiguration'],
);

const DEFAULT_BUCKET_LIMIT = 100;

/** Settings shared by create and update, passed on only when given. */
const SETTING_FIELDS = [
  'bucketInfo',
  'corsRules',
  'lifecycleRules',
  'defaultServerSideEncryption',
  'fileLockEnabled',
  'defaultRetention',
  'replicationConfiguration',
] as const;

function settingsOf(args: Pick<UpdateBucketArgs, (typeof SETTING_FIELDS)[number]>): Partial<B2UpdateBucketRequest> {
  if (args.bucketInfo !== undefined) checkBucketInfo(args.bucketInfo);
  if (args.corsRules !== undefined) checkCorsRules(args.corsRules);
  return givenArgs(args, SETTING_FIELDS);
}

const listBucketsInput = toolInput({
  bucketId: string(),
  bucketName: string(),
  bucketTypes: array(oneOf(['allPublic', 'allPrivate', 'snapshot', 'all']), { maxItems: 4 }),
  limit: integer(1, 1000, { default: 100 }),
});

/**
 * B2 returns every matching bucket; the tool caps the list. A bucket-restricted key may not list
 * without a filter, so without one the tool asks for each of the key's buckets by id.
 */
const listBuckets: ToolHandler<typeof listBucketsInput> = async (args, context) => {
  const b2 = context.b2();
  const { signal } = context;
  const limit = args.limit ?? DEFAULT_BUCKET_LIMIT;
  const types: B2ListBucketsRequest = args.bucketTypes === undefined ? {} : { bucketTypes: args.bucketTypes };
  let buckets: B2Bucket[];
  if (args.bucketId !== undefined || args.bucketName !== undefined) {
    const request: B2ListBucketsRequest = { ...types, ...givenArgs(args, ['bucketId', 'bucketName']) };
    buckets = (await b2.listBuckets(request, { signal })).buckets;
  } else {
    const allowed = (await b2.authorize({ signal })).allowed.buckets;
    if (allowed === null) {
      buckets = (await b2.listBuckets(types, { signal })).buckets;
    } else {
      buckets = [];
      for (const { id } of allowed) buckets.push(...(await b2.listBuckets({ ...types, bucketId: id }, { signal })).buckets);
    }
  }
  const shown = buckets.slice(0, limit);
  const truncated = buckets.length > shown.length;
  return {
    structured: {
      buckets: shown,
      bucket_count: shown.length,
      total_bucket_count: buckets.length,
      ...(truncated && {
        truncated: true,
        note: `Showing ${shown.length} of ${buckets.length} buckets; raise limit (up to 1000) or filter by bucketName, bucketId or bucketTypes.`,
      }),
    },
  };
};

const createBucketInput = toolInput(
  {
    bucketName: string({ minLength: 6, maxLength: 63, pattern: '^[A-Za-z0-9-]+$' }),
    bucketType: oneOf(BUCKET_TYPES),
    bucketInfo,
    corsRules,
    lifecycleRules,
    defaultServerSideEncryption: serverSideEncryption,
    fileLockEnabled: boolean(),
  },
  ['bucketName', 'bucketType'],
);

const createBucket: ToolHandler<typeof createBucketInput> = async (args, context) => {
  const request: B2CreateBucketRequest = {
    bucketName: args.bucketName,
    bucketType: args.bucketType,
    ...settingsOf(args),
  };
  return { structured: await context.b2().createBucket(request, { signal: context.signal }) };
};

const updateBucketInput = toolInput(
  {
    bucketId,
    bucketType: oneOf(BUCKET_TYPES),
    bucketInfo,
    corsRules,
    lifecycleRules,
    defaultServerSideEncryption: serverSideEncryption,
    fileLockEnabled: boolean(),
    defaultRetention: object(
      {
        mode: nullable(oneOf(['governance', 'compliance'])),
        period: nullable(object({ duration: integer(1, 36500), unit: oneOf(['days', 'years']) }, ['duration', 'unit'])),
      },
      ['mode', 'period'],
      { description: 'mode null clears the default retention.' },
    ),
    replicationConfiguration: object({
      asReplicationSource: object(
        {
          sourceApplicationKeyId: string({ minLength: 1 }),
          replicationRules: array(
            object(
              {
                replicationRuleName: string({ minLength: 1, maxLength: 64 }),
                destinationBucketId: string({ minLength: 1 }),
                fileNamePrefix: string(),
                includeExistingFiles: boolean(),
                isEnabled: boolean(),
                priority: integer(1, 2147483647),
              },
              ['replicationRuleName', 'destinationBucketId', 'isEnabled', 'priority'],
            ),
            { maxItems: 10 },
          ),
        },
        ['sourceApplicationKeyId', 'replicationRules'],
      ),
      asReplicationDestination: object({ sourceToDestinationKeyMapping: stringMap(string({ minLength: 1 }), string({ minLength: 1 })) }, [
        'sourceToDestinationKeyMapping',
      ]),
    }),
    ifRevisionIs: integer(1, Number.MAX_SAFE_INTEGER, { description: 'Apply only if the bucket revision still matches.' }),
  },
  ['bucketId'],
);

type UpdateBucketArgs = ArgsOf<typeof updateBucketInput>;

const updateBucket: ToolHandler<typeof updateBucketInput> = async (args, context) => {
  const settings = settingsOf(args);
  if (args.bucketType === undefined && Object.keys(settings).length === 0) {
    throw new ToolError(400, 'bad_request', 'Nothing to update: give at least one setting to change besides bucketId and ifRevisionIs.');
  }
  const request: B2UpdateBucketRequest = {
    bucketId: args.bucketId,
    ...givenArgs(args, ['bucketType', 'ifRevisionIs']),
    ...settings,
  };
  return { structured: await context.b2().updateBucket(request, { signal: context.signal }) };
};

const deleteBucketInput = toolInput({ bucketId }, ['bucketId']);

const deleteBucket: ToolHandler<typeof deleteBucketInput> = async (args, context) => ({
  structured: await context.b2().deleteBucket({ bucketId: args.bucketId }, { signal: context.signal }),
});

const getNotificationRulesInput = toolInput({ bucketId }, ['bucketId']);

const getNotificationRules: ToolHandler<typeof getNotificationRulesInput> = async (args, context) => ({
  structured: redactNotificationRules(
    await context.b2().getBucketNotificationRules({ bucketId: args.bucketId }, { signal: context.signal }),
  ),
});

const setNotificationRulesInput = toolInput({ bucketId, eventNotificationRules: array(notificationRule, { maxItems: 50 }) }, [
  'bucketId',
  'eventNotificationRules',
]);

const setNotificationRules: ToolHandler<typeof setNotificationRulesInput> = async (args, context) => {
  const rules = args.eventNotificationRules.map((rule) => ({ ...rule, objectNamePrefix: rule.objectNamePrefix ?? '' }));
  for (const rule of rules) await checkWebhookUrl(rule.targetConfiguration.url);
  const response = await context
    .b2()
    .setBucketNotificationRules({ bucketId: args.bucketId, eventNotificationRules: rules }, { signal: context.signal });
  return { structured: redactNotificationRules(response) };
};

export const bucketTools: ToolDefinition[] = [
  defineTool({
    name: 'b2_list_buckets',
    title: 'List buckets',
    description: 'List buckets visible to the key, optionally by id, name or type; truncated: true when capped at limit.',
    input: listBucketsInput,
    backing: 'nativeB2Sdk',
    capabilities: ['listBuckets'],
    effect: 'read',
    handler: listBuckets,
  }),
  defineTool({
    name: 'b2_create_bucket',
    title: 'Create bucket',
    description: 'Create a bucket with optional info, CORS, lifecycle, encryption and Object Lock; allPublic needs confirmation.',
    input: createBucketInput,
    backing: 'nativeB2Sdk',
    capabilities: ['writeBuckets'],
    effect: 'write',
    gate: bucketWouldBePublic,
    handler: createBucket,
  }),
  defineTool({
    name: 'b2_update_bucket',
    title: 'Update bucket',
    description:
      "Change a bucket's type, info, CORS, lifecycle, encryption, default retention or replication; exposing data or removing a protection needs confirmation.",
    input: updateBucketInput,
    backing: 'nativeB2Sdk',
    capabilities: ['writeBuckets'],
    effect: 'idempotent-write',
    gate: updateBucketEffects,
    handler: updateBucket,
  }),
  defineTool({
    name: 'b2_delete_bucket',
    title: 'Delete bucket',
    description: 'Permanently delete an empty bucket.',
    input: deleteBucketInput,
    backing: 'nativeB2Sdk',
    capabilities: ['deleteBuckets'],
    effect: 'idempotent-write',
    gate: () => 'permanently delete the bucket',
    handler: deleteBucket,
  }),
  defineTool({
    name: 'b2_get_bucket_notification_rules',
    title: 'Get bucket notification rules',
    description: "Get a bucket's event notification rules, webhook URL paths, signing secrets and header values redacted.",
    input: getNotificationRulesInput,
    backing: 'nativeB2Sdk',
    capabilities: ['readBucketNotifications', 'writeBucketNotifications'],
    effect: 'read',
    handler: getNotificationRules,
  }),
  defineTool({
    name: 'b2_set_bucket_notification_rules',
    title: 'Set bucket notification rules',
    description: 'Replace ALL event notification rules of a bucket ([] removes them); webhooks must be public https endpoints.',
    input: setNotificationRulesInput,
    backing: 'nativeB2Sdk',
    capabilities: ['writeBucketNotifications'],
    effect: 'idempotent-write',
    gate: () => 'replace every event notification rule of the bucket',
    handler: setNotificationRules,
  }),
];
