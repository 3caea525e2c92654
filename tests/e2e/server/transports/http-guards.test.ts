import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeGuardSuites, startProcessTarget } from '../../../support/http-guard-support.js';
import { JSON_HEADERS, openRequest, rawRequest } from '../../../support/http-client.js';
import { serverEnv, startHttpServer, type HttpServer } from '../../../support/server-harness.js';

const MIB = 1_048_576;

describe('b2-mcp http: the shared HTTP guard cases', () => {
  describeGuardSuites(startProcessTarget);
});

describe('b2-mcp http: what only a socket can show', () => {
  let http: HttpServer;
  beforeAll(async () => {
    http = await startHttpServer(
      serverEnv({ B2_MCP_PROFILE: 'default', B2_API_URL: 'http://127.0.0.1:9', B2_HTTP_CREDENTIAL_MODE: 'headers' }),
    );
  });
  afterAll(() => http?.stop());

  it('refuses a request without a Host header with 403', async () => {
    const res = await rawRequest(http.url, { method: 'GET', omitHost: true });
    expect([res.status, res.json()]).toEqual([403, { error: 'Host/Origin not allowed' }]);
  });

  it('answers a request target no URL can hold with 400, and keeps serving', async () => {
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(http.url.port), http.url.hostname, () =>
        socket.write('GET //[ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'),
      );
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.once('close', () => resolve(text));
      socket.once('error', reject);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400 /);
    expect(reply).toContain('{"error":"Bad request"}');
    expect((await rawRequest(http.url, { method: 'GET', path: '/health' })).status).toBe(200);
  });

  it('refuses a chunked body once it streams past 1 MiB with 413 and Connection: close, before the upload ends', async () => {
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
});
