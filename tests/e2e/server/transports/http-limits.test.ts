import { spawnSync } from 'node:child_process';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../../../src/server/start.js';
import { serveOverHttp } from '../../../../src/server/transports/http.js';
import { loadHttpSettings } from '../../../../src/server/transports/http-settings.js';
import { SERVER_BIN, serverEnv, startHttpServer, type HttpServer } from '../../../support/server-harness.js';
import { LIST_HEADERS, modernMessage, openRequest, postJson, rawRequest, type StreamingRequest } from '../../../support/http-client.js';

const TENANT_A = { 'x-b2-mcp-key-id': 'tenant-a-id', 'x-b2-mcp-key': 'tenant-a-secret' };
const TENANT_B = { 'x-b2-mcp-key-id': 'tenant-b-id', 'x-b2-mcp-key': 'tenant-b-secret' };

function withServer(env: Record<string, string>): Promise<HttpServer> {
  return startHttpServer(
    serverEnv({ B2_MCP_PROFILE: 'default', B2_API_URL: 'http://127.0.0.1:9', B2_HTTP_CREDENTIAL_MODE: 'headers', ...env }),
  );
}

async function inFlight(http: HttpServer): Promise<number> {
  return ((await rawRequest(http.url, { method: 'GET', path: '/health' })).json() as { inFlightRequests: number }).inFlightRequests;
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A modern tools/list whose body is held back after the first byte, keeping the request in flight. */
function heldRequest(http: HttpServer, headers: Record<string, string>): { request: StreamingRequest; finish(): void } {
  const body = JSON.stringify(modernMessage('tools/list'));
  const request = openRequest(http.url, { headers: { ...LIST_HEADERS, ...headers, 'content-length': String(Buffer.byteLength(body)) } });
  request.write(body.slice(0, 1));
  return { request, finish: () => request.end(body.slice(1)) };
}

describe('HTTP timeouts', () => {
  let http: HttpServer;
  beforeAll(async () => {
    http = await withServer({ B2_HTTP_REQUEST_TIMEOUT_MS: '1200', B2_HTTP_HEADERS_TIMEOUT_MS: '300' });
  });
  afterAll(() => http?.stop());

  /** Writes `text` on a raw socket and resolves with everything received until the server closes. */
  const rawExchange = (text: string): Promise<{ reply: string; ms: number }> =>
    new Promise((resolve, reject) => {
      const started = Date.now();
      const socket = connect(Number(http.url.port), http.url.hostname, () => socket.write(text));
      let reply = '';
      socket.on('data', (chunk) => (reply += chunk.toString()));
      socket.once('close', () => resolve({ reply, ms: Date.now() - started }));
      socket.once('error', reject);
    });

  it('closes a connection whose headers do not arrive in time with 408', async () => {
    const { reply, ms } = await rawExchange('GET /health HTTP/1.1\r\nHost: localhost\r\n');
    expect(reply).toMatch(/^HTTP\/1\.1 408 /);
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(1_200);
  });

  it('closes a request whose body does not arrive in time with 408', async () => {
    const { reply, ms } = await rawExchange(
      'POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"json',
    );
    expect(reply).toMatch(/^HTTP\/1\.1 408 /);
    expect(ms).toBeGreaterThanOrEqual(1_100);
    expect(ms).toBeLessThan(3_000);
  });
});

describe('HTTP settings validation', () => {
  it.each([
    ['B2_MCP_RATE_LIMIT_RPS', 'fast', 'B2_MCP_RATE_LIMIT_RPS must be a positive number (got "fast").'],
    ['B2_MCP_RATE_LIMIT_BURST', '1.5', 'B2_MCP_RATE_LIMIT_BURST must be a positive whole number (got "1.5").'],
    ['B2_MAX_SESSIONS', '0', 'B2_MAX_SESSIONS must be a positive whole number (got "0").'],
    ['B2_HTTP_REQUEST_TIMEOUT_MS', '-5', 'B2_HTTP_REQUEST_TIMEOUT_MS must be a positive whole number (got "-5").'],
    ['B2_HTTP_CREDENTIAL_MODE', 'oauth', 'B2_HTTP_CREDENTIAL_MODE must be one of headers, server, principal (got "oauth").'],
    [
      'B2_HTTP_CREDENTIAL_MODE',
      'principal',
      'B2_HTTP_CREDENTIAL_MODE=principal needs B2_OAUTH_ISSUER: the B2 key is chosen by the verified token subject.',
    ],
    [
      'B2_APPLICATION_KEY_FILE',
      '/nonexistent/b2-key',
      'B2_APPLICATION_KEY_FILE names a file that cannot be read (/nonexistent/b2-key: ENOENT).',
    ],
    ['B2_TRUST_PROXY_HEADERS', 'yes', 'B2_TRUST_PROXY_HEADERS must be one of true, false (got "yes").'],
    ['B2_TRUSTED_PROXY_HOPS', '0', 'B2_TRUSTED_PROXY_HOPS must be a positive whole number (got "0").'],
    ['B2_ELICITATION_TIMEOUT_MS', '1.5', 'B2_ELICITATION_TIMEOUT_MS must be a positive whole number of milliseconds (got "1.5").'],
    ['B2_OAUTH_AUDIENCE', 'https://mcp.example.com/mcp', 'B2_OAUTH_AUDIENCE needs B2_OAUTH_ISSUER.'],
  ])('%s=%s is a startup error', (name, value, message) => {
    const run = spawnSync(process.execPath, [SERVER_BIN, 'http', '--port', '0'], {
      env: serverEnv({ B2_MCP_PROFILE: 'default', [name]: value }),
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(`b2-mcp: configuration error: ${message}\n`);
  });
});

describe('HTTP graceful drain on SIGTERM', () => {
  it('finishes the request in flight, refuses new ones with 503, and exits promptly', async () => {
    const http = await withServer({});
    const exited = new Promise<number | null>((resolve) => http.process.once('exit', (code) => resolve(code)));
    const held = heldRequest(http, TENANT_A);
    await until(async () => (await inFlight(http)) === 1, 'the request to be in flight');

    const signalled = Date.now();
    http.process.kill('SIGTERM');
    await until(async () => (await rawRequest(http.url, { method: 'GET', path: '/health' })).status === 503, 'draining to start');
    const refused = await postJson(http.url, modernMessage('tools/list'), TENANT_B);
    expect([refused.status, refused.headers.connection, refused.json()]).toEqual([503, 'close', { error: 'Server is shutting down' }]);

    held.finish();
    const finished = await held.request.response;
    expect(finished.status).toBe(200);
    expect((finished.json() as { result: { tools: unknown[] } }).result.tools.length).toBe(37);
    expect(await exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(10_000);
  });
});

describe('HTTP drain deadline (in process)', () => {
  it('closes a request that never finishes once the drain deadline passes', async () => {
    const runtime = await createRuntime({ B2_MCP_PROFILE: 'default', B2_SECRET_SINK: 'off', LOG_LEVEL: 'silent' }, 'http');
    const handle = await serveOverHttp(runtime, { port: 0, host: '127.0.0.1', settings: loadHttpSettings({}) });
    const http = { url: new URL(`http://127.0.0.1:${(handle.server.address() as AddressInfo).port}/mcp`) } as HttpServer;
    const stalled = heldRequest(http, TENANT_A);
    const outcome = stalled.request.response.then(
      (res) => `answered ${res.status}`,
      (error: NodeJS.ErrnoException) => `closed ${error.code}`,
    );
    await until(async () => (await inFlight(http)) === 1, 'the request to be in flight');
    const started = Date.now();
    await handle.drain(300);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await outcome).toBe('closed ECONNRESET');
    expect(handle.server.listening).toBe(false);
  });
});
