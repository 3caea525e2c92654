/**
 * The server's failures that carry an HTTP-style `status` and a stable `code`: the backends'
 * (`b2/errors.ts`, `s3/errors.ts`), the credential checks' and the tools' own. The HTTP service
 * answers a request with a status error's status and code; the registry renders one a tool threw.
 */
export class StatusError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'StatusError';
  }
}

/** A failure the model sees as `B2 Error [code] (HTTP status): message`. */
export class ToolError extends StatusError {
  constructor(status: number, code: string, message: string, requestId?: string) {
    super(status, code, message, requestId);
    this.name = 'ToolError';
  }
}
