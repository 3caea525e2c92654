/**
 * What an application key may do: capability, bucket restriction and name prefix — the checks
 * B2 applies before an operation. Front ends call `requireAccess` and render the refusal their way
 * (native: 401 `unauthorized`; S3: 403 `AccessDenied`).
 */
import { unauthorized } from './errors.js';
import type { BucketRecord, Capability, KeyRecord } from './model.js';

export interface AccessNeed {
  capability: Capability;
  /** The bucket the operation touches; bucket-restricted keys may only touch theirs. */
  bucket?: BucketRecord;
  /** A file name the operation touches; it must start with the key's name prefix. */
  fileName?: string;
  /** A listing prefix; it must start with the key's name prefix. */
  listPrefix?: string;
}

export function hasCapability(key: KeyRecord, capability: Capability): boolean {
  return key.capabilities.includes(capability);
}

export function keyAllowsBucket(key: KeyRecord, bucketId: string): boolean {
  return key.bucketIds === null || key.bucketIds.includes(bucketId);
}

export function requireAccess(key: KeyRecord, need: AccessNeed): void {
  if (!hasCapability(key, need.capability)) {
    throw unauthorized(`application key lacks the ${need.capability} capability`);
  }
  if (need.bucket && !keyAllowsBucket(key, need.bucket.bucketId)) {
    throw unauthorized(`application key is not allowed to access bucket ${need.bucket.bucketName}`);
  }
  const prefix = key.namePrefix;
  if (prefix) {
    if (need.fileName !== undefined && !need.fileName.startsWith(prefix)) {
      throw unauthorized(`application key is restricted to file names starting with "${prefix}"`);
    }
    if (need.listPrefix !== undefined && !need.listPrefix.startsWith(prefix)) {
      throw unauthorized(`application key is restricted to file names starting with "${prefix}"; list with a matching prefix`);
    }
  }
}
