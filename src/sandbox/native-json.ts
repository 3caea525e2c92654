/**
 * B2 Native API (v4) response bodies for the store's records. Fields a key may not read
 * (encryption, retention, replication, legal hold) come back as
 * `{isClientAuthorizedToRead: false, value: null}`, as B2 does.
 */
import { hasCapability } from './access.js';
import type { BucketRecord, Capability, FileVersion, GroupMember, GroupRecord, KeyRecord, PartRecord } from './model.js';

function guarded<T>(key: KeyRecord, capability: Capability, value: () => T) {
  return hasCapability(key, capability)
    ? { isClientAuthorizedToRead: true, value: value() }
    : { isClientAuthorizedToRead: false, value: null };
}

export function bucketJson(accountId: string, bucket: BucketRecord, key: KeyRecord) {
  return {
    accountId,
    bucketId: bucket.bucketId,
    bucketName: bucket.bucketName,
    bucketType: bucket.bucketType,
    bucketInfo: bucket.bucketInfo,
    corsRules: bucket.corsRules,
    defaultServerSideEncryption: guarded(key, 'readBucketEncryption', () => ({ ...bucket.defaultServerSideEncryption })),
    fileLockConfiguration: guarded(key, 'readBucketRetentions', () => ({
      defaultRetention: bucket.defaultRetention,
      isFileLockEnabled: bucket.fileLockEnabled,
    })),
    lifecycleRules: bucket.lifecycleRules,
    options: ['s3'],
    replicationConfiguration: guarded(key, 'readBucketReplications', () => bucket.replicationConfiguration),
    revision: bucket.revision,
  };
}

export function fileJson(accountId: string, file: FileVersion, key: KeyRecord) {
  return {
    accountId,
    action: file.action,
    bucketId: file.bucketId,
    contentLength: file.contentLength,
    contentMd5: file.contentMd5,
    contentSha1: file.contentSha1,
    contentType: file.contentType,
    fileId: file.fileId,
    fileInfo: file.fileInfo,
    fileName: file.fileName,
    fileRetention: guarded(key, 'readFileRetentions', () => ({
      mode: file.retention?.mode ?? null,
      retainUntilTimestamp: file.retention?.retainUntilTimestamp ?? null,
    })),
    legalHold: guarded(key, 'readFileLegalHolds', () => file.legalHold),
    replicationStatus: null,
    serverSideEncryption: { ...file.serverSideEncryption },
    uploadTimestamp: file.uploadTimestamp,
  };
}

/** A "folder" entry of a delimiter listing. */
export function folderJson(accountId: string, bucketId: string, fileName: string) {
  return {
    accountId,
    action: 'folder',
    bucketId,
    contentLength: 0,
    contentMd5: null,
    contentSha1: null,
    contentType: null,
    fileId: null,
    fileInfo: {},
    fileName,
    fileRetention: { isClientAuthorizedToRead: false, value: null },
    legalHold: { isClientAuthorizedToRead: false, value: null },
    replicationStatus: null,
    serverSideEncryption: null,
    uploadTimestamp: 0,
  };
}

/** Key metadata as `b2_list_keys` returns it; `withSecret` only for `b2_create_key`. */
export function keyJson(accountId: string, key: KeyRecord, withSecret = false) {
  return {
    accountId,
    applicationKeyId: key.applicationKeyId,
    bucketIds: key.bucketIds,
    capabilities: key.capabilities,
    expirationTimestamp: key.expirationTimestamp,
    keyName: key.keyName,
    namePrefix: key.namePrefix,
    options: ['s3'],
    ...(withSecret ? { applicationKey: key.applicationKey } : {}),
  };
}

export function partJson(fileId: string, part: PartRecord) {
  return {
    fileId,
    partNumber: part.partNumber,
    contentLength: part.contentLength,
    contentSha1: part.contentSha1,
    contentMd5: part.contentMd5,
    uploadTimestamp: part.uploadTimestamp,
  };
}

export function s3EndpointFor(region: string): string {
  return `s3.${region}-004.backblazeb2.com`;
}

export function groupMemberJson(group: GroupRecord, member: GroupMember, statsAt: string) {
  return {
    accountId: member.accountId,
    b2Stats: {
      b2BytesStoredCount: member.b2BytesStoredCount,
      b2FilesStoredCount: member.b2FilesStoredCount,
      b2StatsAsOfTimestamp: statsAt,
      bucketCount: member.bucketCount,
    },
    email: member.email,
    groupId: group.groupId,
    groupName: group.groupName,
    region: member.region,
    s3Endpoint: s3EndpointFor(member.region),
  };
}

/** B2's compact timestamp form used by the Partner API, e.g. `d20240511_m221251`. */
export function b2StatsTimestamp(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `d${iso.slice(0, 10).replaceAll('-', '')}_m${iso.slice(11, 19).replaceAll(':', '')}`;
}
