/**
 * Request shapes of the B2 Native API operations the sandbox serves, as zod schemas, and the
 * parsing that turns a JSON body (POST) or query string (GET) into a typed request or B2's
 * 400 `bad_request` naming the offending field.
 */
import { z } from 'zod';
import { badRequest } from './errors.js';
import { ALL_CAPABILITIES } from './model.js';
import { MAX_LIST_COUNT } from './store.js';

const text = z.string();
const id = z.string().min(1);
const count = (max: number) => z.number().int().min(1).max(max).optional();
const region = z.enum(['us-east', 'us-west', 'ca-east', 'eu-central']);

const BUCKET_TYPE_FILTERS = ['allPublic', 'allPrivate', 'snapshot', 'restricted', 'all'] as const;

const corsRule = z.object({
  corsRuleName: z.string().regex(/^[A-Za-z0-9-]{6,63}$/, 'must be 6-63 letters, digits or "-"'),
  allowedOrigins: z.array(z.string().min(1)).min(1).max(100),
  allowedOperations: z
    .array(
      z.enum([
        'b2_download_file_by_id',
        'b2_download_file_by_name',
        'b2_upload_file',
        'b2_upload_part',
        's3_delete',
        's3_get',
        's3_head',
        's3_post',
        's3_put',
      ]),
    )
    .min(1),
  allowedHeaders: z.array(z.string().min(1)).max(100).nullable().optional(),
  exposeHeaders: z.array(z.string().min(1)).max(100).nullable().optional(),
  maxAgeSeconds: z.number().int().min(0).max(86_400),
});

const days = z.number().int().positive().nullable().optional();
const lifecycleRule = z.object({
  fileNamePrefix: text,
  daysFromHidingToDeleting: days,
  daysFromUploadingToHiding: days,
  daysFromStartingToCancelingUnfinishedLargeFiles: days,
});

const serverSideEncryption = z.object({
  mode: z.enum(['none', 'SSE-B2']).nullable(),
  algorithm: z.enum(['AES256']).nullable().optional(),
});

const defaultRetention = z.object({
  mode: z.enum(['governance', 'compliance']).nullable(),
  period: z.object({ duration: z.number().int().positive(), unit: z.enum(['days', 'years']) }).nullable(),
});

const replicationConfiguration = z.object({
  asReplicationSource: z
    .object({
      replicationRules: z.array(
        z.object({
          replicationRuleName: z.string().min(1),
          destinationBucketId: id,
          fileNamePrefix: text.optional(),
          includeExistingFiles: z.boolean().optional(),
          isEnabled: z.boolean(),
          priority: z.number().int(),
        }),
      ),
      sourceApplicationKeyId: id,
    })
    .nullable()
    .optional(),
  asReplicationDestination: z
    .object({ sourceToDestinationKeyMapping: z.record(z.string(), z.string()) })
    .nullable()
    .optional(),
});

const bucketSettings = {
  bucketInfo: z.record(z.string().min(1).max(50), z.string().max(10_000)).optional(),
  corsRules: z.array(corsRule).max(100).optional(),
  lifecycleRules: z.array(lifecycleRule).max(100).optional(),
  defaultServerSideEncryption: serverSideEncryption.optional(),
  defaultRetention: defaultRetention.optional(),
  fileLockEnabled: z.boolean().optional(),
  replicationConfiguration: replicationConfiguration.nullable().optional(),
};

const NOTIFICATION_EVENT_TYPES = [
  'b2:ObjectCreated:*',
  'b2:ObjectCreated:Upload',
  'b2:ObjectCreated:MultipartUpload',
  'b2:ObjectCreated:Copy',
  'b2:ObjectCreated:Replica',
  'b2:ObjectCreated:MultipartReplica',
  'b2:ObjectDeleted:*',
  'b2:ObjectDeleted:Delete',
  'b2:ObjectDeleted:LifecycleRule',
  'b2:HideMarkerCreated:*',
  'b2:HideMarkerCreated:Hide',
  'b2:HideMarkerCreated:LifecycleRule',
] as const;

const notificationRule = z.object({
  name: z.string().regex(/^[A-Za-z0-9-]{1,63}$/, 'must be 1-63 letters, digits or "-"'),
  eventTypes: z.array(z.enum(NOTIFICATION_EVENT_TYPES)).min(1),
  isEnabled: z.boolean(),
  objectNamePrefix: text.optional(),
  targetConfiguration: z.object({
    targetType: z.literal('webhook'),
    url: z.string().regex(/^https:\/\/[^\s/?#]+/i, 'must be an https:// URL'),
    hmacSha256SigningSecret: z
      .string()
      .regex(/^[A-Za-z0-9]{32}$/, 'must be 32 letters or digits')
      .nullable()
      .optional(),
    customHeaders: z
      .array(
        z.object({
          name: z
            .string()
            .min(1)
            .regex(/^(?!x-bz-)/i, 'must not start with X-Bz-'),
          value: z.string(),
        }),
      )
      .max(10)
      .nullable()
      .optional(),
  }),
  isSuspended: z.boolean().optional(),
  suspensionReason: z.string().optional(),
});

const fileRetention = z.object({
  mode: z.enum(['governance', 'compliance']).nullable(),
  retainUntilTimestamp: z.number().int().nullable(),
});

const groupId = z.union([z.string().min(1), z.number().int()]).transform(String);

export const NATIVE_REQUESTS = {
  b2_list_buckets: z.object({
    accountId: id,
    bucketId: text.optional(),
    bucketName: text.optional(),
    bucketTypes: z.array(z.enum(BUCKET_TYPE_FILTERS)).optional(),
  }),
  b2_create_bucket: z.object({
    accountId: id,
    bucketName: text,
    bucketType: z.enum(['allPublic', 'allPrivate']),
    ...bucketSettings,
  }),
  b2_update_bucket: z.object({
    accountId: id,
    bucketId: id,
    bucketType: z.enum(['allPublic', 'allPrivate']).optional(),
    ifRevisionIs: z.number().int().optional(),
    ...bucketSettings,
  }),
  b2_delete_bucket: z.object({ accountId: id, bucketId: id }),
  b2_create_key: z.object({
    accountId: id,
    keyName: text,
    capabilities: z.array(z.enum(ALL_CAPABILITIES)).min(1),
    validDurationInSeconds: z.number().int().optional(),
    bucketIds: z.array(id).optional(),
    bucketId: id.optional(),
    namePrefix: text.optional(),
  }),
  b2_list_keys: z.object({ accountId: id, maxKeyCount: count(MAX_LIST_COUNT), startApplicationKeyId: text.optional() }),
  b2_delete_key: z.object({ applicationKeyId: id }),
  b2_list_file_names: z.object({
    bucketId: id,
    startFileName: text.optional(),
    maxFileCount: count(MAX_LIST_COUNT),
    prefix: text.optional(),
    delimiter: text.optional(),
  }),
  b2_list_file_versions: z.object({
    bucketId: id,
    startFileName: text.optional(),
    startFileId: id.optional(),
    maxFileCount: count(MAX_LIST_COUNT),
    prefix: text.optional(),
    delimiter: text.optional(),
  }),
  b2_list_unfinished_large_files: z.object({
    bucketId: id,
    namePrefix: text.optional(),
    startFileId: id.optional(),
    maxFileCount: count(100),
  }),
  b2_update_file_legal_hold: z.object({ fileName: id, fileId: id, legalHold: z.enum(['on', 'off']) }),
  b2_update_file_retention: z.object({
    fileName: id,
    fileId: id,
    fileRetention,
    bypassGovernance: z.boolean().optional(),
  }),
  b2_get_bucket_notification_rules: z.object({ bucketId: id }),
  b2_set_bucket_notification_rules: z.object({ bucketId: id, eventNotificationRules: z.array(notificationRule).max(50) }),
  b2_delete_file_version: z.object({ fileName: id, fileId: id, bypassGovernance: z.boolean().optional() }),
  b2_hide_file: z.object({ bucketId: id, fileName: id }),
  b2_get_file_info: z.object({ fileId: id }),
  b2_get_upload_url: z.object({ bucketId: id }),
  b2_start_large_file: z.object({
    bucketId: id,
    fileName: id,
    contentType: id,
    fileInfo: z.record(z.string(), z.string()).optional(),
    fileRetention: fileRetention.optional(),
    legalHold: z.enum(['on', 'off']).optional(),
  }),
  b2_get_upload_part_url: z.object({ fileId: id }),
  b2_list_parts: z.object({ fileId: id, startPartNumber: z.number().int().min(1).optional(), maxPartCount: count(1000) }),
  b2_finish_large_file: z.object({ fileId: id, partSha1Array: z.array(z.string()) }),
  b2_cancel_large_file: z.object({ fileId: id }),
  b2_download_file_by_id: z.object({ fileId: id }),
  b2_list_groups: z.object({
    adminAccountId: id,
    groupName: text.optional(),
    startGroupId: groupId.optional(),
    maxGroupCount: count(100),
  }),
  b2_list_group_members: z.object({
    adminAccountId: id,
    groupId,
    startEmail: text.optional(),
    maxMemberCount: z.number().int().min(0).max(1000).optional(),
  }),
  b2_eject_group_member: z.object({ adminAccountId: id, groupId, memberAccountId: id, email: z.email().nullable().optional() }),
  b2_create_group_member: z.object({ adminAccountId: id, groupId, memberEmail: z.email(), region: region.nullable().optional() }),
  b2_reserve_trial_create_account: z.object({
    email: z.email(),
    region: region.nullable().optional(),
    term: z.number().int().min(7).max(30),
    storage: z.number().int().min(1).max(50),
  }),
} as const;

export type NativeOperation = keyof typeof NATIVE_REQUESTS;
export type NativeRequest<Op extends NativeOperation> = z.output<(typeof NATIVE_REQUESTS)[Op]>;

/** The innermost zod type name of a field (through optional/nullable/default wrappers). */
function baseType(schema: z.ZodType): string {
  let def = (schema as unknown as { _zod: { def: { type: string; innerType?: z.ZodType; in?: z.ZodType } } })._zod.def;
  while (def.innerType || (def.type === 'pipe' && def.in)) {
    const inner = (def.innerType ?? def.in)!;
    def = (inner as unknown as { _zod: { def: typeof def } })._zod.def;
  }
  return def.type;
}

/** Query strings carry only text; give each field the JSON type its schema expects. */
function coerceQuery(schema: z.ZodObject, query: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const shape = schema.shape as Record<string, z.ZodType>;
  for (const [name, value] of query) {
    const field = shape[name];
    if (!field) continue;
    const type = baseType(field);
    if (type === 'number') out[name] = /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
    else if (type === 'boolean') out[name] = value === 'true' ? true : value === 'false' ? false : value;
    else if (type === 'array' || type === 'object' || type === 'record') {
      try {
        out[name] = JSON.parse(value);
      } catch {
        out[name] = value;
      }
    } else out[name] = value;
  }
  return out;
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const path = issue.path.map(String).join('.');
  let value: unknown = input;
  for (const part of issue.path) value = value && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[part] : undefined;
  if (value === undefined && issue.code === 'invalid_type') return `required field ${path} is missing`;
  return `invalid value for ${path || 'request'}: ${issue.message}`;
}

/** Parse a request for `operation` from a JSON body (POST) or a query string (GET). */
export function parseNativeRequest<Op extends NativeOperation>(
  operation: Op,
  source: { json: unknown } | { query: URLSearchParams },
): NativeRequest<Op> {
  const schema = NATIVE_REQUESTS[operation] as unknown as z.ZodObject;
  const input = 'json' in source ? source.json : coerceQuery(schema, source.query);
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw badRequest('request body must be a JSON object');
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw badRequest(describeIssue(parsed.error.issues[0]!, input));
  return parsed.data as NativeRequest<Op>;
}
