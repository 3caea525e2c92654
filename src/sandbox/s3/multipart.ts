/**
 * Multipart uploads over the store's large files: an S3 upload id is the B2 file id of the
 * unfinished large file, so `b2_list_unfinished_large_files` sees S3 uploads and the reverse.
 */
import { openBody } from '../bodies.js';
import { hasCapability } from '../access.js';
import type { BucketRecord, FileVersion } from '../model.js';
import { compareCodePoints } from '../../contract/code-point-order.js';
import { fileIdSeq, validateFileName } from '../store.js';
import type { SandboxError } from '../errors.js';
import { S3Failure, invalidArgument, malformedXml, noSuchUpload } from './errors.js';
import { ingestBody, readSmallBody } from './ingest.js';
import { copySourceFor } from './objects.js';
import {
  bucketFor,
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
  multipartEtag,
  type Operation,
  type Outcome,
  param,
  parseByteRange,
  type S3Call,
  type S3State,
} from './operation.js';
import { childList, childNode, childText, parseXml, xmlDocument, type XmlObject } from './xml.js';

/** S3's minimum size for every part but the last. */
const MIN_PART_BYTES = 5 * 1024 * 1024;
const MAX_PART_BYTES = 5 * 1024 ** 3;
const XML_BODY_LIMIT = 4 * 1024 * 1024;

function uploadFor(state: S3State, call: S3Call, bucket: BucketRecord): FileVersion {
  const uploadId = param(call, 'uploadId') ?? '';
  const file = state.ctx.store.findFile(uploadId);
  if (file?.action !== 'start' || file.bucketId !== bucket.bucketId || file.fileName !== call.key) throw noSuchUpload(uploadId);
  return file;
}

function partNumberOf(text: string | undefined): number {
  const n = text !== undefined && /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(n >= 1 && n <= 10_000)) throw invalidArgument('Part number must be an integer between 1 and 10000, inclusive');
  return n;
}

function createMultipartUpload(state: S3State): Operation {
  return async (call) => {
    const key = keyOf(call);
    const bucket = bucketFor(state, call, { capability: 'writeFiles', fileName: call.key });
    try {
      validateFileName(call.key);
    } catch (error) {
      throw invalidArgument((error as SandboxError).message);
    }
    const file = state.ctx.store.startLargeFile(bucket.bucketId, {
      fileName: call.key,
      contentType: header(call, 'content-type') || 'application/octet-stream',
      fileInfo: metadataFrom(call),
      ...encryptionFrom(call),
      ...lockFrom(call, key),
    });
    call.mutated({
      callerKeyId: key.applicationKeyId,
      bucketId: bucket.bucketId,
      bucketName: bucket.bucketName,
      fileId: file.fileId,
      fileName: file.fileName,
      uploadId: file.fileId,
    });
    return {
      status: 200,
      xml: xmlDocument('InitiateMultipartUploadResult', { Bucket: bucket.bucketName, Key: call.key, UploadId: file.fileId }),
    };
  };
}

function uploadPart(state: S3State): Operation {
  return async (call) => {
    const key = keyOf(call);
    const bucket = bucketFor(state, call, { capability: 'writeFiles', fileName: call.key });
    const partNumber = partNumberOf(param(call, 'partNumber'));
    const upload = uploadFor(state, call, bucket);
    const expectedLength = declaredLength(call);
    const contentMd5 = header(call, 'content-md5');
    const ingested = await ingestBody(call.req, {
      ...(expectedLength !== undefined ? { expectedLength } : {}),
      payload: call.caller.payload,
      limit: MAX_PART_BYTES,
      ...(contentMd5 !== undefined ? { contentMd5 } : {}),
    });
    uploadFor(state, call, bucket); // aborted while the body streamed?
    state.ctx.store.uploadPart(upload.fileId, { partNumber, body: ingested.body, contentSha1: ingested.sha1, contentMd5: ingested.md5 });
    call.mutated({
      callerKeyId: key.applicationKeyId,
      bucketId: bucket.bucketId,
      bucketName: bucket.bucketName,
      fileId: upload.fileId,
      fileName: upload.fileName,
      uploadId: upload.fileId,
    });
    return { status: 200, headers: { ETag: `"${ingested.md5}"` } };
  };
}

function uploadPartCopy(state: S3State): Operation {
  return async (call) => {
    const key = keyOf(call);
    const bucket = bucketFor(state, call, { capability: 'writeFiles', fileName: call.key });
    const partNumber = partNumberOf(param(call, 'partNumber'));
    const upload = uploadFor(state, call, bucket);
    const { file: source } = copySourceFor(state, key, header(call, 'x-amz-copy-source'));
    const rangeText = header(call, 'x-amz-copy-source-range');
    if (rangeText !== undefined && !/^bytes=\d+-\d+$/.test(rangeText.trim())) {
      throw invalidArgument(
        'The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy',
      );
    }
    const range = rangeText ? parseByteRange(rangeText, source.contentLength) : undefined;
    if (range && Number(/-(\d+)$/.exec(rangeText!)![1]) >= source.contentLength) {
      throw new S3Failure(
        416,
        'InvalidRange',
        `The copy range ${rangeText} lies outside the source object of ${source.contentLength} bytes`,
      );
    }
    // The part gets its own copy of the bytes, streamed through the same path as an upload.
    const ingested = await ingestBody(openBody(source.body!, range), { limit: MAX_PART_BYTES });
    uploadFor(state, call, bucket);
    state.ctx.store.uploadPart(upload.fileId, { partNumber, body: ingested.body, contentSha1: ingested.sha1, contentMd5: ingested.md5 });
    call.mutated({
      callerKeyId: key.applicationKeyId,
      bucketId: bucket.bucketId,
      bucketName: bucket.bucketName,
      fileId: upload.fileId,
      fileName: upload.fileName,
      uploadId: upload.fileId,
    });
    return {
      status: 200,
      headers: { 'x-amz-copy-source-version-id': source.fileId },
      xml: xmlDocument('CopyPartResult', { ETag: `"${ingested.md5}"`, LastModified: isoDate(state.ctx.store.now()) }),
    };
  };
}

const unquote = (etag: string) => etag.trim().replace(/^"|"$/g, '');

function completedResult(state: S3State, bucket: BucketRecord, file: FileVersion): Outcome {
  return {
    status: 200,
    headers: { 'x-amz-version-id': file.fileId },
    xml: xmlDocument('CompleteMultipartUploadResult', {
      Location: `${state.ctx.urls.s3Url}/${encodeURIComponent(bucket.bucketName)}/${encodeURIComponent(file.fileName)}`,
      Bucket: bucket.bucketName,
      Key: file.fileName,
      ETag: etagOf(state, file),
    }),
  };
}

/** The object an upload already became: S3 answers a repeated completion with the same result. */
function completedUpload(state: S3State, call: S3Call, bucket: BucketRecord): FileVersion | undefined {
  const file = state.ctx.store.findFile(param(call, 'uploadId') ?? '');
  const completed =
    file?.action === 'upload' && file.bucketId === bucket.bucketId && file.fileName === call.key && state.multipartEtags.has(file.fileId);
  return completed ? file : undefined;
}

function completeMultipartUpload(state: S3State): Operation {
  return async (call) => {
    keyOf(call);
    const bucket = bucketFor(state, call, { capability: 'writeFiles', fileName: call.key });
    const completed = completedUpload(state, call, bucket);
    if (completed) {
      await readSmallBody(call.req, { payload: call.caller.payload, limit: XML_BODY_LIMIT, headers: call.headers });
      return completedResult(state, bucket, completed);
    }
    const key = keyOf(call);
    const upload = uploadFor(state, call, bucket);
    const body = await readSmallBody(call.req, { payload: call.caller.payload, limit: XML_BODY_LIMIT, headers: call.headers });
    const request = childNode(parseXml(body.toString('utf8'), ['Part']), 'CompleteMultipartUpload');
    if (!request) throw malformedXml('the root element must be CompleteMultipartUpload');
    const requested = childList(request, 'Part');
    if (requested.length === 0) throw malformedXml('CompleteMultipartUpload needs at least one Part');
    const uploaded = upload.parts!;
    const partNumbers: number[] = [];
    const md5s: string[] = [];
    for (const part of requested) {
      const number = Number(childText(part, 'PartNumber'));
      const etag = childText(part, 'ETag');
      const stored = uploaded.get(number);
      if (!stored || etag === undefined || unquote(etag) !== stored.contentMd5) {
        throw new S3Failure(
          400,
          'InvalidPart',
          `One or more of the specified parts could not be found or its ETag did not match: part ${childText(part, 'PartNumber')}`,
        );
      }
      partNumbers.push(number);
      md5s.push(stored.contentMd5);
    }
    const file = state.ctx.store.finishLargeFile(upload.fileId, { partNumbers }, MIN_PART_BYTES);
    const etag = multipartEtag(md5s);
    state.multipartEtags.set(file.fileId, etag);
    call.mutated({
      callerKeyId: key.applicationKeyId,
      bucketId: bucket.bucketId,
      bucketName: bucket.bucketName,
      fileId: file.fileId,
      fileName: file.fileName,
      uploadId: file.fileId,
    });
    return completedResult(state, bucket, file);
  };
}

function abortMultipartUpload(state: S3State): Operation {
  return async (call) => {
    const key = keyOf(call);
    const bucket = bucketFor(state, call, { capability: 'writeFiles', fileName: call.key });
    const upload = uploadFor(state, call, bucket);
    state.ctx.store.cancelLargeFile(upload.fileId);
    call.mutated({
      callerKeyId: key.applicationKeyId,
      bucketId: bucket.bucketId,
      bucketName: bucket.bucketName,
      fileId: upload.fileId,
      fileName: upload.fileName,
      uploadId: upload.fileId,
    });
    return { status: 204 };
  };
}

function listParts(state: S3State): Operation {
  return async (call) => {
    const key = keyOf(call);
    const capability = hasCapability(key, 'listFiles') ? 'listFiles' : 'writeFiles';
    const bucket = bucketFor(state, call, { capability, fileName: call.key });
    const upload = uploadFor(state, call, bucket);
    const marker = intParam(call, 'part-number-marker', 0, 0, 10_000);
    const maxParts = intParam(call, 'max-parts', 1000, 1, 1000);
    const page = state.ctx.store.listParts(upload.fileId, { startPartNumber: marker + 1, maxPartCount: maxParts });
    const last = page.parts[page.parts.length - 1];
    return {
      status: 200,
      xml: xmlDocument('ListPartsResult', {
        Bucket: bucket.bucketName,
        Key: upload.fileName,
        UploadId: upload.fileId,
        PartNumberMarker: marker,
        NextPartNumberMarker: last?.partNumber ?? marker,
        MaxParts: maxParts,
        IsTruncated: page.nextPartNumber !== null,
        StorageClass: 'STANDARD',
        Part: page.parts.map((p) => ({
          PartNumber: p.partNumber,
          LastModified: isoDate(p.uploadTimestamp),
          ETag: `"${p.contentMd5}"`,
          Size: p.contentLength,
        })),
      }),
    };
  };
}

function listMultipartUploads(state: S3State): Operation {
  return async (call) => {
    const { prefix, bucket, delimiter } = listingScope(state, call);
    const maxUploads = intParam(call, 'max-uploads', 1000, 1, 1000);
    const keyMarker = param(call, 'key-marker') || undefined;
    const uploadIdMarker = param(call, 'upload-id-marker') || undefined;
    const markerSeq = uploadIdMarker ? fileIdSeq(uploadIdMarker) : undefined;
    if (uploadIdMarker && markerSeq === undefined) throw invalidArgument(`Invalid upload-id-marker: ${uploadIdMarker}`);
    // A marker that is a common prefix skips everything under it.
    const markerIsFolder =
      delimiter !== undefined &&
      keyMarker !== undefined &&
      keyMarker.indexOf(delimiter, prefix.length) === keyMarker.length - delimiter.length;
    // Key order, then initiation order; markers are exclusive.
    const uploads = [...bucket.unfinished.values()]
      .filter((u) => u.fileName.startsWith(prefix))
      .filter((u) => {
        if (!keyMarker) return true;
        if (markerIsFolder && u.fileName.startsWith(keyMarker)) return false;
        const c = compareCodePoints(u.fileName, keyMarker);
        return c > 0 || (c === 0 && markerSeq !== undefined && u.seq > markerSeq);
      })
      .sort((a, b) => compareCodePoints(a.fileName, b.fileName) || a.seq - b.seq);
    const encode = keyEncoder(call);
    const listed: XmlObject[] = [];
    const prefixes: string[] = [];
    let truncated = false;
    let last: { name: string; uploadId?: string } | undefined;
    for (const upload of uploads) {
      const cut = delimiter ? upload.fileName.indexOf(delimiter, prefix.length) : -1;
      const folder = cut >= 0 ? upload.fileName.slice(0, cut + delimiter!.length) : undefined;
      if (folder !== undefined && prefixes[prefixes.length - 1] === folder) continue;
      if (listed.length + prefixes.length === maxUploads) {
        truncated = true;
        break;
      }
      if (folder !== undefined) {
        prefixes.push(folder);
        last = { name: folder };
      } else {
        listed.push({
          Key: encode(upload.fileName),
          UploadId: upload.fileId,
          Initiated: isoDate(upload.uploadTimestamp),
          StorageClass: 'STANDARD',
        });
        last = { name: upload.fileName, uploadId: upload.fileId };
      }
    }
    return {
      status: 200,
      xml: xmlDocument('ListMultipartUploadsResult', {
        Bucket: bucket.bucketName,
        KeyMarker: encode(keyMarker ?? ''),
        UploadIdMarker: uploadIdMarker ?? '',
        NextKeyMarker: truncated && last ? encode(last.name) : undefined,
        NextUploadIdMarker: truncated && last ? last.uploadId : undefined,
        Prefix: encode(prefix),
        Delimiter: encode(delimiter),
        MaxUploads: maxUploads,
        IsTruncated: truncated,
        EncodingType: param(call, 'encoding-type'),
        Upload: listed,
        CommonPrefixes: prefixes.map((p) => ({ Prefix: encode(p) })),
      }),
    };
  };
}

export function multipartOperations(state: S3State): Record<string, Operation> {
  return {
    CreateMultipartUpload: createMultipartUpload(state),
    UploadPart: uploadPart(state),
    UploadPartCopy: uploadPartCopy(state),
    CompleteMultipartUpload: completeMultipartUpload(state),
    AbortMultipartUpload: abortMultipartUpload(state),
    ListParts: listParts(state),
    ListMultipartUploads: listMultipartUploads(state),
  };
}
