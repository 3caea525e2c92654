/**
 * Errors of the native B2 client. Every failure of a B2 call is a `B2Error` with an HTTP-style
 * `status` and a `code`, so tool handlers render one shape:
 *   B2ApiError              — B2 answered with its error body `{status, code, message}`
 *   B2InvalidResponseError  — B2 (or something in between) answered with something else
 *   B2TransportError        — no answer: network failure (503 `network_error`) or timeout
 *                             (504 `request_timeout`)
 * Messages never contain credentials or authorization tokens.
 */
import { StatusError } from '../errors.js';

export class B2Error extends StatusError {
  /** How long B2 asked the caller to wait (from `Retry-After`), if it did. */
  retryAfterMs?: number;

  constructor(
    status: number,
    code: string,
    message: string,
    /** The B2 operation, e.g. `b2_list_buckets`. */
    readonly operation: string,
    requestId?: string,
  ) {
    super(status, code, message, requestId);
    this.name = 'B2Error';
  }
}

export class B2ApiError extends B2Error {
  constructor(status: number, code: string, message: string, operation: string, requestId?: string) {
    super(status, code, message, operation, requestId);
    this.name = 'B2ApiError';
  }
}

export class B2InvalidResponseError extends B2Error {
  constructor(status: number, message: string, operation: string, requestId?: string) {
    super(status, 'invalid_response', message, operation, requestId);
    this.name = 'B2InvalidResponseError';
  }
}

export class B2TransportError extends B2Error {
  constructor(kind: 'network_error' | 'request_timeout', message: string, operation: string) {
    super(kind === 'request_timeout' ? 504 : 503, kind, message, operation);
    this.name = 'B2TransportError';
  }
}

/**
 * Bad client configuration (credentials, endpoint URL), or an endpoint from B2 that breaks the
 * https/loopback rule. Never retried.
 */
export class B2ConfigError extends B2Error {
  constructor(message: string) {
    super(400, 'invalid_configuration', message, 'configuration');
    this.name = 'B2ConfigError';
  }
}
