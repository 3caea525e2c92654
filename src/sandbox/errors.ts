/**
 * A refusal from the store or a front end, in B2's terms. The native front end renders it as the
 * B2 error body `{status, code, message}`; the S3 front end maps `code` to its own XML codes.
 */
export class SandboxError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}

export const badRequest = (message: string) => new SandboxError(400, 'bad_request', message);
export const unauthorized = (message: string) => new SandboxError(401, 'unauthorized', message);
export const accessDenied = (message: string) => new SandboxError(403, 'access_denied', message);
export const notFound = (message: string) => new SandboxError(404, 'not_found', message);
