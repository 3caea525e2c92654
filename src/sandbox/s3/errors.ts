/**
 * S3 refusals. The store speaks B2 (`SandboxError` with B2 codes); the S3 front end answers in
 * S3's terms: an XML `<Error>` body with S3's code, or a bare status for HEAD requests.
 */
import { SandboxError } from '../errors.js';

export class S3Failure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra response headers, e.g. `x-amz-delete-marker` on a hidden object. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'S3Failure';
  }
}

/** B2 code → S3 status and code, for the refusals the store can raise under S3 operations. */
const FROM_B2: Record<string, [number, string]> = {
  unauthorized: [403, 'AccessDenied'],
  access_denied: [403, 'AccessDenied'],
  bad_bucket_id: [404, 'NoSuchBucket'],
  file_not_present: [404, 'NoSuchVersion'],
  invalid_part: [400, 'InvalidPart'],
  invalid_part_order: [400, 'InvalidPartOrder'],
  part_too_small: [400, 'EntityTooSmall'],
  range_not_satisfiable: [416, 'InvalidRange'],
  conflict: [409, 'OperationAborted'],
  file_lock_conflict: [400, 'InvalidRequest'],
  bad_request: [400, 'InvalidArgument'],
};

export function toS3Failure(error: unknown): S3Failure {
  if (error instanceof S3Failure) return error;
  if (error instanceof SandboxError) {
    const [status, code] = FROM_B2[error.code] ?? [500, 'InternalError'];
    return new S3Failure(status, code, error.message);
  }
  return new S3Failure(500, 'InternalError', `internal sandbox error: ${(error as Error).message}`);
}

export const noSuchBucket = (bucket: string) => new S3Failure(404, 'NoSuchBucket', `The specified bucket does not exist: ${bucket}`);
export const noSuchKey = (key: string) => new S3Failure(404, 'NoSuchKey', `The specified key does not exist: ${key}`);
export const noSuchUpload = (uploadId: string) =>
  new S3Failure(404, 'NoSuchUpload', `The specified multipart upload does not exist: ${uploadId}`);
export const invalidArgument = (message: string) => new S3Failure(400, 'InvalidArgument', message);
export const invalidRequest = (message: string) => new S3Failure(400, 'InvalidRequest', message);
export const malformedXml = (message: string) =>
  new S3Failure(
    400,
    'MalformedXML',
    `The XML you provided was not well-formed or did not validate against our published schema: ${message}`,
  );
export const accessDenied = (message: string) => new S3Failure(403, 'AccessDenied', message);
