/**
 * How an injected fault reaches the wire. Front ends supply how their error bodies look (B2 JSON
 * for native, S3 XML for S3); transport faults (reset, stall) and garbage are the same for both.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultDecision } from './faults.js';
import { sleep } from './http.js';

export interface ErrorRendering {
  contentType: string;
  body: string;
}

export type RenderError = (status: number, code: string, message: string) => ErrorRendering;

const ERROR_FAULTS: Record<'500' | '503' | '429', { status: number; code: string; message: string }> = {
  '500': { status: 500, code: 'internal_error', message: 'sandbox fault injection: internal error' },
  '503': { status: 503, code: 'service_unavailable', message: 'sandbox fault injection: service unavailable' },
  '429': { status: 429, code: 'too_many_requests', message: 'sandbox fault injection: too many requests' },
};

export async function performFault(decision: FaultDecision, req: IncomingMessage, res: ServerResponse, render: RenderError): Promise<void> {
  switch (decision.kind) {
    case 'reset':
      req.socket.destroy();
      return;
    case 'stall':
      await sleep(decision.stallMs);
      req.socket.destroy();
      return;
    case 'garbage': {
      const body = '<html><head><title>500 Internal Server Error</title></head><body><h1>Internal Server Error</h1></body></html>';
      res.writeHead(500, { 'Content-Type': 'text/html', 'Content-Length': String(Buffer.byteLength(body)) });
      res.end(body);
      return;
    }
    case 'badjson': {
      const body = '{"buckets": [{"bucketId": ';
      res.writeHead(200, { 'Content-Type': 'application/json;charset=utf-8', 'Content-Length': String(body.length) });
      res.end(body);
      return;
    }
    default: {
      const fault = ERROR_FAULTS[decision.kind];
      const rendered = render(fault.status, fault.code, fault.message);
      const headers: Record<string, string> = {
        'Content-Type': rendered.contentType,
        'Content-Length': String(Buffer.byteLength(rendered.body)),
      };
      if (decision.kind !== '500') headers['Retry-After'] = String(decision.retryAfterSeconds);
      res.writeHead(fault.status, headers);
      res.end(rendered.body);
    }
  }
}
