/**
 * The S3-compatible front end, on the sandbox's S3 listener (`s3Url`, path-style:
 * `http://127.0.0.1:<s3Port>/<bucket>/<key>`), over the same store as the native API.
 *
 * Each request: identify the operation → fault decision → verify the SigV4 signature (header or
 * presigned query) → check access → call the store → record the mutation → respond (XML, or the
 * object body streamed from the store). Errors use S3's XML error shape and codes.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxContext } from '../context.js';
import { performFault, type RenderError } from '../fault-responses.js';
import { sleep } from '../http.js';
import type { MutationTarget } from '../model.js';
import { authenticate, parseQuery, type Query, type WireRequest } from './auth.js';
import { bucketOperations } from './buckets.js';
import { S3Failure, toS3Failure } from './errors.js';
import { multipartOperations } from './multipart.js';
import { objectOperations } from './objects.js';
import { httpDate, type Operation, type Outcome, type S3State } from './operation.js';
import { errorDocument } from './xml.js';

/** Subresources the sandbox does not serve (B2 supports some of them; our tools do not use them). */
const UNSUPPORTED_SUBRESOURCES = [
  'acl',
  'tagging',
  'retention',
  'legal-hold',
  'policy',
  'cors',
  'website',
  'versioning',
  'encryption',
  'object-lock',
  'replication',
  'notification',
  'torrent',
  'restore',
  'select',
  'attributes',
  'logging',
  'accelerate',
  'requestPayment',
  'ownershipControls',
  'publicAccessBlock',
  'analytics',
  'inventory',
  'metrics',
];

const has = (query: Query, name: string) => query[name] !== undefined;

/** The S3 operation a request names (method, path shape and subresource), or undefined. */
function operationFor(method: string, bucket: string, key: string, query: Query, copySource: boolean): string | undefined {
  if (UNSUPPORTED_SUBRESOURCES.some((name) => has(query, name))) return undefined;
  if (!bucket) return undefined;
  if (!key) {
    switch (method) {
      case 'HEAD':
        return 'HeadBucket';
      case 'GET':
        if (has(query, 'location')) return 'GetBucketLocation';
        if (has(query, 'versions')) return 'ListObjectVersions';
        if (has(query, 'uploads')) return 'ListMultipartUploads';
        if (has(query, 'lifecycle')) return undefined;
        return query['list-type'] === '2' ? 'ListObjectsV2' : undefined;
      case 'PUT':
        return has(query, 'lifecycle') ? 'PutBucketLifecycleConfiguration' : undefined;
      case 'DELETE':
        return has(query, 'lifecycle') ? 'DeleteBucketLifecycle' : undefined;
      case 'POST':
        return has(query, 'delete') ? 'DeleteObjects' : undefined;
      default:
        return undefined;
    }
  }
  switch (method) {
    case 'GET':
      return has(query, 'uploadId') ? 'ListParts' : 'GetObject';
    case 'HEAD':
      return 'HeadObject';
    case 'PUT':
      if (has(query, 'uploadId') || has(query, 'partNumber')) return copySource ? 'UploadPartCopy' : 'UploadPart';
      return copySource ? 'CopyObject' : 'PutObject';
    case 'POST':
      if (has(query, 'uploads')) return 'CreateMultipartUpload';
      return has(query, 'uploadId') ? 'CompleteMultipartUpload' : undefined;
    case 'DELETE':
      return has(query, 'uploadId') ? 'AbortMultipartUpload' : 'DeleteObject';
    default:
      return undefined;
  }
}

/** Path-style addressing: `/<bucket>` or `/<bucket>/<key>` (the key may itself contain slashes). */
function splitPath(rawPath: string): { bucket: string; key: string } {
  const rest = rawPath.slice(1);
  const slash = rest.indexOf('/');
  try {
    if (slash < 0) return { bucket: decodeURIComponent(rest), key: '' };
    return { bucket: decodeURIComponent(rest.slice(0, slash)), key: decodeURIComponent(rest.slice(slash + 1)) };
  } catch {
    throw new S3Failure(400, 'InvalidURI', "Couldn't parse the specified URI.");
  }
}

const FAULT_CODES: Record<string, string> = {
  internal_error: 'InternalError',
  service_unavailable: 'ServiceUnavailable',
  too_many_requests: 'SlowDown',
};

export function createS3FrontEnd(ctx: SandboxContext): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const store = ctx.store;
  const state: S3State = { ctx, multipartEtags: new Map() };
  const operations: Record<string, Operation> = { ...objectOperations(state), ...multipartOperations(state), ...bucketOperations(state) };

  return async function handleS3(req, res) {
    const method = req.method ?? 'GET';
    const requestId = randomBytes(8).toString('hex').toUpperCase();
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const rawPath = q < 0 ? target : target.slice(0, q);
    let operation = 'unknown';
    let faultKind: string | undefined;
    res.on('close', () =>
      ctx.requests.record({
        time: store.now(),
        api: 's3',
        operation,
        method,
        status: res.headersSent ? res.statusCode : 0,
        ...(faultKind ? { fault: faultKind as never } : {}),
      }),
    );
    const common = () => ({
      'x-amz-request-id': requestId,
      'x-amz-id-2': requestId,
      Date: httpDate(store.now()),
      Server: 'b2-mcp-sandbox',
    });
    const renderFault: RenderError = (_status, code, message) => ({
      contentType: 'application/xml',
      body: errorDocument(FAULT_CODES[code] ?? 'InternalError', message, rawPath, requestId),
    });

    try {
      const query = parseQuery(q < 0 ? '' : target.slice(q + 1));
      const { bucket, key } = splitPath(rawPath);
      const found = operationFor(method, bucket, key, query, req.headers['x-amz-copy-source'] !== undefined);
      if (found) operation = found;
      if (ctx.faults.latencyMs > 0) await sleep(ctx.faults.latencyMs);
      const decision = ctx.faults.decide(operation);
      if (decision) faultKind = decision.kind;
      if (decision && decision.phase === 'before') {
        await performFault(decision, req, res, renderFault);
        return;
      }
      const wire: WireRequest = { method, rawPath, query, headers: req.headers };
      const caller = await authenticate(wire, store);
      if (!found)
        throw new S3Failure(501, 'NotImplemented', 'A header or query you provided implies functionality that is not implemented');
      const mutated = (t: MutationTarget) =>
        store.mutations.record({ time: store.now(), api: 's3', operation: found, method, endpoint: rawPath, ...t });
      const outcome = await operations[found]!({ req, headers: req.headers, query, caller, bucketName: bucket, key, mutated });
      if (decision) {
        outcome.stream?.destroy();
        await performFault(decision, req, res, renderFault);
        return;
      }
      send(res, method, outcome, common());
    } catch (error) {
      const failure = toS3Failure(error);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const headers: Record<string, string> = { ...common(), ...failure.headers };
      // An unread upload body is not worth draining: answer and close the connection.
      if (!req.complete) headers.Connection = 'close';
      if (method === 'HEAD') {
        res.writeHead(failure.status, headers);
        res.end();
        return;
      }
      const body = errorDocument(failure.code, failure.message, rawPath, requestId);
      res.writeHead(failure.status, { ...headers, 'Content-Type': 'application/xml', 'Content-Length': String(Buffer.byteLength(body)) });
      res.end(body);
    }
  };
}

function send(res: ServerResponse, method: string, outcome: Outcome, common: Record<string, string>): void {
  const headers: Record<string, string> = { ...common, ...outcome.headers };
  if (outcome.xml !== undefined) {
    res.writeHead(outcome.status, {
      ...headers,
      'Content-Type': 'application/xml',
      'Content-Length': String(Buffer.byteLength(outcome.xml)),
    });
    res.end(method === 'HEAD' ? undefined : outcome.xml);
    return;
  }
  if (!outcome.stream) {
    if (headers['Content-Length'] === undefined && outcome.status !== 204) headers['Content-Length'] = '0';
    res.writeHead(outcome.status, headers);
    res.end();
    return;
  }
  res.writeHead(outcome.status, headers);
  const stream = outcome.stream;
  stream.on('error', () => res.destroy());
  res.on('close', () => stream.destroy());
  stream.pipe(res);
}
