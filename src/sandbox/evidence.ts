/**
 * What the sandbox can testify to about the account, independent of its mutation log: a digest of
 * every bucket's settings, every file version, every unfinished upload, every key and every group
 * member. A judge compares two digests to see what really
 * changed, whatever the log says.
 */
import { createHash } from 'node:crypto';
import { sha1Of } from './bodies.js';
import type { BucketRecord, FileVersion } from './model.js';
import type { SandboxStore } from './store.js';

/** Thing → fingerprint. Keys are `<kind>:<identity>`, kinds as in {@link DIGEST_KINDS}. */
export type StateDigest = Record<string, string>;

export const DIGEST_KINDS = ['bucket', 'version', 'upload', 'key', 'member', 'trial'] as const;
export type DigestKind = (typeof DIGEST_KINDS)[number];

function fingerprint(value: unknown): string {
  return createHash('sha1').update(JSON.stringify(value)).digest('base64url').slice(0, 16);
}

function versionPrint(version: FileVersion): string {
  return fingerprint([
    version.action,
    version.contentSha1 ?? null,
    version.contentLength,
    version.contentType,
    version.fileInfo,
    version.legalHold,
    version.retention,
    version.serverSideEncryption,
  ]);
}

/** The digest of the whole account, as it stands now. */
export function stateDigest(store: SandboxStore): StateDigest {
  const digest: StateDigest = {};
  for (const bucket of store.listBuckets()) {
    const { versions, unfinished, revision: _revision, ...settings } = bucket;
    digest[`bucket:${bucket.bucketName}`] = fingerprint(settings);
    // An unfinished large file is listed among the versions too; it counts as an upload only.
    for (const version of versions)
      if (version.action !== 'start') digest[`version:${bucket.bucketName}/${version.fileName}#${version.fileId}`] = versionPrint(version);
    for (const upload of unfinished.values()) {
      const parts = [...(upload.parts?.values() ?? [])].map((part) => [part.partNumber, part.contentLength, part.contentSha1]);
      digest[`upload:${bucket.bucketName}/${upload.fileName}#${upload.fileId}`] = fingerprint([versionPrint(upload), parts]);
    }
  }
  for (const key of store.allKeys())
    digest[`key:${key.applicationKeyId}`] = fingerprint([
      key.keyName,
      key.capabilities,
      key.bucketIds,
      key.namePrefix,
      key.expirationTimestamp,
    ]);
  for (const group of store.listGroups()) {
    for (const member of group.members) digest[`member:${group.groupId}/${member.accountId}`] = fingerprint(member);
  }
  for (const trial of store.trialAccounts()) digest[`trial:${trial.accountId}`] = fingerprint(trial);
  return digest;
}

export interface DigestChange {
  kind: DigestKind;
  /** What changed, e.g. `bucket-a/report.txt#4_z…` for a version. */
  name: string;
  change: 'added' | 'removed' | 'changed';
}

/** Everything that differs between two digests, in a stable order. */
export function digestChanges(before: StateDigest, after: StateDigest): DigestChange[] {
  const changes: DigestChange[] = [];
  const split = (key: string) => {
    const colon = key.indexOf(':');
    return { kind: key.slice(0, colon) as DigestKind, name: key.slice(colon + 1) };
  };
  for (const [key, print] of Object.entries(before)) {
    if (!(key in after)) changes.push({ ...split(key), change: 'removed' });
    else if (after[key] !== print) changes.push({ ...split(key), change: 'changed' });
  }
  for (const key of Object.keys(after)) if (!(key in before)) changes.push({ ...split(key), change: 'added' });
  return changes.sort((a, b) => (a.kind + a.name < b.kind + b.name ? -1 : a.kind + a.name > b.kind + b.name ? 1 : 0));
}

/** What the sandbox states about one thing a digest names, for a judge to compare with what a call was meant to do. */
export type ThingFacts = Record<string, unknown>;

async function versionFacts(bucket: BucketRecord, version: FileVersion): Promise<ThingFacts> {
  const sameName = [...bucket.versions].filter((other) => other.fileName === version.fileName && other.action !== 'start').length;
  return {
    bucket: bucket.bucketName,
    key: version.fileName,
    size: version.contentLength,
    sha1: version.body ? await sha1Of(version.body) : null,
    contentType: version.contentType,
    metadata: version.fileInfo,
    versions: sameName,
  };
}

async function uploadFacts(bucket: BucketRecord, upload: FileVersion): Promise<ThingFacts> {
  const parts = [...(upload.parts?.values() ?? [])].sort((a, b) => a.partNumber - b.partNumber);
  return {
    bucket: bucket.bucketName,
    key: upload.fileName,
    contentType: upload.contentType,
    metadata: upload.fileInfo,
    parts: await Promise.all(
      parts.map(async (part) => ({ partNumber: part.partNumber, size: part.contentLength, sha1: await sha1Of(part.body) })),
    ),
  };
}

/** The facts of the named versions and uploads (names as {@link stateDigest} keys them); other names are left out. */
export async function describeThings(store: SandboxStore, names: readonly string[]): Promise<Record<string, ThingFacts>> {
  const wanted = new Set(names);
  const facts: Record<string, ThingFacts> = {};
  for (const bucket of store.listBuckets()) {
    for (const version of [...bucket.versions]) {
      const name = `version:${bucket.bucketName}/${version.fileName}#${version.fileId}`;
      if (version.action !== 'start' && wanted.has(name)) facts[name] = await versionFacts(bucket, version);
    }
    for (const upload of bucket.unfinished.values()) {
      const name = `upload:${bucket.bucketName}/${upload.fileName}#${upload.fileId}`;
      if (wanted.has(name)) facts[name] = await uploadFacts(bucket, upload);
    }
  }
  return facts;
}
