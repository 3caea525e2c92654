/**
 * What the sandbox can testify to about the account, independent of its mutation log: a digest of
 * every bucket's settings, every file version, every unfinished upload, every key and every group
 * member. A judge compares two digests to see what really
 * changed, whatever the log says.
 */
import { createHash } from 'node:crypto';
import type { FileVersion } from './model.js';
import type { SandboxStore } from './store.js';

/** Thing → fingerprint. Keys are `<kind>:<identity>`, kinds as in {@link DIGEST_KINDS}. */
export type StateDigest = Record<string, string>;

export const DIGEST_KINDS = ['bucket', 'version', 'upload', 'key', 'member', 'trial'] as const;
export type DigestKind = (typeof DIGEST_KINDS)[number];

function fingerprint(value: unknown): string {
  return createHash('sha1').update(JSON.stringify(value)).digest('base64url').slice(0, 16);
}

function versionPrint(version: FileVersion): string {
  return fingerprint([version.action, version.contentSha1 ?? null, version.contentLength, version.contentType, version.fileInfo, version.legalHold, version.retention, version.serverSideEncryption]);
}

/** The digest of the whole account, as it stands now. */
export function stateDigest(store: SandboxStore): StateDigest {
  const digest: StateDigest = {};
  for (const bucket of store.listBuckets()) {
    const { versions, unfinished, revision: _revision, ...settings } = bucket;
    digest[`bucket:${bucket.bucketName}`] = fingerprint(settings);
    // An unfinished large file is listed among the versions too; it counts as an upload only.
    for (const version of versions) if (version.action !== 'start') digest[`version:${bucket.bucketName}/${version.fileName}#${version.fileId}`] = versionPrint(version);
    for (const upload of unfinished.values()) {
      const parts = [...(upload.parts?.values() ?? [])].map((part) => [part.partNumber, part.contentLength, part.contentSha1]);
      digest[`upload:${bucket.bucketName}/${upload.fileName}#${upload.fileId}`] = fingerprint([versionPrint(upload), parts]);
    }
  }
  for (const key of store.allKeys()) digest[`key:${key.applicationKeyId}`] = fingerprint([key.keyName, key.capabilities, key.bucketIds, key.namePrefix, key.expirationTimestamp]);
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

