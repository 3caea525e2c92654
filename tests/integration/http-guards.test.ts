import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverEnv, startHttpServer, type HttpServer } from '../support/server-harness.js';
import { JSON_HEADERS, legacyInitialize, modernMessage, openRequest, postJson, rawRequest } from '../support/http-client.js';

const MIB = 1_048_576;
const TENANT = { 'x-b2-mcp-key-id': 'tenant-key-id', 'x-b2-mcp-key': 'tenant-secret-value' };
const HEALTH_OK = { status: 'ok', server: 'backblaze-b2-mcp', version: expect.any(String), activeSessions: 0, inFlightRequests: 0, openSubscriptions: 0 };

async function withServer(env: Record<string, string>): Promise<HttpServer> {
  return startHttpServer(serverEnv({ B2_MCP_PROFILE: 'default', B2_API_URL: 'http://127.0.0.1:9', B2_HTTP_CREDENTIAL_MODE: 'headers', ...env }));
}

describe('HTTP transport with default settings (headers mode, loopback only)', () => {
  let http: HttpServer;
  beforeAll(async () => {
    http = await withServer({});
  });
  afterAll(() => http?.stop());

  it('answers 404 off the MCP and health paths, and 405 with Allow for other methods', async () => {
    const missing = await rawRequest(http.url, { method: 'GET', path: '/elsewhere' });
    expect([missing.status, missing.json()]).toEqual([404, { error: 'Not found' }]);
    for (const path of ['/mcp', '/api/mcp']) {
      const put = await rawRequest(http.url, { method: 'PUT', path, body: '{}' });
      expect([put.status, put.headers.allow, put.json()]).toEqual([405, 'GET, POST, DELETE', { error: 'Method not allowed' }]);
    }
    const postHealth = await rawRequest(http.url, { method: 'POST', path: '/health', body: '{}' });
    expect([postHealth.status, postHealth.headers.allow]).toEqual([405, 'GET']);
  });

  it('reports health and readiness on /health, /ready and /api/health', async () => {
    for (const path of ['/health', '/ready', '/api/health']) {
      const res = await rawRequest(http.url, { method: 'GET', path });
      expect(res.status, path).toBe(200);
      expect(res.json(), path).toEqual(HEALTH_OK);
    }
  });

  it('refuses a foreign or missing Host and a foreign or opaque Origin with 403', async () => {
    const cases: Array<[string, Record<string, string>, boolean?]> = [
      ['foreign host', { host: 'evil.example' }],
      ['rebinding host with loopback port', { host: 'evil.example:3000' }],
      ['missing host', {}, true],
      ['foreign origin', { origin: 'http://evil.example' }],
      ['opaque origin', { origin: 'null' }],
    ];
    for (const [label, headers, omitHost] of cases) {
      const res = await rawRequest(http.url, { method: 'GET', headers, omitHost });
      expect([res.status, res.json()], label).toEqual([403, { error: 'Host/Origin not allowed' }]);
    }
    // Loopback names pass (the SDK then answers GET itself: no server-to-client stream).
    for (const headers of [{ host: 'localhost:1234' }, { host: '[::1]:80' }, { origin: 'http://localhost:5173' }, { origin: 'http://127.0.0.1' }]) {
      expect((await rawRequest(http.url, { method: 'GET', headers })).status, JSON.stringify(headers)).toBe(405);
    }
  });

  it('refuses a body over 1 MiB by Content-Length with 413 and Connection: close', async () => {
    const res = await rawRequest(http.url, { headers: JSON_HEADERS, body: Buffer.alloc(MIB + 1, 0x20) });
    expect([res.status, res.headers.connection, res.json()]).toEqual([413, 'close', { error: 'Request body too large' }]);
  });

  it('refuses a chunked body once it streams past 1 MiB with 413 and Connection: close', async () => {
    const upload = openRequest(http.url, { headers: { ...JSON_HEADERS, 'transfer-encoding': 'chunked' } });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    while (!upload.answered() && sent < 4 * MIB) {
      upload.write(chunk);
      sent += chunk.byteLength;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const res = await upload.response;
    expect([res.status, res.headers.connection, res.json()]).toEqual([413, 'close', { error: 'Request body too large' }]);
    expect(sent).toBeGreaterThan(MIB);
    expect(sent).toBeLessThan(4 * MIB);
  });

  it('accepts a body of exactly 1 MiB (it reaches the credential check)', async () => {
    const message = JSON.stringify(modernMessage('tools/list'));
    const res = await rawRequest(http.url, { headers: JSON_HEADERS, body: message.padEnd(MIB, ' ') });
    expect(res.status).toBe(401);
  });

  it('answers a modern request without credentials with 401 and JSON-RPC error -32001', async () => {
    const res = await postJson(http.url, modernMessage('tools/list', {}, 7));
    expect(res.status).toBe(401);
    expect(res.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32001,
        message: 'Missing B2 credentials: send the x-b2-mcp-key-id and x-b2-mcp-key headers.',
        data: { code: 'missing_credentials', status: 401 },
      },
    });
  });

  it('answers a legacy request without credentials with a plain 401', async () => {
    const res = await postJson(http.url, legacyInitialize());
    expect([res.status, res.json()]).toEqual([
      401,
      { error: 'Missing B2 credentials: send the x-b2-mcp-key-id and x-b2-mcp-key headers.', code: 'missing_credentials' },
    ]);
  });

  it('refuses half a credential pair and disagreeing aliases with 400', async () => {
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ 'x-b2-mcp-key-id': 'id-only' }, 'partial_credential', 'Incomplete credential pair: x-b2-mcp-key-id was sent without x-b2-mcp-key.'],
      [{ 'x-b2-key': 'secret-only' }, 'partial_credential', 'Incomplete credential pair: x-b2-mcp-key was sent without x-b2-mcp-key-id.'],
      [{ ...TENANT, 'x-b2-master-key-id': 'master-id' }, 'partial_credential', 'Incomplete credential pair: x-b2-mcp-master-key-id was sent without x-b2-mcp-master-key.'],
      [{ ...TENANT, 'x-b2-mcp-app-key': 'app-secret' }, 'partial_credential', 'Incomplete credential pair: x-b2-mcp-app-key was sent without x-b2-mcp-app-key-id.'],
      [{ ...TENANT, 'x-b2-key-id': 'another-id' }, 'conflicting_headers', 'Conflicting credential headers: x-b2-mcp-key-id and x-b2-key-id carry different values.'],
    ];
    for (const [headers, code, message] of cases) {
      const res = await postJson(http.url, modernMessage('tools/list', {}, 'c'), headers);
      expect(res.status, code).toBe(400);
      expect(res.json(), message).toEqual({ jsonrpc: '2.0', id: 'c', error: { code: -32001, message, data: { code, status: 400 } } });
    }
    // Aliases that agree are fine.
    const agreeing = await postJson(http.url, modernMessage('tools/list'), { ...TENANT, 'x-b2-key-id': TENANT['x-b2-mcp-key-id'] });
    expect(agreeing.status).toBe(200);
  });

  it('serves a credentialed modern request, filling the standard headers a plain client left out', async () => {
    const res = await postJson(http.url, modernMessage('tools/list'), TENANT);
    expect(res.status).toBe(200);
    const { result } = res.json() as { result: { tools: unknown[] } };
    expect(result.tools).toHaveLength(37);
  });

  it('refuses an Mcp-Name header that disagrees with the body (400, -32020) before looking at credentials', async () => {
    const message = modernMessage('tools/call', { name: 'b2_list_buckets', arguments: {} }, 3);
    const res = await postJson(http.url, message, { 'mcp-name': 'b2_delete_bucket' });
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: {
        code: -32020,
        message: 'Bad Request: the Mcp-Name header names "b2_delete_bucket" but the body names "b2_list_buckets"',
        data: { mismatch: { header: 'b2_delete_bucket', body: 'b2_list_buckets' } },
      },
    });
  });

  it('lets protocol-only requests reach the SDK without credentials', async () => {
    const get = await rawRequest(http.url, { method: 'GET', headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    const notJson = await rawRequest(http.url, { headers: { 'content-type': 'text/plain', accept: JSON_HEADERS.accept }, body: 'hello' });
    expect(notJson.status).toBe(415);
    const otherRevision = modernMessage('tools/list');
    (otherRevision.params as { _meta: Record<string, unknown> })._meta['io.modelcontextprotocol/protocolVersion'] = '2099-01-01';
    const future = await postJson(http.url, otherRevision);
    expect(future.status).not.toBe(401);
    expect(JSON.stringify(future.json())).toMatch(/2099-01-01/);
  });
});

describe('HTTP transport in server credential mode', () => {
  let withKey: HttpServer;
  let withoutKey: HttpServer;
  beforeAll(async () => {
    [withKey, withoutKey] = await Promise.all([
      withServer({ B2_HTTP_CREDENTIAL_MODE: 'server', B2_APPLICATION_KEY_ID: 'server-key-id', B2_APPLICATION_KEY: 'server-key-secret' }),
      withServer({ B2_HTTP_CREDENTIAL_MODE: 'server' }),
    ]);
  });
  afterAll(() => Promise.all([withKey?.stop(), withoutKey?.stop()]));

  it('serves without credential headers and refuses any credential header with 400', async () => {
    expect((await postJson(withKey.url, modernMessage('tools/list'))).status).toBe(200);
    for (const header of ['x-b2-mcp-key-id', 'x-b2-key', 'x-b2-app-key-id', 'x-b2-mcp-master-key']) {
      const res = await postJson(withKey.url, modernMessage('tools/list', {}, 9), { [header]: 'anything' });
      expect(res.status, header).toBe(400);
      expect(res.json(), header).toEqual({
        jsonrpc: '2.0',
        id: 9,
        error: {
          code: -32001,
          message: 'This server uses its own B2 credentials (B2_HTTP_CREDENTIAL_MODE=server); do not send credential headers.',
          data: { code: 'credential_headers_rejected', status: 400 },
        },
      });
    }
    // Checked before protocol dispatch: even a bare GET is refused.
    const get = await rawRequest(withKey.url, { method: 'GET', headers: { 'x-b2-key-id': 'anything' } });
    expect([get.status, (get.json() as { code: string }).code]).toEqual([400, 'credential_headers_rejected']);
  });

  it('is ready only when the server has its own key', async () => {
    expect((await rawRequest(withKey.url, { method: 'GET', path: '/ready' })).json()).toEqual(HEALTH_OK);
    const notReady = await rawRequest(withoutKey.url, { method: 'GET', path: '/ready' });
    expect(notReady.status).toBe(503);
    expect(notReady.json()).toEqual({ ...HEALTH_OK, status: 'error', error: 'Credential configuration invalid' });
  });
});

describe('HTTP Host/Origin allowlists', () => {
  let hostsOnly: HttpServer;
  let withOrigins: HttpServer;
  beforeAll(async () => {
    [hostsOnly, withOrigins] = await Promise.all([
      withServer({ B2_ALLOWED_HOSTS: ' MCP.example.com , api.example.com:8443 ' }),
      withServer({ B2_ALLOWED_HOSTS: 'mcp.example.com', B2_ALLOWED_ORIGINS: 'https://app.example.com' }),
    ]);
  });
  afterAll(() => Promise.all([hostsOnly?.stop(), withOrigins?.stop()]));

  const status = async (http: HttpServer, headers: Record<string, string>, path = '/mcp'): Promise<number> =>
    (await rawRequest(http.url, { method: 'GET', path, headers })).status;

  it('matches Host exactly, or by hostname when the entry has no port', async () => {
    expect(await status(hostsOnly, { host: 'mcp.example.com' })).toBe(405);
    expect(await status(hostsOnly, { host: 'mcp.example.com:3000' })).toBe(405);
    expect(await status(hostsOnly, { host: 'api.example.com:8443' })).toBe(405);
    expect(await status(hostsOnly, { host: 'api.example.com:9999' })).toBe(403);
    expect(await status(hostsOnly, { host: 'api.example.com' })).toBe(403);
    expect(await status(hostsOnly, { host: 'localhost' })).toBe(403);
  });

  it('matches Origin against the host list when no origin list is set', async () => {
    expect(await status(hostsOnly, { host: 'mcp.example.com', origin: 'https://mcp.example.com' })).toBe(405);
    expect(await status(hostsOnly, { host: 'mcp.example.com', origin: 'https://api.example.com:8443' })).toBe(405);
    expect(await status(hostsOnly, { host: 'mcp.example.com', origin: 'https://evil.example' })).toBe(403);
    expect(await status(hostsOnly, { host: 'mcp.example.com', origin: 'http://localhost' })).toBe(403);
  });

  it('matches Origin exactly against the origin list when one is set', async () => {
    expect(await status(withOrigins, { host: 'mcp.example.com', origin: 'https://app.example.com' })).toBe(405);
    expect(await status(withOrigins, { host: 'mcp.example.com', origin: 'https://mcp.example.com' })).toBe(403);
    expect(await status(withOrigins, { host: 'mcp.example.com', origin: 'https://app.example.com:443x' })).toBe(403);
  });

  it('always lets a loopback health probe through, and nothing else from a foreign Host', async () => {
    expect(await status(hostsOnly, { host: 'localhost' }, '/health')).toBe(200);
    expect(await status(hostsOnly, { host: '127.0.0.1:8080', origin: 'http://localhost' }, '/ready')).toBe(200);
    expect(await status(hostsOnly, { host: 'evil.example' }, '/health')).toBe(403);
    expect(await status(hostsOnly, { host: 'localhost', origin: 'https://evil.example' }, '/health')).toBe(403);
  });
});
