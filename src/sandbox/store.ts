/**
 * The sandbox's single source of truth, shared by the native and the S3 front ends.
 *
 * Front ends authenticate callers, check capabilities (`access.ts`), call these methods, and record
 * the applied mutation in `mutations`. The store enforces what is true whichever API is used:
 * bucket name rules, Object Lock, emptiness before bucket deletion, large-file part rules.
 * Every refusal is a `SandboxError` carrying B2's status and code.
 */
import { createHash, randomBytes } from 'node:crypto';
import { bodySize } from './bodies.js';
import { SandboxError, accessDenied, badRequest, unauthorized } from './errors.js';
import {
  ALL_CAPABILITIES,
  type AuthToken,
  type BucketRecord,
  type BucketType,
  type Capability,
  type DefaultRetention,
  type FileRetention,
  type FileVersion,
  type GroupMember,
  type GroupRecord,
  type KeyRecord,
  type MutationRecord,
  type NotificationRule,
  type PartRecord,
  type ServerSideEncryption,
  type StoredBody,
  type TrialAccount,
  type UploadGrant,
} from './model.js';
import { compareCodePoints } from '../contract/code-point-order.js';
import { SortedList } from './sorted-list.js';

export const DAY_MS = 86_400_000;
const TOKEN_LIFETIME_MS = DAY_MS;
const MAX_BUCKETS = 100;
/** B2's `absoluteMinimumPartSize`: every part of a large file except the last must reach it. */
export const ABSOLUTE_MINIMUM_PART_SIZE = 5_000_000;
export const RECOMMENDED_PART_SIZE = 100_000_000;
export const MAX_LIST_COUNT = 10_000;
const MAX_KEY_DURATION_SECONDS = 86_400_000;
/** The region the sandbox account lives in (its S3 endpoint's SigV4 region). */
export const REGION = 'us-west-004';

export interface StoreOptions {
  clock?: () => number;
  /** Salt for every derived id and secret. Random by default; fix it for byte-identical runs. */
  idSalt?: string;
}

/** The settings a bucket is created or updated with: its record's writable fields. */
export type BucketSettings = Pick<
  BucketRecord,
  | 'bucketType'
  | 'bucketInfo'
  | 'corsRules'
  | 'lifecycleRules'
  | 'defaultServerSideEncryption'
  | 'fileLockEnabled'
  | 'defaultRetention'
  | 'replicationConfiguration'
>;

export interface NewKey {
  keyName: string;
  capabilities: Capability[];
  bucketIds?: string[] | null;
  namePrefix?: string | null;
  validDurationInSeconds?: number | null;
  /** Admin-only: fixed id/secret (canary values for leak tests). */
  applicationKeyId?: string;
  applicationKey?: string;
}

export interface NewFile {
  fileName: string;
  contentType: string;
  fileInfo?: Record<string, string>;
  body: StoredBody;
  contentSha1: string;
  contentMd5?: string | null;
  /** undefined = the bucket's default retention; null = no retention. */
  retention?: FileRetention | null;
  legalHold?: 'on' | 'off' | null;
  serverSideEncryption?: ServerSideEncryption;
  /** Override the upload time (seeding history). */
  uploadTimestamp?: number;
}

export type ListEntry = { kind: 'version'; version: FileVersion } | { kind: 'folder'; fileName: string };

export interface ListPage {
  entries: ListEntry[];
  nextFileName: string | null;
  nextFileId: string | null;
}

export interface ListOptions {
  startFileName?: string;
  startFileId?: string;
  maxFileCount: number;
  prefix?: string;
  delimiter?: string;
}

const NO_SSE: ServerSideEncryption = { mode: null, algorithm: null };
const NO_RETENTION: DefaultRetention = { mode: null, period: null };
const EMPTY_INFO: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** Versions of one name are consecutive; newest (highest seq) first — B2's listing order. */
export function compareVersions(a: FileVersion, b: FileVersion): number {
  return compareCodePoints(a.fileName, b.fileName) || b.seq - a.seq;
}

const FILE_ID_SEQ = /_f([0-9a-f]{12})_/;
/** The creation sequence encoded in a sandbox file id, or undefined for a foreign id. */
export function fileIdSeq(fileId: string): number | undefined {
  const m = FILE_ID_SEQ.exec(fileId);
  return m ? parseInt(m[1]!, 16) : undefined;
}

class MutationLog {
  private records: MutationRecord[] = [];
  private nextSeq = 1;

  record(entry: Omit<MutationRecord, 'seq'>): MutationRecord {
    const record = { seq: this.nextSeq++, ...entry };
    this.records.push(record);
    return record;
  }

  list(sinceSeq = 0): MutationRecord[] {
    return sinceSeq <= 0 ? [...this.records] : this.records.filter((r) => r.seq > sinceSeq);
  }

  get size(): number {
    return this.records.length;
  }

  /** Drops the entries; sequence numbers keep counting, so a later mark never sees an old number again. */
  clear(): void {
    this.records = [];
  }
}

export class SandboxStore {
  readonly accountId: string;
  readonly masterKeyId: string;
  readonly mutations = new MutationLog();

  private readonly clock: () => number;
  private readonly salt: string;
  private clockOffsetMs = 0;
  private counters = { seq: 0, key: 0, bucket: 0, token: 0, account: 0, group: 0 };
  private readonly keys = new Map<string, KeyRecord>();
  private readonly tokens = new Map<string, AuthToken>();
  private readonly uploadGrants = new Map<string, UploadGrant>();
  private readonly bucketsById = new Map<string, BucketRecord>();
  private readonly bucketsByName = new Map<string, BucketRecord>();
  private readonly filesById = new Map<string, FileVersion>();
  private readonly groups = new Map<string, GroupRecord>();
  private readonly trials: TrialAccount[] = [];
  private readonly knownEmails = new Set<string>();

  constructor(options: StoreOptions = {}) {
    this.clock = options.clock ?? Date.now;
    this.salt = options.idSalt ?? randomBytes(16).toString('hex');
    this.accountId = this.derive('account').slice(0, 12);
    this.masterKeyId = this.keyIdFor(0);
    this.keys.set(this.masterKeyId, {
      applicationKeyId: this.masterKeyId,
      applicationKey: this.secretFor('master'),
      keyName: 'master',
      capabilities: [...ALL_CAPABILITIES],
      bucketIds: null,
      namePrefix: null,
      expirationTimestamp: null,
      isMaster: true,
      createdAt: this.now(),
    });
  }

  // ── time and ids ────────────────────────────────────────────────────────

  now(): number {
    return this.clock() + this.clockOffsetMs;
  }

  advanceClock(ms: number): void {
    this.clockOffsetMs += ms;
  }

  get masterKey(): KeyRecord {
    return this.keys.get(this.masterKeyId)!;
  }

  private derive(label: string): string {
    return createHash('sha256').update(`${this.salt}\0${label}`).digest('hex');
  }

  private secretFor(label: string): string {
    return `K005${Buffer.from(this.derive(`secret:${label}`), 'hex')
      .toString('base64url')
      .slice(0, 27)}`;
  }

  private keyIdFor(n: number): string {
    return `005${this.accountId}${String(n).padStart(10, '0')}`;
  }

  private stampCache = { second: Number.NaN, text: '' };

  /**
   * B2-looking file ids: `4_z<bucketId>_f<seq as 12 hex digits>_d<yyyymmdd>_m<hhmmss>_c005_v0001`.
   * Built with `join` so the id is one flat string (a template literal would keep a rope of
   * pieces, several times larger, in every one of a million versions).
   */
  private newFileId(bucketId: string, seq: number, at: number): string {
    const second = Math.floor(at / 1000);
    if (this.stampCache.second !== second) {
      const iso = new Date(second * 1000).toISOString();
      this.stampCache = { second, text: `_d${iso.slice(0, 10).replaceAll('-', '')}_m${iso.slice(11, 19).replaceAll(':', '')}_c005_v0001` };
    }
    return ['4_z', bucketId, '_f', seq.toString(16).padStart(12, '0'), this.stampCache.text].join('');
  }

  // ── keys and tokens ─────────────────────────────────────────────────────

  getKey(applicationKeyId: string): KeyRecord | undefined {
    return this.keys.get(applicationKeyId);
  }

  /** The key for id + secret; the account id also names the master key, as on B2. */
  authenticate(applicationKeyId: string, applicationKey: string): KeyRecord {
    const id = applicationKeyId === this.accountId ? this.masterKeyId : applicationKeyId;
    const key = this.keys.get(id);
    if (!key || key.applicationKey !== applicationKey) throw unauthorized('invalid application key id or application key');
    if (key.expirationTimestamp !== null && key.expirationTimestamp <= this.now()) {
      throw unauthorized('application key has expired');
    }
    return key;
  }

  issueToken(key: KeyRecord): AuthToken {
    const n = ++this.counters.token;
    const lifetimeEnd = this.now() + TOKEN_LIFETIME_MS;
    const token: AuthToken = {
      token: `4_${key.applicationKeyId}_${this.derive(`token:${n}`).slice(0, 32)}_${n.toString(36)}`,
      applicationKeyId: key.applicationKeyId,
      expiresAt: key.expirationTimestamp === null ? lifetimeEnd : Math.min(lifetimeEnd, key.expirationTimestamp),
      revoked: false,
    };
    this.tokens.set(token.token, token);
    return token;
  }

  /** The key behind an account authorization token, or B2's 401 for a bad or expired one. */
  resolveToken(token: string | undefined): KeyRecord {
    const record = token ? this.tokens.get(token) : undefined;
    const key = record ? this.keys.get(record.applicationKeyId) : undefined;
    if (!record || !key) throw new SandboxError(401, 'bad_auth_token', 'Invalid authorization token');
    if (record.revoked || record.expiresAt <= this.now()) {
      throw new SandboxError(401, 'expired_auth_token', 'Authorization token has expired');
    }
    return key;
  }

  /** Expire every live token (of one key, if given); returns how many were expired. */
  expireTokens(applicationKeyId?: string): number {
    let n = 0;
    for (const record of this.tokens.values()) {
      if (record.revoked || (applicationKeyId && record.applicationKeyId !== applicationKeyId)) continue;
      record.revoked = true;
      n++;
    }
    return n;
  }

  /** Every token issued to a key and still known: account authorization tokens and upload grants. */
  tokensOf(applicationKeyId: string): string[] {
    const tokens: string[] = [];
    for (const record of [...this.tokens.values(), ...this.uploadGrants.values()])
      if (record.applicationKeyId === applicationKeyId) tokens.push(record.token);
    return tokens;
  }

  issueUploadGrant(key: KeyRecord, bucketId: string, largeFileId?: string): UploadGrant {
    const n = ++this.counters.token;
    const grant: UploadGrant = {
      token: `4_${key.applicationKeyId}_up_${this.derive(`upload:${n}`).slice(0, 32)}`,
      applicationKeyId: key.applicationKeyId,
      bucketId,
      ...(largeFileId ? { largeFileId } : {}),
      expiresAt: this.now() + TOKEN_LIFETIME_MS,
    };
    this.uploadGrants.set(grant.token, grant);
    return grant;
  }

  resolveUploadGrant(token: string | undefined): { grant: UploadGrant; key: KeyRecord } {
    const grant = token ? this.uploadGrants.get(token) : undefined;
    const key = grant ? this.keys.get(grant.applicationKeyId) : undefined;
    if (!grant || !key) throw new SandboxError(401, 'bad_auth_token', 'Invalid upload authorization token');
    if (grant.expiresAt <= this.now()) throw new SandboxError(401, 'expired_auth_token', 'Upload authorization token has expired');
    return { grant, key };
  }

  createKey(input: NewKey): KeyRecord {
    if (!/^[A-Za-z0-9-]{1,100}$/.test(input.keyName)) {
      throw badRequest('keyName must be 1-100 characters: letters, digits and "-"');
    }
    if (input.capabilities.length === 0) throw badRequest('capabilities must not be empty');
    for (const c of input.capabilities) {
      if (!(ALL_CAPABILITIES as readonly string[]).includes(c)) throw badRequest(`unknown capability: ${c}`);
    }
    const duration = input.validDurationInSeconds ?? null;
    if (duration !== null && (!Number.isInteger(duration) || duration < 1 || duration > MAX_KEY_DURATION_SECONDS)) {
      throw badRequest(`validDurationInSeconds must be an integer from 1 to ${MAX_KEY_DURATION_SECONDS}`);
    }
    const bucketIds = input.bucketIds ?? null;
    for (const id of bucketIds ?? []) this.requireBucket(id);
    if (bucketIds && bucketIds.length === 0) throw badRequest('bucketIds must not be empty');
    const n = ++this.counters.key;
    const applicationKeyId = input.applicationKeyId ?? this.keyIdFor(n);
    if (this.keys.has(applicationKeyId)) throw badRequest(`application key id already exists: ${applicationKeyId}`);
    const key: KeyRecord = {
      applicationKeyId,
      applicationKey: input.applicationKey ?? this.secretFor(`key:${n}`),
      keyName: input.keyName,
      capabilities: [...new Set(input.capabilities)],
      bucketIds: bucketIds ? [...new Set(bucketIds)] : null,
      namePrefix: input.namePrefix ?? null,
      expirationTimestamp: duration === null ? null : this.now() + duration * 1000,
      isMaster: false,
      createdAt: this.now(),
    };
    this.keys.set(applicationKeyId, key);
    return key;
  }

  deleteKey(applicationKeyId: string): KeyRecord {
    const key = this.keys.get(applicationKeyId);
    if (!key) throw badRequest(`application key does not exist: ${applicationKeyId}`);
    if (key.isMaster) throw badRequest('the master application key cannot be deleted');
    this.keys.delete(applicationKeyId);
    return key;
  }

  /** Non-master keys in id order, paged by `startApplicationKeyId`. */
  listKeys(options: { startApplicationKeyId?: string; maxKeyCount: number }): {
    keys: KeyRecord[];
    nextApplicationKeyId: string | null;
  } {
    const sorted = [...this.keys.values()].filter((k) => !k.isMaster).sort((a, b) => (a.applicationKeyId < b.applicationKeyId ? -1 : 1));
    const start = options.startApplicationKeyId ?? '';
    const from = sorted.findIndex((k) => k.applicationKeyId >= start);
    const page = from < 0 ? [] : sorted.slice(from, from + options.maxKeyCount);
    const next = from < 0 ? undefined : sorted[from + options.maxKeyCount];
    return { keys: page, nextApplicationKeyId: next ? next.applicationKeyId : null };
  }

  allKeys(): KeyRecord[] {
    return [...this.keys.values()];
  }

  // ── buckets ─────────────────────────────────────────────────────────────

  findBucketById(bucketId: string): BucketRecord | undefined {
    return this.bucketsById.get(bucketId);
  }

  findBucketByName(bucketName: string): BucketRecord | undefined {
    return this.bucketsByName.get(bucketName);
  }

  requireBucket(bucketId: string): BucketRecord {
    const bucket = this.bucketsById.get(bucketId);
    if (!bucket) throw new SandboxError(400, 'bad_bucket_id', `Invalid bucketId: ${bucketId}`);
    return bucket;
  }

  /** All buckets sorted by name. */
  listBuckets(): BucketRecord[] {
    return [...this.bucketsByName.values()].sort((a, b) => compareCodePoints(a.bucketName, b.bucketName));
  }

  createBucket(input: Partial<BucketSettings> & { bucketName: string; bucketType: BucketType; reserved?: boolean }): BucketRecord {
    if (!input.reserved) validateBucketName(input.bucketName);
    if (this.bucketsByName.has(input.bucketName)) {
      throw new SandboxError(400, 'duplicate_bucket_name', `Bucket name is already in use: ${input.bucketName}`);
    }
    if (this.bucketsById.size >= MAX_BUCKETS) {
      throw new SandboxError(400, 'too_many_buckets', `An account may have at most ${MAX_BUCKETS} buckets`);
    }
    const fileLockEnabled = input.fileLockEnabled ?? false;
    const defaultRetention = input.defaultRetention ?? NO_RETENTION;
    checkRetentionSettings(fileLockEnabled, defaultRetention);
    checkBucketInfo(input.bucketInfo ?? {});
    const n = ++this.counters.bucket;
    const bucket: BucketRecord = {
      bucketId: this.derive(`bucket:${n}`).slice(0, 24),
      bucketName: input.bucketName,
      bucketType: input.bucketType,
      bucketInfo: { ...(input.bucketInfo ?? {}) },
      corsRules: input.corsRules ?? [],
      lifecycleRules: input.lifecycleRules ?? [],
      defaultServerSideEncryption: input.defaultServerSideEncryption ?? NO_SSE,
      fileLockEnabled,
      defaultRetention,
      replicationConfiguration: input.replicationConfiguration ?? null,
      notificationRules: [],
      revision: 1,
      createdAt: this.now(),
      reserved: input.reserved ?? false,
      versions: new SortedList(compareVersions),
      unfinished: new Map(),
    };
    this.bucketsById.set(bucket.bucketId, bucket);
    this.bucketsByName.set(bucket.bucketName, bucket);
    return bucket;
  }

  updateBucket(bucketId: string, patch: Partial<BucketSettings> & { ifRevisionIs?: number }): BucketRecord {
    const bucket = this.requireBucket(bucketId);
    if (patch.ifRevisionIs !== undefined && patch.ifRevisionIs !== bucket.revision) {
      throw new SandboxError(409, 'conflict', `ifRevisionIs ${patch.ifRevisionIs} does not match revision ${bucket.revision}`);
    }
    if (bucket.reserved) throw unauthorized(`bucket ${bucket.bucketName} is reserved and cannot be modified`);
    if (patch.fileLockEnabled === false && bucket.fileLockEnabled) {
      throw new SandboxError(400, 'file_lock_conflict', 'Object Lock cannot be disabled once it is enabled');
    }
    const fileLockEnabled = patch.fileLockEnabled ?? bucket.fileLockEnabled;
    const defaultRetention = patch.defaultRetention ?? bucket.defaultRetention;
    checkRetentionSettings(fileLockEnabled, defaultRetention);
    if (patch.bucketInfo) checkBucketInfo(patch.bucketInfo);
    if (patch.bucketType) bucket.bucketType = patch.bucketType;
    if (patch.bucketInfo) bucket.bucketInfo = { ...patch.bucketInfo };
    if (patch.corsRules) bucket.corsRules = patch.corsRules;
    if (patch.lifecycleRules) bucket.lifecycleRules = patch.lifecycleRules;
    if (patch.defaultServerSideEncryption) bucket.defaultServerSideEncryption = patch.defaultServerSideEncryption;
    if (patch.replicationConfiguration !== undefined) bucket.replicationConfiguration = patch.replicationConfiguration;
    bucket.fileLockEnabled = fileLockEnabled;
    bucket.defaultRetention = defaultRetention;
    bucket.revision++;
    return bucket;
  }

  deleteBucket(bucketId: string): BucketRecord {
    const bucket = this.requireBucket(bucketId);
    if (bucket.versions.size > 0 || bucket.unfinished.size > 0) {
      throw new SandboxError(400, 'cannot_delete_non_empty_bucket', 'Cannot delete non-empty bucket');
    }
    this.bucketsById.delete(bucket.bucketId);
    this.bucketsByName.delete(bucket.bucketName);
    return bucket;
  }

  getNotificationRules(bucketId: string): NotificationRule[] {
    return this.requireBucket(bucketId).notificationRules;
  }

  /** Replace every rule of the bucket; suspension state of a kept rule name survives. */
  setNotificationRules(bucketId: string, rules: Array<Omit<NotificationRule, 'isSuspended' | 'suspensionReason'>>): NotificationRule[] {
    const bucket = this.requireBucket(bucketId);
    const names = new Set<string>();
    for (const rule of rules) {
      if (names.has(rule.name)) throw badRequest(`duplicate notification rule name: ${rule.name}`);
      names.add(rule.name);
    }
    const previous = new Map(bucket.notificationRules.map((r) => [r.name, r]));
    bucket.notificationRules = rules.map((rule) => ({
      ...rule,
      isSuspended: previous.get(rule.name)?.isSuspended ?? false,
      suspensionReason: previous.get(rule.name)?.suspensionReason ?? '',
    }));
    return bucket.notificationRules;
  }

  // ── files ───────────────────────────────────────────────────────────────

  findFile(fileId: string): FileVersion | undefined {
    return this.filesById.get(fileId);
  }

  /** The version with this id and name, or B2's `file_not_present`. */
  requireFile(fileId: string, fileName?: string): FileVersion {
    const file = this.filesById.get(fileId);
    if (!file || (fileName !== undefined && file.fileName !== fileName)) {
      throw new SandboxError(400, 'file_not_present', `File not present: ${fileName ?? ''} ${fileId}`.trim());
    }
    return file;
  }

  private addVersion(
    bucket: BucketRecord,
    version: Omit<FileVersion, 'fileId' | 'seq' | 'bucketId' | 'parts'> & { parts?: FileVersion['parts'] },
  ): FileVersion {
    const seq = ++this.counters.seq;
    const file = fileVersionRecord(version, {
      fileId: this.newFileId(bucket.bucketId, seq, version.uploadTimestamp),
      bucketId: bucket.bucketId,
      seq,
    });
    bucket.versions.insert(file);
    this.filesById.set(file.fileId, file);
    return file;
  }

  /** `explicit`: undefined = the bucket's default retention applies; null = none. */
  private retentionForNewFile(bucket: BucketRecord, explicit: FileRetention | null | undefined, at: number): FileRetention | null {
    if (explicit === null) return null;
    if (explicit) {
      if (!bucket.fileLockEnabled) throw badRequest('file retention requires a bucket with Object Lock enabled');
      return explicit;
    }
    const { mode, period } = bucket.defaultRetention;
    if (!bucket.fileLockEnabled || !mode || !period) return null;
    const days = period.unit === 'years' ? period.duration * 365 : period.duration;
    return { mode, retainUntilTimestamp: at + days * DAY_MS };
  }

  uploadFile(bucketId: string, input: NewFile): FileVersion {
    const bucket = this.requireBucket(bucketId);
    validateFileName(input.fileName);
    if (input.legalHold && !bucket.fileLockEnabled) throw badRequest('legal hold requires a bucket with Object Lock enabled');
    const at = input.uploadTimestamp ?? this.now();
    return this.addVersion(bucket, {
      fileName: input.fileName,
      action: 'upload',
      contentLength: bodySize(input.body),
      contentSha1: input.contentSha1,
      contentMd5: input.contentMd5 ?? null,
      contentType: input.contentType,
      fileInfo: input.fileInfo && Object.keys(input.fileInfo).length ? { ...input.fileInfo } : EMPTY_INFO,
      uploadTimestamp: at,
      body: input.body,
      retention: this.retentionForNewFile(bucket, input.retention, at),
      legalHold: input.legalHold ?? (bucket.fileLockEnabled ? 'off' : null),
      serverSideEncryption: input.serverSideEncryption ?? bucket.defaultServerSideEncryption,
    });
  }

  /** A hide marker: the name disappears from name listings; its versions stay. */
  hideFile(bucketId: string, fileName: string, at = this.now()): FileVersion {
    const bucket = this.requireBucket(bucketId);
    validateFileName(fileName);
    return this.addVersion(bucket, {
      fileName,
      action: 'hide',
      contentLength: 0,
      contentSha1: 'none',
      contentMd5: null,
      contentType: 'application/x-bz-hide-marker',
      fileInfo: EMPTY_INFO,
      uploadTimestamp: at,
      body: null,
      retention: null,
      legalHold: null,
      serverSideEncryption: NO_SSE,
    });
  }

  /** The newest finished version of a name, unless a hide marker is newer. */
  latestVisible(bucketId: string, fileName: string): FileVersion | undefined {
    const bucket = this.requireBucket(bucketId);
    const cursor = bucket.versions.lowerBound((v) => compareCodePoints(v.fileName, fileName) < 0);
    for (const v of bucket.versions.from(cursor)) {
      if (v.fileName !== fileName) return undefined;
      if (v.action === 'start') continue;
      return v.action === 'upload' ? v : undefined;
    }
    return undefined;
  }

  /** Object Lock decides whether this version may be deleted now. */
  checkDeletable(file: FileVersion, bypassGovernance: boolean): void {
    if (file.legalHold === 'on') throw accessDenied(`file ${file.fileName} is under legal hold and cannot be deleted`);
    const retention = file.retention;
    if (!retention || retention.retainUntilTimestamp <= this.now()) return;
    if (retention.mode === 'compliance') {
      throw accessDenied(
        `file ${file.fileName} is under compliance retention until ${new Date(retention.retainUntilTimestamp).toISOString()}`,
      );
    }
    if (!bypassGovernance) {
      throw accessDenied(`file ${file.fileName} is under governance retention; bypassGovernance is required to delete it`);
    }
  }

  deleteFileVersion(fileId: string, fileName: string, options: { bypassGovernance: boolean }): FileVersion {
    const file = this.requireFile(fileId, fileName);
    if (file.action === 'start') return this.cancelLargeFile(fileId);
    this.checkDeletable(file, options.bypassGovernance);
    this.removeVersion(file);
    return file;
  }

  private removeVersion(file: FileVersion): void {
    const bucket = this.requireBucket(file.bucketId);
    bucket.versions.remove(file);
    bucket.unfinished.delete(file.fileId);
    this.filesById.delete(file.fileId);
  }

  setLegalHold(fileId: string, fileName: string, legalHold: 'on' | 'off'): FileVersion {
    const file = this.requireFile(fileId, fileName);
    if (!this.requireBucket(file.bucketId).fileLockEnabled) {
      throw badRequest('legal hold requires a bucket with Object Lock enabled');
    }
    if (file.action === 'hide') throw badRequest('a hide marker cannot have a legal hold');
    file.legalHold = legalHold;
    return file;
  }

  /**
   * Set (or clear, with null) a version's retention. Extending is always allowed; shortening,
   * clearing or downgrading an active governance retention needs `bypassGovernance`; an active
   * compliance retention can only be extended.
   */
  setRetention(fileId: string, fileName: string, next: FileRetention | null, options: { bypassGovernance: boolean }): FileVersion {
    const file = this.requireFile(fileId, fileName);
    if (!this.requireBucket(file.bucketId).fileLockEnabled) {
      throw badRequest('file retention requires a bucket with Object Lock enabled');
    }
    if (file.action === 'hide') throw badRequest('a hide marker cannot have a retention setting');
    if (next && next.retainUntilTimestamp <= this.now()) throw badRequest('retainUntilTimestamp must be in the future');
    const current = file.retention;
    if (current && current.retainUntilTimestamp > this.now()) {
      const weakens =
        next === null ||
        next.retainUntilTimestamp < current.retainUntilTimestamp ||
        (current.mode === 'compliance' && next.mode === 'governance');
      if (weakens && current.mode === 'compliance') {
        throw accessDenied(`file ${file.fileName} is under compliance retention, which can only be extended`);
      }
      if (weakens && !options.bypassGovernance) {
        throw accessDenied(`shortening or removing governance retention of ${file.fileName} requires bypassGovernance`);
      }
    }
    file.retention = next;
    return file;
  }

  listFileVersions(bucketId: string, options: ListOptions): ListPage {
    return this.listEntries(this.requireBucket(bucketId), options, false);
  }

  /** Latest visible version per name (uploads only), plus folders when a delimiter is given. */
  listFileNames(bucketId: string, options: Omit<ListOptions, 'startFileId'>): ListPage {
    return this.listEntries(this.requireBucket(bucketId), options, true);
  }

  private listEntries(bucket: BucketRecord, options: ListOptions, namesOnly: boolean): ListPage {
    const prefix = options.prefix ?? '';
    const delimiter = options.delimiter || undefined;
    let startName = options.startFileName ?? '';
    let startSeq = Number.POSITIVE_INFINITY;
    if (options.startFileId !== undefined) {
      const seq = fileIdSeq(options.startFileId);
      if (seq === undefined) throw badRequest(`invalid startFileId: ${options.startFileId}`);
      if (options.startFileName === undefined) throw badRequest('startFileName is required with startFileId');
      startSeq = seq;
    }
    if (compareCodePoints(startName, prefix) < 0) {
      startName = prefix;
      startSeq = Number.POSITIVE_INFINITY;
    }
    const versions = bucket.versions;
    const entries: ListEntry[] = [];
    let iterator = versions.from(
      versions.lowerBound((v) => {
        const c = compareCodePoints(v.fileName, startName);
        return c < 0 || (c === 0 && v.seq > startSeq);
      }),
    );
    let decidedName: string | undefined;
    for (let step = iterator.next(); !step.done; step = iterator.next()) {
      const v = step.value;
      if (!v.fileName.startsWith(prefix)) {
        if (compareCodePoints(v.fileName, prefix) > 0) break;
        continue;
      }
      if (delimiter) {
        const cut = v.fileName.indexOf(delimiter, prefix.length);
        if (cut >= 0) {
          const folder = v.fileName.slice(0, cut + delimiter.length);
          if (!namesOnly || this.folderHasVisibleFile(bucket, folder)) {
            if (entries.length === options.maxFileCount) return { entries, nextFileName: folder, nextFileId: null };
            entries.push({ kind: 'folder', fileName: folder });
          }
          iterator = versions.from(versions.lowerBound((x) => compareCodePoints(x.fileName, folder) < 0 || x.fileName.startsWith(folder)));
          continue;
        }
      }
      if (namesOnly) {
        if (v.fileName === decidedName || v.action === 'start') continue;
        decidedName = v.fileName;
        if (v.action !== 'upload') continue;
      }
      if (entries.length === options.maxFileCount) {
        return { entries, nextFileName: v.fileName, nextFileId: namesOnly ? null : v.fileId };
      }
      entries.push({ kind: 'version', version: v });
    }
    return { entries, nextFileName: null, nextFileId: null };
  }

  private folderHasVisibleFile(bucket: BucketRecord, folder: string): boolean {
    let decided: string | undefined;
    for (const v of bucket.versions.from(bucket.versions.lowerBound((x) => compareCodePoints(x.fileName, folder) < 0))) {
      if (!v.fileName.startsWith(folder)) return false;
      if (v.fileName === decided || v.action === 'start') continue;
      if (v.action === 'upload') return true;
      decided = v.fileName;
    }
    return false;
  }

  // ── large files ─────────────────────────────────────────────────────────

  startLargeFile(
    bucketId: string,
    input: Omit<NewFile, 'body' | 'contentSha1' | 'contentMd5'> & { uploadTimestamp?: number },
  ): FileVersion {
    const bucket = this.requireBucket(bucketId);
    validateFileName(input.fileName);
    if (input.legalHold && !bucket.fileLockEnabled) throw badRequest('legal hold requires a bucket with Object Lock enabled');
    const at = input.uploadTimestamp ?? this.now();
    const file = this.addVersion(bucket, {
      fileName: input.fileName,
      action: 'start',
      contentLength: 0,
      contentSha1: 'none',
      contentMd5: null,
      contentType: input.contentType,
      fileInfo: input.fileInfo && Object.keys(input.fileInfo).length ? { ...input.fileInfo } : EMPTY_INFO,
      uploadTimestamp: at,
      body: null,
      retention: this.retentionForNewFile(bucket, input.retention, at),
      legalHold: input.legalHold ?? (bucket.fileLockEnabled ? 'off' : null),
      serverSideEncryption: input.serverSideEncryption ?? bucket.defaultServerSideEncryption,
      parts: new Map(),
    });
    bucket.unfinished.set(file.fileId, file);
    return file;
  }

  requireUnfinished(fileId: string): FileVersion {
    const file = this.filesById.get(fileId);
    if (file?.action !== 'start') throw badRequest(`no unfinished large file with id ${fileId}`);
    return file;
  }

  uploadPart(
    fileId: string,
    part: { partNumber: number; body: StoredBody; contentSha1: string; contentMd5: string; uploadTimestamp?: number },
  ): PartRecord {
    const file = this.requireUnfinished(fileId);
    if (!Number.isInteger(part.partNumber) || part.partNumber < 1 || part.partNumber > 10_000) {
      throw badRequest('partNumber must be an integer from 1 to 10000');
    }
    const record: PartRecord = {
      partNumber: part.partNumber,
      contentLength: bodySize(part.body),
      contentSha1: part.contentSha1,
      contentMd5: part.contentMd5,
      body: part.body,
      uploadTimestamp: part.uploadTimestamp ?? this.now(),
    };
    file.parts!.set(part.partNumber, record);
    return record;
  }

  listParts(
    fileId: string,
    options: { startPartNumber?: number; maxPartCount: number },
  ): {
    parts: PartRecord[];
    nextPartNumber: number | null;
  } {
    const file = this.requireUnfinished(fileId);
    const sorted = [...file.parts!.values()]
      .filter((p) => p.partNumber >= (options.startPartNumber ?? 1))
      .sort((a, b) => a.partNumber - b.partNumber);
    const page = sorted.slice(0, options.maxPartCount);
    const next = sorted[options.maxPartCount];
    return { parts: page, nextPartNumber: next ? next.partNumber : null };
  }

  /**
   * Assemble the parts into a finished version. Native callers pass the SHA-1 of every part
   * 1..n; S3 callers pass the chosen part numbers. All parts but the last must reach
   * `minimumPartSize` (B2's 5 MB by default).
   */
  finishLargeFile(
    fileId: string,
    choice: { partSha1Array: string[] } | { partNumbers: number[] },
    minimumPartSize = ABSOLUTE_MINIMUM_PART_SIZE,
  ): FileVersion {
    const file = this.requireUnfinished(fileId);
    const parts = file.parts!;
    let chosen: PartRecord[];
    if ('partSha1Array' in choice) {
      if (choice.partSha1Array.length === 0) throw badRequest('partSha1Array must not be empty');
      chosen = choice.partSha1Array.map((sha1, i) => {
        const part = parts.get(i + 1);
        if (!part) throw badRequest(`Part number ${i + 1} has not been uploaded`);
        if (part.contentSha1 !== sha1) throw badRequest(`Part number ${i + 1} has SHA-1 ${part.contentSha1}, not ${sha1}`);
        return part;
      });
    } else {
      if (choice.partNumbers.length === 0) throw badRequest('at least one part is required');
      chosen = choice.partNumbers.map((n, i) => {
        const part = parts.get(n);
        if (!part) throw new SandboxError(400, 'invalid_part', `Part number ${n} has not been uploaded`);
        if (i > 0 && n <= choice.partNumbers[i - 1]!) throw new SandboxError(400, 'invalid_part_order', 'part numbers must ascend');
        return part;
      });
    }
    chosen.slice(0, -1).forEach((p) => {
      if (p.contentLength < minimumPartSize) {
        throw new SandboxError(400, 'part_too_small', `Part number ${p.partNumber} is smaller than ${minimumPartSize} bytes`);
      }
    });
    const size = chosen.reduce((n, p) => n + p.contentLength, 0);
    file.action = 'upload';
    file.body = { kind: 'concat', pieces: chosen.map((p) => p.body), size };
    file.contentLength = size;
    file.parts = undefined;
    this.requireBucket(file.bucketId).unfinished.delete(fileId);
    return file;
  }

  cancelLargeFile(fileId: string): FileVersion {
    const file = this.requireUnfinished(fileId);
    this.removeVersion(file);
    return file;
  }

  /** Unfinished large files in start order, paged by `startFileId`. */
  listUnfinishedLargeFiles(
    bucketId: string,
    options: { namePrefix?: string; startFileId?: string; maxFileCount: number },
  ): {
    files: FileVersion[];
    nextFileId: string | null;
  } {
    const bucket = this.requireBucket(bucketId);
    const startSeq = options.startFileId === undefined ? 0 : fileIdSeq(options.startFileId);
    if (startSeq === undefined) throw badRequest(`invalid startFileId: ${options.startFileId}`);
    const files: FileVersion[] = [];
    for (const file of bucket.unfinished.values()) {
      if (file.seq < startSeq || !file.fileName.startsWith(options.namePrefix ?? '')) continue;
      if (files.length === options.maxFileCount) return { files, nextFileId: file.fileId };
      files.push(file);
    }
    return { files, nextFileId: null };
  }

  // ── Partner / Groups ────────────────────────────────────────────────────

  createGroup(groupName: string): GroupRecord {
    const group: GroupRecord = { groupId: String(100_000 + ++this.counters.group), groupName, createdAt: this.now(), members: [] };
    this.groups.set(group.groupId, group);
    return group;
  }

  trialAccounts(): readonly TrialAccount[] {
    return this.trials;
  }

  listGroups(): GroupRecord[] {
    return [...this.groups.values()].sort((a, b) => Number(a.groupId) - Number(b.groupId));
  }

  requireGroup(groupId: string): GroupRecord {
    const group = this.groups.get(groupId);
    if (!group) throw badRequest(`group ${groupId} does not exist or is not administered by this account`);
    return group;
  }

  private newAccountId(): string {
    return this.derive(`member-account:${++this.counters.account}`).slice(0, 12);
  }

  private claimEmail(email: string): void {
    const normalized = email.toLowerCase();
    if (this.knownEmails.has(normalized)) throw badRequest(`an account already exists for ${email}`);
    this.knownEmails.add(normalized);
  }

  /** Creates a member account; returns it with a key id and secret for that account. */
  addGroupMember(
    groupId: string,
    email: string,
    region: string,
  ): { member: GroupMember; applicationKeyId: string; applicationKey: string } {
    const group = this.requireGroup(groupId);
    if (group.members.filter((m) => !m.ejected).length >= 5000) throw badRequest('a group may have at most 5000 members');
    this.claimEmail(email);
    const member: GroupMember = {
      accountId: this.newAccountId(),
      email,
      region,
      ejected: false,
      b2BytesStoredCount: 0,
      b2FilesStoredCount: 0,
      bucketCount: 0,
    };
    group.members.push(member);
    return {
      member,
      applicationKeyId: `005${member.accountId}0000000000`,
      applicationKey: this.secretFor(`member:${member.accountId}`),
    };
  }

  ejectGroupMember(groupId: string, memberAccountId: string, newEmail?: string): GroupMember {
    const group = this.requireGroup(groupId);
    const member = group.members.find((m) => m.accountId === memberAccountId && !m.ejected);
    if (!member) throw badRequest(`account ${memberAccountId} is not a member of group ${groupId}`);
    if (newEmail && newEmail.toLowerCase() !== member.email.toLowerCase()) {
      this.claimEmail(newEmail);
      member.email = newEmail;
    }
    member.ejected = true;
    return member;
  }

  reserveTrialAccount(input: { email: string; region: string; term: number; storage: number }): TrialAccount & {
    applicationKeyId: string;
    applicationKey: string;
  } {
    this.claimEmail(input.email);
    const accountId = this.newAccountId();
    const start = new Date(this.now()).toISOString().slice(0, 10);
    const end = new Date(Date.parse(start) + input.term * DAY_MS).toISOString().slice(0, 10);
    const trial: TrialAccount = {
      accountId,
      email: input.email,
      region: input.region,
      startDate: start,
      endDate: end,
      storageTb: input.storage,
      bucketId: this.derive(`trial-bucket:${accountId}`).slice(0, 24),
      bucketName: `b2-partner-trial-${accountId}`,
    };
    this.trials.push(trial);
    return { ...trial, applicationKeyId: `005${accountId}0000000001`, applicationKey: this.secretFor(`trial:${accountId}`) };
  }

  // ── whole state ─────────────────────────────────────────────────────────

  /** Forget everything but the account and its master key (tokens of the master key survive). */
  clear(): void {
    for (const id of [...this.keys.keys()]) if (id !== this.masterKeyId) this.keys.delete(id);
    for (const [token, record] of this.tokens) if (record.applicationKeyId !== this.masterKeyId) this.tokens.delete(token);
    this.uploadGrants.clear();
    this.bucketsById.clear();
    this.bucketsByName.clear();
    this.filesById.clear();
    this.groups.clear();
    this.trials.length = 0;
    this.knownEmails.clear();
    this.counters = { seq: 0, key: 0, bucket: 0, token: this.counters.token, account: 0, group: 0 };
    this.clockOffsetMs = 0;
    this.mutations.clear();
  }

  stats(): { buckets: number; keys: number; fileVersions: number; unfinishedLargeFiles: number; groups: number; mutations: number } {
    let unfinished = 0;
    for (const b of this.bucketsById.values()) unfinished += b.unfinished.size;
    return {
      buckets: this.bucketsById.size,
      keys: this.keys.size,
      fileVersions: this.filesById.size,
      unfinishedLargeFiles: unfinished,
      groups: this.groups.size,
      mutations: this.mutations.size,
    };
  }

  /** Internal access for persistence; not for front ends. */
  internals() {
    return {
      salt: this.salt,
      counters: this.counters,
      setCounters: (c: typeof this.counters) => (this.counters = { ...c }),
      keys: this.keys,
      bucketsById: this.bucketsById,
      bucketsByName: this.bucketsByName,
      filesById: this.filesById,
      groups: this.groups,
      trials: this.trials,
      knownEmails: this.knownEmails,
      clockOffsetMs: () => this.clockOffsetMs,
      setClockOffset: (ms: number) => (this.clockOffsetMs = ms),
    };
  }
}

/**
 * A file version as an object literal with every field in one fixed order, so all versions share
 * one compact hidden class (an object spread here costs about four times the memory per version).
 */
export function fileVersionRecord(
  v: Omit<FileVersion, 'fileId' | 'bucketId' | 'seq' | 'parts'> & { parts?: FileVersion['parts'] },
  id: Pick<FileVersion, 'fileId' | 'bucketId' | 'seq'>,
): FileVersion {
  return {
    fileId: id.fileId,
    fileName: v.fileName,
    bucketId: id.bucketId,
    seq: id.seq,
    action: v.action,
    contentLength: v.contentLength,
    contentSha1: v.contentSha1,
    contentMd5: v.contentMd5,
    contentType: v.contentType,
    fileInfo: v.fileInfo,
    uploadTimestamp: v.uploadTimestamp,
    body: v.body,
    retention: v.retention,
    legalHold: v.legalHold,
    serverSideEncryption: v.serverSideEncryption,
    parts: v.parts ?? undefined,
  };
}

/** B2 bucket names: 6-63 letters, digits and hyphens, not starting with the reserved `b2-`. */
function validateBucketName(name: string): void {
  if (name.length < 6 || name.length > 63) throw badRequest(`bucket name must be 6-63 characters long: ${name}`);
  if (!/^[A-Za-z0-9-]+$/.test(name)) throw badRequest(`bucket name may contain only letters, digits and "-": ${name}`);
  if (/^b2-/i.test(name)) throw badRequest(`bucket names starting with "b2-" are reserved: ${name}`);
}

/**
 * File names: 1-1024 bytes of UTF-8 without NUL or DEL. Deliberately looser than B2 (which also
 * refuses other control characters) so hostile names with newlines and tabs can exercise output
 * escaping end to end; see the sandbox README section.
 */
export function validateFileName(name: string): void {
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes < 1 || bytes > 1024) throw badRequest('file name must be 1-1024 bytes of UTF-8');
  if (/[\u0000\u007f]/.test(name)) throw badRequest('file name must not contain NUL or DEL');
}

function checkBucketInfo(info: Record<string, string>): void {
  if (Object.keys(info).length > 10) throw badRequest('bucketInfo may have at most 10 entries');
}

function checkRetentionSettings(fileLockEnabled: boolean, retention: DefaultRetention): void {
  if (retention.mode === null && retention.period === null) return;
  if (!fileLockEnabled) throw badRequest('default retention requires Object Lock to be enabled on the bucket');
  if (retention.mode === null || retention.period === null) {
    throw badRequest('defaultRetention needs both mode and period, or neither');
  }
  if (!Number.isInteger(retention.period.duration) || retention.period.duration <= 0) {
    throw badRequest('defaultRetention.period.duration must be a positive integer');
  }
}
