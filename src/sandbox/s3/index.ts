/**
 * The S3-compatible front end, mounted on the sandbox's S3 listener (`s3Url`, path-style:
 * `http://127.0.0.1:<s3Port>/<bucket>/<key>`). Issue [D] replaces this placeholder with the real
 * implementation over the same `SandboxContext` (store, faults, request log, mutation log).
 * Until then every request gets S3's XML `NotImplemented`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxContext } from '../context.js';

export function createS3FrontEnd(ctx: SandboxContext): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const body =
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
      '<Error><Code>NotImplemented</Code><Message>The sandbox S3 API is not implemented yet</Message></Error>';
    res.writeHead(501, { 'Content-Type': 'application/xml', 'Content-Length': String(Buffer.byteLength(body)) });
    res.end(body);
    ctx.requests.record({ time: ctx.store.now(), api: 's3', operation: 'unknown', method: req.method ?? 'GET', status: 501 });
  };
}
