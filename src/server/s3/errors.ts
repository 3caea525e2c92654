/**
 * Failures of S3 calls, as tool errors: S3's own code and HTTP status (`NoSuchKey`, `AccessDenied`,
 * `InvalidPart`, ...), S3's request id, and a hint where the usual cause is known. This module is
 * light on purpose: it must not load the AWS SDK.
 */
import { ToolError } from '../errors.js';

export const MASTER_KEY_HINT =
  " Hint: B2's S3-compatible endpoint does not accept the account's master key; configure an application key (B2_APPLICATION_KEY_ID / B2_APPLICATION_KEY).";

/** A failed S3 call, rendered by the registry like every tool error. */
export class S3Error extends ToolError {
  constructor(status: number, code: string, message: string, requestId?: string) {
    super(status, code, message, requestId);
    this.name = 'S3Error';
  }
}

/** HEAD responses carry no error body; the SDK then names the error after the status. */
const HEAD_CODES: Record<number, string> = { 400: 'BadRequest', 403: 'AccessDenied', 405: 'MethodNotAllowed' };

/** What the SDK throws, as far as this module looks at it. */
interface SdkFailure {
  name?: string;
  message?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number; requestId?: string };
  $response?: { statusCode?: number };
}

const CODE_SHAPE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
]);

/**
 * Convert anything an S3 call threw. `notFound` names the resource a bodiless 404 means (HEAD):
 * `NoSuchKey` for an object, `NoSuchBucket` for a bucket.
 */
export function s3ErrorFrom(error: unknown, notFound: 'NoSuchKey' | 'NoSuchBucket' = 'NoSuchKey'): ToolError {
  if (error instanceof ToolError) return error;
  const failure = (error ?? {}) as SdkFailure;
  const status = failure.$metadata?.httpStatusCode ?? failure.$response?.statusCode;
  const requestId = failure.$metadata?.requestId;
  const name = failure.name ?? 'Error';
  if (name === 'AbortError' || failure.code === 'ABORT_ERR')
    return new S3Error(499, 'cancelled', 'The S3 call was cancelled before it finished.');
  if (status === undefined) {
    // The SDK names a dropped connection (`socket hang up`, ECONNRESET) a TimeoutError too: the code tells them apart.
    if (failure.code && failure.code !== 'ETIMEDOUT' && NETWORK_CODES.has(failure.code)) {
      return new S3Error(503, 'network_error', `Could not reach the S3 endpoint (${failure.code}).`);
    }
    if (name === 'TimeoutError' || failure.code === 'ETIMEDOUT')
      return new S3Error(504, 'request_timeout', 'The S3 endpoint did not answer in time.');
    return new S3Error(502, 'invalid_response', `The S3 call failed without an HTTP answer: ${failure.message ?? name}`);
  }
  let code = CODE_SHAPE.test(name) && name !== 'Error' && name !== 'Unknown' ? name : `http_${status}`;
  let message = failure.message && failure.message !== 'UnknownError' ? failure.message : `S3 answered HTTP ${status}`;
  if (code === 'NotFound' || (status === 404 && code === `http_${status}`)) {
    code = notFound;
    message =
      notFound === 'NoSuchBucket' ? 'The bucket does not exist or this key cannot see it.' : 'The object (or version) does not exist.';
  } else if (HEAD_CODES[status] && (code === 'Forbidden' || code === `http_${status}` || code === HEAD_CODES[status])) {
    code = HEAD_CODES[status]!;
    if (message.startsWith('S3 answered') || message === code) message = status === 403 ? 'Access denied.' : message;
  }
  if (code === 'InvalidAccessKeyId' || /malformed access key id/i.test(message)) message += MASTER_KEY_HINT;
  return new S3Error(status, code, message, requestId);
}
