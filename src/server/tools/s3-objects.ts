import type { Readable } from 'node:stream';
import type { ObjectRef } from '../s3/adapter.js';
import { s3ErrorFrom } from '../s3/errors.js';
import { prepareLocalTarget, readLocalFile, saveStream, SAVE_IDLE_TIMEOUT_MS } from '../s3/local-files.js';
import { parseByteRange, requestedWindow, widenRange } from '../s3/ranged-read.js';
import { badArguments, INLINE_OBJECT_BYTES, requireCapability } from '../s3/rules.js';
import { ToolError } from '../errors.js';
import { defineTool, type ToolDefinition, type ToolHandler } from './definition.js';
import { array, boolean, integer, object, oneOf, string, stringMap, toolInput } from './schema.js';

const bucket = string({ minLength: 1 });
const key = string({ minLength: 1 });
const versionId = string({ minLength: 1 });
const metadata = stringMap(string({ minLength: 1, maxLength: 128 }), string({ maxLength: 2048 }), { maxProperties: 50 });
const acl = oneOf(['private', 'public-read'], { description: 'Ignored by B2.' });

/** Arguments as the schema guarantees them (validated before a handler runs). */

const s3Uri = (ref: ObjectRef) => `s3://${ref.bucket}/${ref.key}${ref.versionId ? ` (version ${ref.versionId})` : ''}`;

const listObjectsInput = toolInput(
  {
    bucket,
    prefix: string(),
    delimiter: string({ maxLength: 16 }),
    maxKeys: integer(1, 1000, { default: 1000 }),
    continuationToken: string(),
    startAfter: string(),
  },
  ['bucket'],
);

const listObjects: ToolHandler<typeof listObjectsInput> = async (args, context) => {
  const s3 = await context.s3();
  return {
    structured: await s3.listObjectsV2(
      {
        bucket: args.bucket,
        prefix: args.prefix,
        delimiter: args.delimiter,
        maxKeys: args.maxKeys ?? 1000,
        continuationToken: args.continuationToken,
        startAfter: args.startAfter,
      },
      { signal: context.signal },
    ),
  };
};

const listVersionsInput = toolInput(
  {
    bucket,
    prefix: string(),
    delimiter: string({ maxLength: 16 }),
    maxKeys: integer(1, 1000, { default: 1000 }),
    keyMarker: string(),
    versionIdMarker: string(),
  },
  ['bucket'],
);

const listVersions: ToolHandler<typeof listVersionsInput> = async (args, context) => {
  if (args.versionIdMarker !== undefined && args.keyMarker === undefined)
    throw badArguments('versionIdMarker needs keyMarker (the key that version belongs to).');
  const s3 = await context.s3();
  return {
    structured: await s3.listObjectVersions(
      {
        bucket: args.bucket,
        prefix: args.prefix,
        delimiter: args.delimiter,
        maxKeys: args.maxKeys ?? 1000,
        keyMarker: args.keyMarker,
        versionIdMarker: args.versionIdMarker,
      },
      { signal: context.signal },
    ),
  };
};

const headObjectInput = toolInput({ bucket, key, versionId }, ['bucket', 'key']);

const headObject: ToolHandler<typeof headObjectInput> = async (args, context) => {
  const s3 = await context.s3();
  return { structured: await s3.headObject({ bucket: args.bucket, key: args.key, versionId: args.versionId }, { signal: context.signal }) };
};

const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript|x-yaml|yaml|csv|x-ndjson|toml)\b|[^;]*\+(json|xml)\b)/i;

/** Text types that decode as UTF-8 come back as text; everything else as base64. */
function encodeContent(bytes: Buffer, contentType: string | undefined): { encoding: 'utf8' | 'base64'; content: string } {
  if (contentType && TEXT_TYPES.test(contentType)) {
    try {
      return { encoding: 'utf8', content: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
    } catch {
      // not UTF-8 after all
    }
  }
  return { encoding: 'base64', content: bytes.toString('base64') };
}

function tooLargeInline(ref: ObjectRef, size: number | undefined): ToolError {
  const what = size === undefined ? 'more than 1 MiB' : `${size} bytes`;
  return new ToolError(
    413,
    'object_too_large',
    `${s3Uri(ref)} is ${what}; inline reads are limited to 1 MiB (${INLINE_OBJECT_BYTES} bytes). Read a slice with range (e.g. "bytes=0-${INLINE_OBJECT_BYTES - 1}"), stream it to a local file with saveToPath, or mint a download link with s3_get_presigned_url.`,
  );
}

/** The whole body if it stays within `limit`, else undefined (the stream is then destroyed). */
async function readWithin(body: Readable, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const getObjectInput = toolInput(
  {
    bucket,
    key,
    versionId,
    range: string({ pattern: '^bytes=[0-9]*-[0-9]*$', description: 'HTTP byte range.' }),
    saveToPath: string({ minLength: 1, description: 'Stream the object to this local file instead.' }),
  },
  ['bucket', 'key'],
);

const getObject: ToolHandler<typeof getObjectInput> = async (args, context) => {
  const ref: ObjectRef = { bucket: args.bucket, key: args.key, ...(args.versionId ? { versionId: args.versionId } : {}) };
  // Refuse a bad destination before anything is downloaded.
  const target = args.saveToPath !== undefined ? await prepareLocalTarget(context.config, args.saveToPath) : undefined;
  const s3 = await context.s3();
  // An inline ranged read fetches past its window, so a secret it cuts is still seen whole.
  const range = args.range !== undefined && !target ? parseByteRange(args.range) : undefined;
  const margin = context.redaction.scanMargin;
  const object = await s3.getObject({ ...ref, range: range ? widenRange(range, margin) : args.range }, { signal: context.signal });
  if (target) {
    const bytes = await saveStream(object.body, target, { idleTimeoutMs: SAVE_IDLE_TIMEOUT_MS, signal: context.signal });
    const slice = args.range ? ` (${object.contentRange ?? args.range})` : '';
    return {
      text: `Saved ${bytes} bytes of ${s3Uri({ ...ref, versionId: object.versionId ?? ref.versionId })}${slice} to ${target.path}.`,
    };
  }
  const limit = range ? INLINE_OBJECT_BYTES + 2 * margin : INLINE_OBJECT_BYTES;
  if (object.contentLength !== undefined && object.contentLength > limit) {
    object.body.destroy();
    throw tooLargeInline(ref, range ? undefined : object.contentLength);
  }
  const bytes = await readWithin(object.body, limit).catch((error: unknown) => {
    throw s3ErrorFrom(error);
  });
  if (!bytes) throw tooLargeInline(ref, undefined);
  const { body: _stream, ...info } = object;
  if (!range) return { structured: { ...info, ...encodeContent(bytes, object.contentType) } };
  const window = requestedWindow(range, bytes.length, object.contentRange);
  if (window.end - window.start > INLINE_OBJECT_BYTES) throw tooLargeInline(ref, undefined);
  const content = encodeContent(context.redaction.window(bytes, window.start, window.end), object.contentType);
  return { structured: { ...info, contentLength: window.end - window.start, contentRange: window.contentRange, ...content } };
};

/** Strict base64 (standard or URL-safe alphabet, padding optional); Buffer.from would skip junk silently. */
function decodeBase64(content: string): Buffer {
  const compact = content.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact) || compact.replace(/=+$/, '').length % 4 === 1) {
    throw badArguments('content must be base64-encoded bytes.');
  }
  return Buffer.from(compact, compact.includes('-') || compact.includes('_') ? 'base64url' : 'base64');
}

const putObjectInput = toolInput(
  {
    bucket,
    key,
    content: string({ description: 'Body, base64-encoded.' }),
    filePath: string({ minLength: 1 }),
    contentType: string(),
    metadata,
    acl,
    serverSideEncryption: oneOf(['AES256']),
    storageClass: string({ description: 'Ignored by B2.' }),
  },
  ['bucket', 'key'],
);

const putObject: ToolHandler<typeof putObjectInput> = async (args, context) => {
  if (args.content !== undefined && args.filePath !== undefined) throw badArguments('Give content or filePath, not both.');
  if (args.content === undefined && args.filePath === undefined)
    throw badArguments('Give content (base64; "" makes an empty object) or filePath.');
  const body =
    args.content !== undefined
      ? decodeBase64(args.content)
      : await readLocalFile(context.config, args.filePath!, INLINE_OBJECT_BYTES, context.protectedValues());
  if (body.length > INLINE_OBJECT_BYTES) {
    throw new ToolError(
      413,
      'object_too_large',
      `The body is ${body.length} bytes; s3_put_object uploads at most 1 MiB (${INLINE_OBJECT_BYTES} bytes). For larger objects use s3_get_presigned_url (PutObject) or a multipart upload.`,
    );
  }
  const s3 = await context.s3();
  const result = await s3.putObject(
    {
      bucket: args.bucket,
      key: args.key,
      body,
      contentType: args.contentType,
      metadata: args.metadata,
      serverSideEncryption: args.serverSideEncryption,
    },
    { signal: context.signal },
  );
  return {
    text: `Uploaded ${result.size} bytes to ${s3Uri({ ...result, versionId: result.versionId })}${result.etag ? `, ETag ${result.etag}` : ''}.`,
  };
};

const copyObjectInput = toolInput(
  {
    sourceBucket: bucket,
    sourceKey: key,
    sourceVersionId: versionId,
    destinationBucket: bucket,
    destinationKey: key,
    metadataDirective: oneOf(['COPY', 'REPLACE'], { default: 'COPY' }),
    metadata,
    contentType: string(),
    acl,
  },
  ['sourceBucket', 'sourceKey', 'destinationBucket', 'destinationKey'],
);

const copyObject: ToolHandler<typeof copyObjectInput> = async (args, context) => {
  const directive = args.metadataDirective ?? 'COPY';
  if (directive === 'COPY' && (args.metadata !== undefined || args.contentType !== undefined)) {
    throw badArguments('metadata and contentType take effect only with metadataDirective "REPLACE" (COPY keeps the source\'s).');
  }
  const s3 = await context.s3();
  const result = await s3.copyObject(
    {
      sourceBucket: args.sourceBucket,
      sourceKey: args.sourceKey,
      sourceVersionId: args.sourceVersionId,
      destinationBucket: args.destinationBucket,
      destinationKey: args.destinationKey,
      metadataDirective: directive,
      metadata: args.metadata,
      contentType: args.contentType,
    },
    { signal: context.signal },
  );
  const source = s3Uri({ bucket: args.sourceBucket, key: args.sourceKey, versionId: result.copySourceVersionId ?? args.sourceVersionId });
  const destination = s3Uri({ bucket: args.destinationBucket, key: args.destinationKey, versionId: result.versionId });
  return { text: `Copied ${source} to ${destination}${result.etag ? `, ETag ${result.etag}` : ''}.` };
};

const deleteObjectInput = toolInput({ bucket, key, versionId }, ['bucket', 'key']);

const deleteObject: ToolHandler<typeof deleteObjectInput> = async (args, context) => {
  const s3 = await context.s3();
  const result = await s3.deleteObject({ bucket: args.bucket, key: args.key, versionId: args.versionId }, { signal: context.signal });
  const target = s3Uri({ bucket: args.bucket, key: args.key });
  if (args.versionId)
    return { text: `Deleted version ${args.versionId} of ${target} permanently${result.deleteMarker ? ' (it was a delete marker)' : ''}.` };
  if (result.deleteMarker) {
    return {
      text: `${target} is now hidden by delete marker ${result.versionId ?? '(no id)'}; earlier versions remain until deleted by versionId.`,
    };
  }
  // No delete marker: the bucket keeps no versions, so S3 removed the object (its answer is the same when there was none).
  return {
    text: `Deleted ${target}; the bucket keeps no versions, so the object is gone for good (S3 answers the same when the key did not exist).`,
  };
};

const deleteObjectsInput = toolInput(
  {
    bucket,
    objects: array(object({ key, versionId }, ['key']), { minItems: 1, maxItems: 1000 }),
    quiet: boolean({ default: true, description: 'Report failures only.' }),
    bypassGovernance: boolean({ description: 'Needs the bypassGovernance capability.' }),
  },
  ['bucket', 'objects'],
);

const deleteObjects: ToolHandler<typeof deleteObjectsInput> = async (args, context) => {
  const bypassGovernance = args.bypassGovernance === true;
  if (bypassGovernance) requireCapability(context.capabilities, 'bypassGovernance', 'Deleting with bypassGovernance');
  const quiet = args.quiet ?? true;
  const s3 = await context.s3();
  const result = await s3.deleteObjects(
    { bucket: args.bucket, objects: args.objects, quiet, bypassGovernance },
    { signal: context.signal },
  );
  return {
    structured: {
      bucket: args.bucket,
      requested: args.objects.length,
      failed: result.errors.length,
      ...(quiet ? {} : { deleted: result.deleted }),
      errors: result.errors,
    },
  };
};

export const s3ObjectTools: ToolDefinition[] = [
  defineTool({
    name: 's3_list_objects_v2',
    title: 'List objects',
    description: "List a bucket's objects with prefix, delimiter and continuation-token paging.",
    input: listObjectsInput,
    backing: 'awsS3Sdk',
    capabilities: ['listFiles'],
    effect: 'read',
    handler: listObjects,
  }),
  defineTool({
    name: 's3_list_object_versions',
    title: 'List object versions',
    description: "List a bucket's object versions and delete markers, with prefix, delimiter and key/version-marker paging.",
    input: listVersionsInput,
    backing: 'awsS3Sdk',
    capabilities: ['listFiles'],
    effect: 'read',
    handler: listVersions,
  }),
  defineTool({
    name: 's3_head_object',
    title: 'Head object',
    description: "Get an object's metadata (size, type, ETag, dates, user metadata, lock state).",
    input: headObjectInput,
    backing: 'awsS3Sdk',
    capabilities: ['readFiles'],
    effect: 'read',
    handler: headObject,
  }),
  defineTool({
    name: 's3_get_object',
    title: 'Get object',
    description: 'Read an object: up to 1 MiB inline (base64 if binary); larger needs range, saveToPath (local file) or a presigned URL.',
    input: getObjectInput,
    backing: 'awsS3Sdk',
    capabilities: ['readFiles'],
    effect: 'local-write',
    handler: getObject,
  }),
  defineTool({
    name: 's3_put_object',
    title: 'Put object',
    description: 'Upload an object of up to 1 MiB from content (base64) or filePath (local file); overwriting makes a new version.',
    input: putObjectInput,
    backing: 'awsS3Sdk',
    capabilities: ['writeFiles'],
    effect: 'idempotent-write',
    handler: putObject,
  }),
  defineTool({
    name: 's3_copy_object',
    title: 'Copy object',
    description: 'Copy an object (or one version) to a new key or bucket, keeping or replacing its metadata.',
    input: copyObjectInput,
    backing: 'awsS3Sdk',
    capabilities: ['writeFiles'],
    effect: 'idempotent-write',
    handler: copyObject,
  }),
  defineTool({
    name: 's3_delete_object',
    title: 'Delete object',
    description: 'Delete an object: with versionId that version is gone for good; without, a delete marker hides it.',
    input: deleteObjectInput,
    backing: 'awsS3Sdk',
    capabilities: ['deleteFiles'],
    effect: 'write',
    gate: () => 'delete the object',
    handler: deleteObject,
  }),
  defineTool({
    name: 's3_delete_objects',
    title: 'Delete objects',
    description: 'Delete many objects or versions in one request.',
    input: deleteObjectsInput,
    backing: 'awsS3Sdk',
    capabilities: ['deleteFiles'],
    effect: 'write',
    gate: (args) => {
      const count = Array.isArray(args.objects) ? args.objects.length : 0;
      const bypass = args.bypassGovernance === true ? ', bypassing governance retention' : '';
      return `delete ${count} object(s)${bypass}`;
    },
    handler: deleteObjects,
  }),
];
