/**
 * Bucket operations: HeadBucket, GetBucketLocation, and lifecycle configuration. S3 lifecycle
 * rules become the bucket's B2 lifecycle rules (one store), within what B2 can express:
 *   Expiration.Days                         → daysFromUploadingToHiding
 *   NoncurrentVersionExpiration.NoncurrentDays → daysFromHidingToDeleting
 *   AbortIncompleteMultipartUpload.DaysAfterInitiation → daysFromStartingToCancelingUnfinishedLargeFiles
 * Transitions, expiration dates and tag filters have no B2 equivalent and are refused.
 */
import { hasCapability } from '../access.js';
import type { LifecycleRule } from '../model.js';
import { REGION } from '../store.js';
import { invalidArgument, invalidRequest, malformedXml } from './errors.js';
import { readSmallBody } from './ingest.js';
import { bucketFor, keyOf, requireAnyCapability, type Operation, type S3State } from './operation.js';
import { childList, childNode, childText, parseXml, xmlDocument } from './xml.js';

const MAX_RULES = 1000;
const XML_BODY_LIMIT = 1024 * 1024;

function readableBucket(state: S3State): Operation {
  return async (call) => {
    const key = keyOf(call);
    requireAnyCapability(key, ['listBuckets', 'listAllBucketNames']);
    bucketFor(state, call, { capability: hasCapability(key, 'listBuckets') ? 'listBuckets' : 'listAllBucketNames' });
    return { status: 200, headers: { 'x-amz-bucket-region': REGION } };
  };
}

function getBucketLocation(state: S3State): Operation {
  const head = readableBucket(state);
  return async (call) => {
    await head(call);
    return { status: 200, xml: xmlDocument('LocationConstraint', { '#text': REGION }) };
  };
}

function days(node: unknown, name: string, where: string): number | null {
  const text = childText(node, name);
  if (text === undefined) return null;
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1) throw invalidArgument(`${where}.${name} must be a positive whole number of days`);
  return Number(text);
}

/** One S3 rule → one B2 rule, or null for a disabled rule (B2 rules have no off switch). */
function b2Rule(rule: unknown, index: number): { id: string; rule: LifecycleRule | null } {
  const id = childText(rule, 'ID') ?? `rule-${index + 1}`;
  const status = childText(rule, 'Status');
  if (status !== 'Enabled' && status !== 'Disabled') throw malformedXml(`rule ${id}: Status must be Enabled or Disabled`);
  if (childNode(rule, 'Transition') || childNode(rule, 'NoncurrentVersionTransition')) {
    throw invalidArgument(`rule ${id}: B2 has one storage class; Transition rules are not supported`);
  }
  const filter = childNode(rule, 'Filter');
  if (
    filter &&
    (childNode(filter, 'Tag') ||
      childNode(filter, 'And') ||
      childText(filter, 'ObjectSizeGreaterThan') ||
      childText(filter, 'ObjectSizeLessThan'))
  ) {
    throw invalidArgument(`rule ${id}: B2 lifecycle rules filter by prefix only`);
  }
  const expiration = childNode(rule, 'Expiration');
  if (expiration && childText(expiration, 'Date') !== undefined)
    throw invalidArgument(`rule ${id}: B2 lifecycle rules count days; Expiration.Date is not supported`);
  const noncurrent = childNode(rule, 'NoncurrentVersionExpiration');
  const abort = childNode(rule, 'AbortIncompleteMultipartUpload');
  if (!expiration && !noncurrent && !abort) throw invalidRequest(`rule ${id}: At least one action needs to be specified in a rule`);
  if (expiration && childText(expiration, 'ExpiredObjectDeleteMarker') !== undefined && childText(expiration, 'Days') !== undefined) {
    throw malformedXml(`rule ${id}: ExpiredObjectDeleteMarker cannot be specified with Days or Date in a Lifecycle Expiration Policy`);
  }
  const lifecycle: LifecycleRule = {
    fileNamePrefix: childText(filter, 'Prefix') ?? childText(rule, 'Prefix') ?? '',
    daysFromUploadingToHiding: expiration ? days(expiration, 'Days', `${id}.Expiration`) : null,
    daysFromHidingToDeleting: noncurrent ? days(noncurrent, 'NoncurrentDays', `${id}.NoncurrentVersionExpiration`) : null,
    daysFromStartingToCancelingUnfinishedLargeFiles: abort
      ? days(abort, 'DaysAfterInitiation', `${id}.AbortIncompleteMultipartUpload`)
      : null,
  };
  return { id, rule: status === 'Enabled' ? lifecycle : null };
}

function putBucketLifecycle(state: S3State): Operation {
  return async (call) => {
    const key = keyOf(call);
    requireAnyCapability(key, ['writeBuckets', 'writeBucketLifecycleRules']);
    const bucket = bucketFor(state, call, {
      capability: hasCapability(key, 'writeBuckets') ? 'writeBuckets' : 'writeBucketLifecycleRules',
    });
    const body = await readSmallBody(call.req, {
      payload: call.caller.payload,
      limit: XML_BODY_LIMIT,
      headers: call.headers,
      requireChecksum: true,
    });
    const configuration = childNode(parseXml(body.toString('utf8'), ['Rule']), 'LifecycleConfiguration');
    if (!configuration) throw malformedXml('the root element must be LifecycleConfiguration');
    const rules = childList(configuration, 'Rule');
    if (rules.length === 0 || rules.length > MAX_RULES) throw malformedXml(`LifecycleConfiguration needs 1 to ${MAX_RULES} rules`);
    const ids = new Set<string>();
    const prefixes = new Set<string>();
    const lifecycleRules: LifecycleRule[] = [];
    rules.forEach((node, index) => {
      const { id, rule } = b2Rule(node, index);
      if (ids.has(id)) throw invalidArgument(`Rule ID must be unique. Found same ID for more than one rule: ${id}`);
      ids.add(id);
      if (!rule) return;
      if (prefixes.has(rule.fileNamePrefix))
        throw invalidArgument(`B2 allows one enabled lifecycle rule per prefix; "${rule.fileNamePrefix}" has more`);
      prefixes.add(rule.fileNamePrefix);
      lifecycleRules.push(rule);
    });
    state.ctx.store.updateBucket(bucket.bucketId, { lifecycleRules });
    call.mutated({ callerKeyId: key.applicationKeyId, bucketId: bucket.bucketId, bucketName: bucket.bucketName });
    return { status: 200 };
  };
}

function deleteBucketLifecycle(state: S3State): Operation {
  return async (call) => {
    const key = keyOf(call);
    requireAnyCapability(key, ['writeBuckets', 'writeBucketLifecycleRules']);
    const bucket = bucketFor(state, call, {
      capability: hasCapability(key, 'writeBuckets') ? 'writeBuckets' : 'writeBucketLifecycleRules',
    });
    state.ctx.store.updateBucket(bucket.bucketId, { lifecycleRules: [] });
    call.mutated({ callerKeyId: key.applicationKeyId, bucketId: bucket.bucketId, bucketName: bucket.bucketName });
    return { status: 204 };
  };
}

export function bucketOperations(state: S3State): Record<string, Operation> {
  return {
    HeadBucket: readableBucket(state),
    GetBucketLocation: getBucketLocation(state),
    PutBucketLifecycleConfiguration: putBucketLifecycle(state),
    DeleteBucketLifecycle: deleteBucketLifecycle(state),
  };
}
