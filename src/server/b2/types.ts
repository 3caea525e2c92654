/**
 * Request and response shapes of the B2 Native API operations b2-mcp uses (API v4), as the B2
 * documentation describes them. Responses keep any extra fields B2 adds (`[field: string]: unknown`).
 */

export type B2BucketType = 'allPublic' | 'allPrivate' | 'snapshot' | 'restricted';
export type B2BucketTypeFilter = B2BucketType | 'all';
export type B2RetentionMode = 'governance' | 'compliance';

/** A value B2 returns only when the key may read it. */
export interface B2Guarded<T> {
  isClientAuthorizedToRead: boolean;
  value: T | null;
}

export interface B2AllowedScope {
  /** null = every bucket of the account. */
  buckets: Array<{ id: string; name: string | null }> | null;
  capabilities: string[];
  namePrefix: string | null;
}

/** The result of `b2_authorize_account`, without the authorization token. */
export interface B2AccountInfo {
  accountId: string;
  apiUrl: string;
  downloadUrl: string;
  s3ApiUrl: string;
  /** Partner/Groups API base URL when the key may use it. */
  groupsApiUrl: string | null;
  recommendedPartSize: number;
  absoluteMinimumPartSize: number;
  allowed: B2AllowedScope;
  applicationKeyExpirationTimestamp: number | null;
  /** The whole response body with `authorizationToken` removed. */
  response: Record<string, unknown>;
}

export interface B2CorsRule {
  corsRuleName: string;
  allowedOrigins: string[];
  allowedOperations: string[];
  allowedHeaders?: string[] | null;
  exposeHeaders?: string[] | null;
  maxAgeSeconds: number;
}

export interface B2LifecycleRule {
  fileNamePrefix: string;
  daysFromHidingToDeleting?: number | null;
  daysFromUploadingToHiding?: number | null;
  daysFromStartingToCancelingUnfinishedLargeFiles?: number | null;
}

export interface B2ServerSideEncryption {
  mode: 'none' | 'SSE-B2' | 'SSE-C' | null;
  algorithm?: 'AES256' | null;
}

export interface B2DefaultRetention {
  mode: B2RetentionMode | null;
  period: { duration: number; unit: 'days' | 'years' } | null;
}

export interface B2ReplicationConfiguration {
  asReplicationSource?: {
    replicationRules: Array<{
      replicationRuleName: string;
      destinationBucketId: string;
      fileNamePrefix?: string;
      includeExistingFiles?: boolean;
      isEnabled: boolean;
      priority: number;
    }>;
    sourceApplicationKeyId: string;
  } | null;
  asReplicationDestination?: { sourceToDestinationKeyMapping: Record<string, string> } | null;
}

export interface B2Bucket {
  accountId: string;
  bucketId: string;
  bucketName: string;
  bucketType: string;
  bucketInfo: Record<string, string>;
  corsRules: B2CorsRule[];
  lifecycleRules: B2LifecycleRule[];
  defaultServerSideEncryption?: B2Guarded<B2ServerSideEncryption>;
  fileLockConfiguration?: B2Guarded<{ defaultRetention: B2DefaultRetention; isFileLockEnabled: boolean }>;
  replicationConfiguration?: B2Guarded<B2ReplicationConfiguration> | null;
  options?: string[];
  revision: number;
  [field: string]: unknown;
}

export interface B2ListBucketsRequest {
  bucketId?: string;
  bucketName?: string;
  bucketTypes?: B2BucketTypeFilter[];
}

interface B2BucketSettings {
  bucketInfo?: Record<string, string>;
  corsRules?: B2CorsRule[];
  lifecycleRules?: B2LifecycleRule[];
  defaultServerSideEncryption?: { mode: 'none' | 'SSE-B2'; algorithm?: 'AES256' };
  defaultRetention?: B2DefaultRetention;
  fileLockEnabled?: boolean;
  replicationConfiguration?: B2ReplicationConfiguration;
}

export interface B2CreateBucketRequest extends B2BucketSettings {
  bucketName: string;
  bucketType: 'allPublic' | 'allPrivate';
}

export interface B2UpdateBucketRequest extends B2BucketSettings {
  bucketId: string;
  bucketType?: 'allPublic' | 'allPrivate';
  /** Optimistic concurrency: fail with 409 `conflict` if the bucket's revision differs. */
  ifRevisionIs?: number;
}

export interface B2Key {
  accountId: string;
  applicationKeyId: string;
  keyName: string;
  capabilities: string[];
  bucketIds: string[] | null;
  namePrefix: string | null;
  expirationTimestamp: number | null;
  options?: string[];
  [field: string]: unknown;
}

/** A created key; `applicationKey` is the one-time secret. */
export interface B2CreatedKey extends B2Key {
  applicationKey: string;
}

export interface B2CreateKeyRequest {
  keyName: string;
  capabilities: string[];
  bucketIds?: string[];
  namePrefix?: string;
  validDurationInSeconds?: number;
}

export interface B2ListKeysRequest {
  maxKeyCount?: number;
  startApplicationKeyId?: string;
}

export interface B2ListKeysResponse {
  keys: B2Key[];
  nextApplicationKeyId: string | null;
}

export interface B2FileVersion {
  accountId?: string;
  action: 'upload' | 'hide' | 'start' | 'folder' | string;
  bucketId: string;
  contentLength: number;
  contentSha1: string | null;
  contentMd5?: string | null;
  contentType: string | null;
  /** null for `folder` entries. */
  fileId: string | null;
  fileInfo: Record<string, string>;
  fileName: string;
  fileRetention?: B2Guarded<{ mode: B2RetentionMode | null; retainUntilTimestamp: number | null }>;
  legalHold?: B2Guarded<'on' | 'off' | null>;
  uploadTimestamp: number;
  [field: string]: unknown;
}

export interface B2ListFileNamesRequest {
  bucketId: string;
  startFileName?: string;
  maxFileCount?: number;
  prefix?: string;
  delimiter?: string;
}

export interface B2ListFileNamesResponse {
  files: B2FileVersion[];
  nextFileName: string | null;
}

export interface B2ListFileVersionsRequest extends B2ListFileNamesRequest {
  startFileId?: string;
}

export interface B2ListFileVersionsResponse {
  files: B2FileVersion[];
  nextFileName: string | null;
  nextFileId: string | null;
}

export interface B2ListUnfinishedLargeFilesRequest {
  bucketId: string;
  namePrefix?: string;
  startFileId?: string;
  maxFileCount?: number;
}

export interface B2ListUnfinishedLargeFilesResponse {
  files: B2FileVersion[];
  nextFileId: string | null;
}

export interface B2ListPartsRequest {
  fileId: string;
  startPartNumber?: number;
  maxPartCount?: number;
}

export interface B2Part {
  fileId: string;
  partNumber: number;
  contentLength: number;
  contentSha1?: string;
  uploadTimestamp?: number;
  [field: string]: unknown;
}

export interface B2ListPartsResponse {
  parts: B2Part[];
  nextPartNumber: number | null;
}

export interface B2UpdateFileLegalHoldRequest {
  fileId: string;
  fileName: string;
  legalHold: 'on' | 'off';
}

export interface B2UpdateFileLegalHoldResponse {
  fileId: string;
  fileName: string;
  legalHold: 'on' | 'off';
}

export interface B2FileRetentionSetting {
  mode: B2RetentionMode | null;
  retainUntilTimestamp: number | null;
}

export interface B2UpdateFileRetentionRequest {
  fileId: string;
  fileName: string;
  fileRetention: B2FileRetentionSetting;
  bypassGovernance?: boolean;
}

export interface B2UpdateFileRetentionResponse {
  fileId: string;
  fileName: string;
  fileRetention: B2FileRetentionSetting;
}

export interface B2NotificationRule {
  name: string;
  eventTypes: string[];
  isEnabled: boolean;
  objectNamePrefix?: string;
  targetConfiguration: {
    targetType: 'webhook';
    url: string;
    hmacSha256SigningSecret?: string | null;
    customHeaders?: Array<{ name: string; value: string }> | null;
  };
  isSuspended?: boolean;
  suspensionReason?: string;
}

export interface B2NotificationRulesResponse {
  bucketId: string;
  eventNotificationRules: B2NotificationRule[];
}

export interface B2SetNotificationRulesRequest {
  bucketId: string;
  eventNotificationRules: B2NotificationRule[];
}

export interface B2DeleteFileVersionRequest {
  fileId: string;
  fileName: string;
  bypassGovernance?: boolean;
}

export interface B2DownloadRequest {
  bucketName: string;
  fileName: string;
  /** Inclusive byte range. */
  range?: { first: number; last?: number };
}

/** A streamed download: read `body` to the end or cancel it. */
export interface B2Download {
  status: 200 | 206;
  body: ReadableStream<Uint8Array>;
  contentLength: number;
  contentType: string;
  fileId: string | null;
  fileName: string;
  contentSha1: string | null;
  uploadTimestamp: number | null;
  fileInfo: Record<string, string>;
}

export type B2Region = 'us-east' | 'us-west' | 'ca-east' | 'eu-central';

export interface B2GroupStats {
  [field: string]: unknown;
}

export interface B2Group {
  groupId: string;
  groupName: string;
  groupProducts?: string[];
  accountStandingDetails?: { state: string };
  b2Stats?: B2GroupStats;
  groupStats?: B2GroupStats;
  [field: string]: unknown;
}

export interface B2ListGroupsRequest {
  adminAccountId: string;
  groupName?: string;
  startGroupId?: string | number;
  maxGroupCount?: number;
}

export interface B2ListGroupsResponse {
  groups: B2Group[];
  nextGroupId: string | null;
  [field: string]: unknown;
}

export interface B2GroupMember {
  accountId: string;
  email: string;
  groupId: string;
  groupName: string;
  region: string;
  s3Endpoint?: string;
  b2Stats?: B2GroupStats;
  [field: string]: unknown;
}

export interface B2ListGroupMembersRequest {
  adminAccountId: string;
  groupId: string;
  startEmail?: string;
  maxMemberCount?: number;
}

export interface B2ListGroupMembersResponse {
  groupId: string;
  groupName: string;
  groupMembers: B2GroupMember[];
  nextEmail: string | null;
  [field: string]: unknown;
}

export interface B2EjectGroupMemberRequest {
  adminAccountId: string;
  groupId: string;
  memberAccountId: string;
  email?: string;
}

export interface B2CreateGroupMemberRequest {
  adminAccountId: string;
  groupId: string;
  memberEmail: string;
  region?: B2Region | null;
}

export interface B2CreateGroupMemberResponse {
  applicationKeyId: string;
  applicationKey: string;
  groupMember: B2GroupMember;
  [field: string]: unknown;
}

export interface B2ReserveTrialRequest {
  email: string;
  region?: B2Region | null;
  /** Days, 7-30. */
  term: number;
  /** Terabytes, 1-50. */
  storage: number;
}

export interface B2ReserveTrialResponse {
  accountId: string;
  applicationKeyId: string;
  applicationKey: string;
  bucketId: string;
  bucketName: string;
  email: string;
  s3Endpoint: string;
  startDate: string;
  endDate: string;
  [field: string]: unknown;
}
