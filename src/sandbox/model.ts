/**
 * The sandbox's state model: one account with keys, buckets, file versions, unfinished large files
 * and their parts, notification rules, and Partner groups. Both the native and the S3 front end
 * read and change this state only through `SandboxStore`; these types are what they see.
 */
import type { SortedList } from './sorted-list.js';

/** Every capability a B2 application key can hold (v4 list, plus the lifecycle pair added later). */
export const ALL_CAPABILITIES = [
  'listKeys',
  'writeKeys',
  'deleteKeys',
  'listAllBucketNames',
  'listBuckets',
  'readBuckets',
  'writeBuckets',
  'deleteBuckets',
  'readBucketRetentions',
  'writeBucketRetentions',
  'readBucketEncryption',
  'writeBucketEncryption',
  'readBucketReplications',
  'writeBucketReplications',
  'readBucketNotifications',
  'writeBucketNotifications',
  'readBucketLifecycleRules',
  'writeBucketLifecycleRules',
  'listFiles',
  'readFiles',
  'shareFiles',
  'writeFiles',
  'deleteFiles',
  'readFileLegalHolds',
  'writeFileLegalHolds',
  'readFileRetentions',
  'writeFileRetentions',
  'bypassGovernance',
] as const;
export type Capability = (typeof ALL_CAPABILITIES)[number];

export interface KeyRecord {
  applicationKeyId: string;
  /** The secret. Never logged, never returned except by key creation. */
  applicationKey: string;
  keyName: string;
  capabilities: Capability[];
  /** null = every bucket of the account. */
  bucketIds: string[] | null;
  namePrefix: string | null;
  /** Milliseconds since the epoch, or null for a key that never expires. */
  expirationTimestamp: number | null;
  isMaster: boolean;
  createdAt: number;
}

export interface AuthToken {
  token: string;
  applicationKeyId: string;
  expiresAt: number;
  /** Set by the admin API to force `expired_auth_token` before `expiresAt`. */
  revoked: boolean;
}

export interface UploadGrant {
  token: string;
  applicationKeyId: string;
  bucketId: string;
  /** Present for part uploads: the large file the grant belongs to. */
  largeFileId?: string;
  expiresAt: number;
}

export type BucketType = 'allPublic' | 'allPrivate' | 'restricted' | 'snapshot';
export type RetentionMode = 'governance' | 'compliance';

export interface RetentionPeriod {
  duration: number;
  unit: 'days' | 'years';
}

export interface DefaultRetention {
  mode: RetentionMode | null;
  period: RetentionPeriod | null;
}

export interface ServerSideEncryption {
  mode: 'SSE-B2' | null;
  algorithm: 'AES256' | null;
}

export interface CorsRule {
  corsRuleName: string;
  allowedOrigins: string[];
  allowedOperations: string[];
  allowedHeaders: string[];
  exposeHeaders: string[];
  maxAgeSeconds: number;
}

export interface LifecycleRule {
  fileNamePrefix: string;
  daysFromHidingToDeleting: number | null;
  daysFromUploadingToHiding: number | null;
  daysFromStartingToCancelingUnfinishedLargeFiles: number | null;
}

export interface NotificationRule {
  name: string;
  eventTypes: string[];
  isEnabled: boolean;
  objectNamePrefix: string;
  targetConfiguration: {
    targetType: 'webhook';
    url: string;
    hmacSha256SigningSecret: string | null;
    customHeaders: Array<{ name: string; value: string }> | null;
  };
  isSuspended: boolean;
  suspensionReason: string;
}

/** Kept as given (validated for shape only); the sandbox does not replicate. */
export type ReplicationConfiguration = Record<string, unknown>;

export interface BucketRecord {
  bucketId: string;
  bucketName: string;
  bucketType: BucketType;
  bucketInfo: Record<string, string>;
  corsRules: CorsRule[];
  lifecycleRules: LifecycleRule[];
  defaultServerSideEncryption: ServerSideEncryption;
  fileLockEnabled: boolean;
  defaultRetention: DefaultRetention;
  replicationConfiguration: ReplicationConfiguration | null;
  notificationRules: NotificationRule[];
  revision: number;
  createdAt: number;
  /** Reserved buckets (the usage-report bucket) are left out of unfiltered bucket listings. */
  reserved: boolean;
  /** All file versions (uploads, hide markers, unfinished large files) sorted as B2 lists them. */
  versions: SortedList<FileVersion>;
  /** Unfinished large files by file id, in start order. */
  unfinished: Map<string, FileVersion>;
}

/**
 * Where a version's bytes live. `filler` is deterministic synthetic content of a given size (used
 * for bulk and large demo data); `concat` is a finished large file made of its parts; `file` is a
 * body kept on disk (for front ends that stream big uploads).
 */
export type StoredBody =
  | { kind: 'bytes'; data: Buffer }
  | { kind: 'filler'; size: number }
  | { kind: 'file'; path: string; size: number }
  | { kind: 'concat'; pieces: StoredBody[]; size: number };

export interface FileRetention {
  mode: RetentionMode;
  retainUntilTimestamp: number;
}

export interface PartRecord {
  partNumber: number;
  contentLength: number;
  contentSha1: string;
  contentMd5: string;
  body: StoredBody;
  uploadTimestamp: number;
}

export type FileAction = 'upload' | 'hide' | 'start';

export interface FileVersion {
  fileId: string;
  fileName: string;
  bucketId: string;
  /** Store-wide creation sequence; newer versions of a name sort first. Encoded in `fileId`. */
  seq: number;
  action: FileAction;
  contentLength: number;
  /** Hex SHA-1, `none` for large files, or `unverified:<hex>` for uploads sent with do_not_verify. */
  contentSha1: string;
  contentMd5: string | null;
  contentType: string;
  fileInfo: Record<string, string>;
  uploadTimestamp: number;
  body: StoredBody | null;
  retention: FileRetention | null;
  legalHold: 'on' | 'off' | null;
  serverSideEncryption: ServerSideEncryption;
  /** Only for action `start`: the parts uploaded so far. */
  parts: Map<number, PartRecord> | undefined;
}

export interface GroupMember {
  accountId: string;
  email: string;
  region: string;
  /** Ejected members stay known so the Partner API can refuse to re-add them. */
  ejected: boolean;
  b2BytesStoredCount: number;
  b2FilesStoredCount: number;
  bucketCount: number;
}

export interface GroupRecord {
  groupId: string;
  groupName: string;
  createdAt: number;
  members: GroupMember[];
}

export interface TrialAccount {
  accountId: string;
  email: string;
  region: string;
  startDate: string;
  endDate: string;
  storageTb: number;
  bucketId: string;
  bucketName: string;
}

/** One state-changing call, as the admin API reports it. Ids only, never secrets. */
export interface MutationRecord {
  seq: number;
  time: number;
  api: 'native' | 's3';
  operation: string;
  method: string;
  endpoint: string;
  callerKeyId?: string;
  bucketId?: string;
  bucketName?: string;
  fileId?: string;
  fileName?: string;
  applicationKeyId?: string;
  groupId?: string;
  memberAccountId?: string;
  uploadId?: string;
}

export type MutationTarget = Omit<MutationRecord, 'seq' | 'time' | 'api' | 'operation' | 'method' | 'endpoint'>;
