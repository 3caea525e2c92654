import { createServer, type Server } from 'node:http';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { SERVER_NAME } from '../../contract/constants.js';
import type { ServerRuntime } from '../server.js';

export const MCP_PATHS = new Set(['/mcp', '/api/mcp']);
const HEALTH_PATHS = new Set(['/health', '/ready', '/api/health']);

export interface HttpOptions {
  port: number;
  host: string;
}

function sendJson(res: import('node:http').ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Streamable HTTP at /mcp serving both eras; loopback Host/Origin only. */
export async function serveOverHttp(runtime: ServerRuntime, options: HttpOptions): Promise<Server> {
  // Server credential mode for now: every request is served with the process's own key.
  const { factory } = await runtime.sessionFor();
  const mcp = toNodeHandler(createMcpHandler(factory));
  const validHost = localhostHostValidation();
  const validOrigin = localhostOriginValidation();

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (!MCP_PATHS.has(path) && !HEALTH_PATHS.has(path)) return sendJson(res, 404, { error: 'Not found' });
    if (!validHost(req, res) || !validOrigin(req, res)) return;
    if (HEALTH_PATHS.has(path)) {
      return sendJson(res, 200, { status: 'ok', server: SERVER_NAME, version: runtime.version });
    }
    if (!['GET', 'POST', 'DELETE'].includes(req.method ?? '')) {
      return sendJson(res, 405, { error: 'Method not allowed' }, { allow: 'GET, POST, DELETE' });
    }
    void mcp(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return server;
}
