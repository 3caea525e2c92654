/**
 * Object operations: GetObject / HeadObject (with Range), PutObject, CopyObject, DeleteObject,
 * DeleteObjects, ListObjectsV2 and ListObjectVersions. S3 version ids are B2 file ids and S3 delete
 * markers are B2 hide markers, so everything here is visible to the native API and back.
 */
import { openBody } from '../bodies.js';
import { requireAccess } from '../access.js';
import { SandboxError } from '../errors.js';
import type { BucketRecord, FileVersion, KeyRecord } from '../model.js';
import { compareCodePoints } from '../../contract/code-point-order.js';
import { validateFileName } from '../store.js';
import { S3Failure, accessDenied, invalidArgument, invalidRequest, malformedXml, noSuchBucket, noSuchKey, toS3Failure } from './errors.js';
import { ingestBody, readSmallBody } from './ingest.js';
import {
  bucketFor,
  bypassFrom,
  checkNamePrefix,
  declaredLength,
  encryptionFrom,
  etagOf,
  header,
  intParam,
  isoDate,
  keyEncoder,
  keyOf,
  listingScope,
  lockFrom,
  metadataFrom,
  objectHeaders,
  type Operation,
  param,
  parseByteRange,
  parseCopySource,
  type S3Call,
  type S3State,
} from './operation.js';
import { childList, childNode, childText, parseXml, xmlDocument, type XmlObject } from './xml.js';

const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
const DELETE_OBJECTS_LIMIT = 1000;
const XML_BODY_LIMIT = 4 * 1024 * 1024;

/** An S3 key must be a valid B2 file name; refused before any body is read. */
function checkKeyName(name: string): void {
  try {
    validateFileName(name);
  } catch (error) {
    throw invalidArgument(error instanceof SandboxError ? error.message : 'invalid key');
  }
}

/** The version a read names: a specific version id, or the latest visible one. */
function versionFor(state: S3State, bucket: BucketRecord, name: string, versionId: string | undefined): FileVersion {
  if (versionId !== undefined) {
    const file = state.ctx.store.findFile(versionId);
    if (!file || file.bucketId !== bucket.bucketId || file.fileName !== name || file.action === 'start') {
      throw new S3Failure(404, 'NoSuchVersion', `The specified version does not exist: ${versionId}`);
    }
    if (file.action === 'hide') {
      throw new S3Failure(405, 'MethodNotAllowed', 'The specified method is not allowed against a delete marker.', {
        'x-amz-delete-marker': 'true',
        'x-amz-version-id': file.fileId,
      });
    }
    return file;
  }
  const file = state.ctx.store.latestVisible(bucket.bucketId, name);
  if (!file) throw noSuchKey(name);
  return file;
}

/** Response overrides a presigned GET may carry (`response-content-type`, ...). */
const RESPONSE_OVERRIDES: Record<string, string> = {
  'response-content-type': 'Content-Type',
  'response-content-disposition': 'Content-Disposition',
  'response-content-encoding': 'Content-Encoding',
  'response-content-language': 'Content-Language',
  'response-cache-control': 'Cache-Control',
  'response-expires': 'Expires',
};

function read(state: S3State, head: boolean): Operation {
  return async (call) => {
    const bucket = bucketFor(state, call, { capability: 'readFiles', fileName: call.key }, true);
    const file = versionFor(state, bucket, call.key, param(call, 'versionId'));
    const headers = objectHeaders(state, file, call.caller.key);
    for (const [name, target] of Object.entries(RESPONSE_OVERRIDES)) {
      const value = param(call, name);
      if (value !== undefined) headers[target] = value;
    }
    const rangeHeader = header(call, 'range');
    const range = rangeHeader ? parseByteRange(rangeHeader, file.contentLength) : undefined;
    if (range) {
      headers['Content-Range'] = `bytes ${range.first}-${range.last}/${file.contentLength}`;
      headers['Content-Length'] = String(range.last - range.first + 1);
    } else {
      headers['Content-Length'] = String(file.contentLength);
    }
    const stream = head || !file.body ? undefined : openBody(file.body, range);
    return { status: range ? 206 : 200, headers, ...(stream ? { stream } : {}) };
  };
}

function putObject(state: S3State): Operation {
  return async (call) => {
    const key = keyOf(call);
    const bucket = bucketFor(state, call, { capability: 'writeFiles', fileName: call.key });
    checkKeyName(call.key);
    const lock = lockFrom(call, key);
    const encryption = encryptionFrom(call);
    const expectedLength = declaredLength(call);
    const contentMd5 = header(call, 'content-md5');
    const ingested = await ingestBody(call.req, {
      ...(expectedLength !== undefined ? { expectedLength } : {}),
      payload: call.caller.payload,
      ...(contentMd5 !== undefined ? { contentMd5 } : {}),
    });
    const file = state.ctx.store.uploadFile(bucket.bucketId, {
      fileName: call.key,
      contentType: header(call, 'content-type') || DEFAULT_CONTENT_TYPE,
      fileInfo: metadataFrom(call),
      body: ingested.body,
      contentSha1: ingested.sha1,
      contentMd5: ingested.md5,
      ...encryption,
      ...lock,
    });
    call.mutated({
      callerKeyId: key.applicationKeyId,
      bucketId: bucket.bucketId,
      bucketName: bucket.bucketName,
      fileId: file.fileId,
      fileName: file.fileName,
    });
    const headers: Record<string, string> = { ETag: etagOf(state, file), 'x-amz-version-id': file.fileId };
    if (file.serverSideEncryption.mode === 'SSE-B2') headers['x-amz-server-side-encryption'] = 'AES256';
    return { status: 200, headers };
  };
}

/** The source of a copy, after the caller's read access to it is checked. */
export function copySourceFor(state: S3State, key: KeyRecord, text: string | undefined): { file: FileVersion; versioned: boolean } {
  const source = parseCopySource(text);
  const bucket = state.ctx.store.findBucketByName(source.bucketName);
  if (!bucket) throw key.bucketIds !== null ? accessDenied(`Access Denied: ${source.bucketName}`) : noSuchBucket(source.bucketName);
  try {
    requireAccess(key, { capability: 'readFiles', bucket, fileName: source.key });
  } catch (error) {
    if (error instanceof SandboxError) throw accessDenied(error.message);
    throw error;
  }
  return { file: versionFor(state, bucket, source.key, source.versionId), versioned: source.versionId !== undefined };
}

function copyObject(state: S3State): Operation {
  return async (call) => {
    const key = keyOf(call);
    const bucket = bucketFor(state, call, { capability: 'writeFiles', fileName: call.key });
    checkKeyName(call.key);
    const { file: source, versioned } = copySourceFor(state, key, header(call, 'x-amz-copy-source'));
    const directive = header(call, 'x-amz-metadata-directive') ?? 'COPY';
    if (directive !== 'COPY' && directive !== 'REPLACE') throw invalidArgument('x-amz-metadata-directive must be COPY or REPLACE');
    const encryption = encryptionFrom(call);
    const copyingOntoItself = source.bucketId === bucket.bucketId && source.fileName === call.key && !versioned;
    if (copyingOntoItself && directive === 'COPY' && !encryption.serverSideEncryption) {
      throw invalidRequest(
        "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata or encryption attributes.",
      );
    }
    const replace = directive === 'REPLACE';
    const copy = state.ctx.store.uploadFile(bucket.bucketId, {
      fileName: call.key,
      contentType: replace ? header(call, 'content-type') || DEFAULT_CONTENT_TYPE : source.contentType,
      fileInfo: replace ? metadataFrom(call) : source.fileInfo,
      body: source.body!,
      contentSha1: source.contentSha1,
      contentMd5: source.contentMd5,
      ...encryption,
      ...lockFrom(call, key),
    });
    const multipart = state.multipartEtags.get(source.fileId);
    if (multipart) state.multipartEtags.set(copy.fileId, multipart);
    call.mutated({
      callerKeyId: key.applicationKeyId,
      bucketId: bucket.bucketId,
      bucketName: bucket.bucketName,
      fileId: copy.fileId,
      fileName: copy.fileName,
    });
    return {
      status: 200,
      headers: { 'x-amz-version-id': copy.fileId, 'x-amz-copy-source-version-id': source.fileId },
      xml: xmlDocument('CopyObjectResult', { ETag: etagOf(state, copy), LastModified: isoDate(copy.uploadTimestamp) }),
    };
  };
}

interface DeleteResult {
  versionId?: string;
  deleteMarker?: boolean;
  deleteMarkerVersionId?: string;
}

/**
 * One S3 delete. With a version id that version goes for good (Object Lock permitting); without,
 * a new delete marker (B2 hide marker) tops the key, as in a versioned S3 bucket — also when the
 * key is already hidden or never existed.
 */
function deleteOne(
  state: S3State,
  call: S3Call,
  key: KeyRecord,
  bucket: BucketRecord,
  name: string,
  versionId: string | undefined,
  bypass: boolean,
): DeleteResult {
  const store = state.ctx.store;
  const target = { callerKeyId: key.applicationKeyId, bucketId: bucket.bucketId, bucketName: bucket.bucketName };
  if (versionId !== undefined) {
    const file = store.findFile(versionId);
    if (!file || file.bucketId !== bucket.bucketId || file.fileName !== name || file.action === 'start') {
      throw new S3Failure(404, 'NoSuchVersion', `The specified version does not exist: ${versionId}`);
    }
    store.deleteFileVersion(file.fileId, file.fileName, { bypassGovernance: bypass });
    call.mutated({ ...target, fileId: file.fileId, fileName: file.fileName });
    return { versionId, ...(file.action === 'hide' ? { deleteMarker: true } : {}) };
  }
  const marker = store.hideFile(bucket.bucketId, name);
  call.mutated({ ...target, fileId: marker.fileId, fileName: marker.fileName });
  return { deleteMarker: true, deleteMarkerVersionId: marker.fileId };
}

function deleteObject(state: S3State): Operation {
  return async (call) => {
    const key = keyOf(call);
    const bucket = bucketFor(state, call, { capability: 'deleteFiles', fileName: call.key });
    const result = deleteOne(state, call, key, bucket, call.key, param(call, 'versionId'), bypassFrom(call, key));
    const headers: Record<string, string> = {};
    if (result.deleteMarker) headers['x-amz-delete-marker'] = 'true';
    const versionId = result.deleteMarkerVersionId ?? result.versionId;
    if (versionId) headers['x-amz-version-id'] = versionId;
    return { status: 204, headers };
  };
}

function deleteObjects(state: S3State): Operation {
  return async (call) => {
    const key = keyOf(call);
    const bucket = bucketFor(state, call, { capability: 'deleteFiles' });
    const bypass = bypassFrom(call, key);
    const body = await readSmallBody(call.req, {
      payload: call.caller.payload,
      limit: XML_BODY_LIMIT,
      headers: call.headers,
      requireChecksum: true,
    });
    const request = childNode(parseXml(body.toString('utf8'), ['Object']), 'Delete');
    if (!request) throw malformedXml('the root element must be Delete');
    const objects = childList(request, 'Object');
    if (objects.length === 0 || objects.length > DELETE_OBJECTS_LIMIT) {
      throw malformedXml(`Delete must name 1 to ${DELETE_OBJECTS_LIMIT} objects`);
    }
    const quiet = childText(request, 'Quiet') === 'true';
    const deleted: XmlObject[] = [];
    const errors: XmlObject[] = [];
    for (const object of objects) {
      const name = childText(object, 'Key');
      const versionId = childText(object, 'VersionId') || undefined;
      if (!name) throw malformedXml('every Object needs a Key');
      try {
        checkNamePrefix(key, name);
        const result = deleteOne(state, call, key, bucket, name, versionId, bypass);
        if (!quiet) {
          deleted.push({
            Key: name,
            VersionId: result.versionId,
            DeleteMarker: result.deleteMarker,
            DeleteMarkerVersionId: result.deleteMarkerVersionId,
          });
        }
      } catch (error) {
        const failure = toS3Failure(error);
        errors.push({ Key: name, VersionId: versionId, Code: failure.code, Message: failure.message });
      }
    }
    return { status: 200, xml: xmlDocument('DeleteResult', { Deleted: deleted, Error: errors }) };
  };
}

const CONTINUATION = 'v1:';
function continuationToken(name: string): string {
  return Buffer.from(CONTINUATION + name, 'utf8').toString('base64url');
}
function nameFromToken(token: string): string {
  const text = Buffer.from(token, 'base64url').toString('utf8');
  if (!text.startsWith(CONTINUATION)) throw invalidArgument('The continuation token provided is incorrect');
  return text.slice(CONTINUATION.length);
}

function listObjectsV2(state: S3State): Operation {
  return async (call) => {
    const { prefix, bucket, delimiter } = listingScope(state, call);
    const maxKeys = intParam(call, 'max-keys', 1000, 0, 1000);
    const token = param(call, 'continuation-token');
    const startAfter = param(call, 'start-after');
    // `start-after` is exclusive; no file name contains NUL, so name + NUL is the next possible name.
    const startFileName = token ? nameFromToken(token) : startAfter ? `${startAfter}\u0000` : undefined;
    const page =
      maxKeys === 0
        ? { entries: [], nextFileName: null }
        : state.ctx.store.listFileNames(bucket.bucketId, {
            maxFileCount: maxKeys,
            prefix,
            ...(delimiter ? { delimiter } : {}),
            ...(startFileName !== undefined ? { startFileName } : {}),
          });
    const encode = keyEncoder(call);
    const contents: XmlObject[] = [];
    const prefixes: XmlObject[] = [];
    for (const entry of page.entries) {
      if (entry.kind === 'folder') prefixes.push({ Prefix: encode(entry.fileName) });
      else {
        const v = entry.version;
        contents.push({
          Key: encode(v.fileName),
          LastModified: isoDate(v.uploadTimestamp),
          ETag: etagOf(state, v),
          Size: v.contentLength,
          StorageClass: 'STANDARD',
        });
      }
    }
    return {
      status: 200,
      xml: xmlDocument('ListBucketResult', {
        Name: bucket.bucketName,
        Prefix: encode(prefix),
        Delimiter: encode(delimiter),
        MaxKeys: maxKeys,
        KeyCount: page.entries.length,
        IsTruncated: page.nextFileName !== null,
        ContinuationToken: token,
        NextContinuationToken: page.nextFileName !== null ? continuationToken(page.nextFileName) : undefined,
        StartAfter: encode(startAfter),
        EncodingType: param(call, 'encoding-type'),
        Contents: contents,
        CommonPrefixes: prefixes,
      }),
    };
  };
}

/** The newest upload or delete marker of a name (unfinished uploads are not versions). */
function latestVersionId(bucket: BucketRecord, name: string): string | undefined {
  const versions = bucket.versions;
  for (const v of versions.from(versions.lowerBound((x) => compareCodePoints(x.fileName, name) < 0))) {
    if (v.fileName !== name) return undefined;
    if (v.action !== 'start') return v.fileId;
  }
  return undefined;
}

function listObjectVersions(state: S3State): Operation {
  return async (call) => {
    const { prefix, bucket, delimiter } = listingScope(state, call);
    const maxKeys = intParam(call, 'max-keys', 1000, 0, 1000);
    const keyMarker = param(call, 'key-marker') || undefined;
    const versionIdMarker = param(call, 'version-id-marker') || undefined;
    if (versionIdMarker && !keyMarker) throw invalidArgument('A version-id marker cannot be specified without a key marker.');
    // Markers are exclusive (S3); the store starts inclusively, so ask for one more and skip the marker.
    const start = keyMarker
      ? versionIdMarker
        ? { startFileName: keyMarker, startFileId: versionIdMarker }
        : { startFileName: `${keyMarker}\u0000` }
      : {};
    const page = state.ctx.store.listFileVersions(bucket.bucketId, {
      maxFileCount: maxKeys + 1,
      prefix,
      ...(delimiter ? { delimiter } : {}),
      ...start,
    });
    const encode = keyEncoder(call);
    const versions: XmlObject[] = [];
    const markers: XmlObject[] = [];
    const prefixes: XmlObject[] = [];
    const latest = new Map<string, string | undefined>();
    let returned = 0;
    let truncated = page.nextFileName !== null;
    let last: { name: string; versionId?: string } | undefined;
    for (const entry of page.entries) {
      const isMarker = entry.kind === 'folder' ? entry.fileName === keyMarker : entry.version.fileId === versionIdMarker;
      if (isMarker) continue;
      if (returned === maxKeys) {
        truncated = true;
        break;
      }
      if (entry.kind === 'folder') {
        prefixes.push({ Prefix: encode(entry.fileName) });
        last = { name: entry.fileName };
        returned++;
        continue;
      }
      const v = entry.version;
      last = { name: v.fileName, versionId: v.fileId };
      if (v.action === 'start') continue;
      if (!latest.has(v.fileName)) latest.set(v.fileName, latestVersionId(bucket, v.fileName));
      const common = {
        Key: encode(v.fileName),
        VersionId: v.fileId,
        IsLatest: latest.get(v.fileName) === v.fileId,
        LastModified: isoDate(v.uploadTimestamp),
      };
      if (v.action === 'hide') markers.push(common);
      else versions.push({ ...common, ETag: etagOf(state, v), Size: v.contentLength, StorageClass: 'STANDARD' });
      returned++;
    }
    return {
      status: 200,
      xml: xmlDocument('ListVersionsResult', {
        Name: bucket.bucketName,
        Prefix: encode(prefix),
        Delimiter: encode(delimiter),
        KeyMarker: encode(keyMarker ?? ''),
        VersionIdMarker: versionIdMarker ?? '',
        NextKeyMarker: truncated && last ? encode(last.name) : undefined,
        NextVersionIdMarker: truncated && last?.versionId ? last.versionId : undefined,
        MaxKeys: maxKeys,
        IsTruncated: truncated,
        EncodingType: param(call, 'encoding-type'),
        Version: versions,
        DeleteMarker: markers,
        CommonPrefixes: prefixes,
      }),
    };
  };
}

export function objectOperations(state: S3State): Record<string, Operation> {
  return {
    GetObject: read(state, false),
    HeadObject: read(state, true),
    PutObject: putObject(state),
    CopyObject: copyObject(state),
    DeleteObject: deleteObject(state),
    DeleteObjects: deleteObjects(state),
    ListObjectsV2: listObjectsV2(state),
    ListObjectVersions: listObjectVersions(state),
  };
}
