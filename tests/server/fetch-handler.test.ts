import { describe, expect, it } from 'vitest';
import { createFetchHandler, type FetchHandler } from '../../src/index.js';
import { describeGuardSuites, startFetchTarget } from '../support/http-guard-support.js';
import { JSON_HEADERS, legacyInitialize, modernMessage, standardHeaders } from '../support/http-client.js';

const TENANT = { 'x-b2-mcp-key-id': 'tenant-key-id', 'x-b2-mcp-key': 'tenant-secret-value' };
const ENV = { B2_MCP_PROFILE: 'read-only', B2_API_URL: 'http://127.0.0.1:9', B2_SECRET_SINK: 'off', LOG_LEVEL: 'silent' };

const post = (
  handler: FetchHandler,
  message: unknown,
  headers: Record<string, string> = {},
  url = 'https://mcp.example.com/mcp',
): Promise<Response> =>
  handler(
    new Request(url, {
      method: 'POST',
      headers: { ...JSON_HEADERS, ...standardHeaders(message), ...headers },
      body: JSON.stringify(message),
    }),
  );

describe('createFetchHandler: the shared HTTP guard cases with plain Request objects', () => {
  describeGuardSuites(startFetchTarget);
});

describe('createFetchHandler', () => {
  it('serves both eras from Requests whose authority is only in the URL (as platforms build them)', async () => {
    const handler = createFetchHandler({ env: { ...ENV, B2_ALLOWED_HOSTS: 'mcp.example.com' } });
    try {
      const modern = await post(handler, modernMessage('tools/list'), TENANT);
      expect(modern.status).toBe(200);
      expect(((await modern.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(20);

      const opened = await post(handler, legacyInitialize(), TENANT);
      expect(opened.status).toBe(200);
      const session = { 'mcp-session-id': opened.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
      await opened.text();
      const listed = await post(handler, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { ...TENANT, ...session });
      expect([listed.status, await listed.text()]).toEqual([200, expect.stringMatching(/"b2_list_buckets"/)]);

      const elsewhere = await post(handler, modernMessage('tools/list'), TENANT, 'https://evil.example/mcp');
      expect([elsewhere.status, await elsewhere.json()]).toEqual([403, { error: 'Host/Origin not allowed' }]);
    } finally {
      await handler.close();
    }
  });

  it('counts a response in flight until its body is read to the end or cancelled', async () => {
    const handler = createFetchHandler({ env: ENV });
    const inFlight = async () =>
      ((await (await handler(new Request('http://localhost/health'))).json()) as { inFlightRequests: number }).inFlightRequests;
    try {
      const opened = await post(handler, legacyInitialize(), TENANT, 'http://localhost/mcp');
      await opened.text();
      const session = { 'mcp-session-id': opened.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
      const list = (id: number) =>
        post(handler, { jsonrpc: '2.0', id, method: 'tools/list' }, { ...TENANT, ...session }, 'http://localhost/mcp');
      const cancelled = await list(1);
      expect([cancelled.status, cancelled.headers.get('content-type')]).toEqual([200, 'text/event-stream']);
      expect(await inFlight()).toBe(1);
      await cancelled.body!.cancel();
      expect(await inFlight()).toBe(0);
      const read = await list(2);
      expect(await inFlight()).toBe(1);
      expect(await read.text()).toMatch(/"id":2/);
      expect(await inFlight()).toBe(0);
    } finally {
      await handler.close();
    }
  });

  it('reads its configuration from the env record, never from process.env', async () => {
    process.env.B2_MCP_PROFILE = 'full';
    try {
      const handler = createFetchHandler({ env: { ...ENV, B2_MCP_PROFILE: 'default' } });
      const res = await post(handler, modernMessage('tools/list'), TENANT, 'http://localhost/mcp');
      expect(((await res.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(37);
    } finally {
      delete process.env.B2_MCP_PROFILE;
    }
  });

  it('refuses invalid settings when it is created, with the variable named', () => {
    expect(() => createFetchHandler({ env: { ...ENV, B2_MCP_RATE_LIMIT_BURST: 'lots' } })).toThrow(
      'B2_MCP_RATE_LIMIT_BURST must be a positive whole number (got "lots").',
    );
    expect(() => createFetchHandler({ env: { ...ENV, B2_HTTP_CREDENTIAL_MODE: 'oauth2' } })).toThrow(
      /B2_HTTP_CREDENTIAL_MODE must be one of/,
    );
  });

  it('keys per-address limits on the address the platform reports', async () => {
    const handler = createFetchHandler({
      env: { ...ENV, B2_MCP_RATE_LIMIT_RPS: '0.1', B2_MCP_RATE_LIMIT_BURST: '1' },
      clientAddress: (request) => request.headers.get('x-test-peer') ?? undefined,
    });
    const fromPeer = (peer: string) => handler(new Request('http://localhost/mcp', { headers: { 'x-test-peer': peer } }));
    expect((await fromPeer('192.0.2.1')).status).toBe(405);
    expect((await fromPeer('192.0.2.1')).status).toBe(429);
    expect((await fromPeer('192.0.2.2')).status).toBe(405);
  });
});
