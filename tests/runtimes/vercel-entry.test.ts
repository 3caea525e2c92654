import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { JSON_HEADERS, legacyInitialize, modernMessage, standardHeaders } from '../support/http-client.js';
import { ALL_KEY_CAPABILITIES, createKey, sandboxCredentials, startTestSandbox } from '../support/sandbox-harness.js';

/**
 * The Vercel entry point (api/mcp.ts) as Vercel's Node.js runtime calls it: the module reads the
 * project's environment when loaded, and each method's export gets the platform's `Request`.
 */
describe('Vercel entry point (api/mcp.ts) under Node', () => {
  let sandbox: RunningSandbox;
  let entry: Record<'GET' | 'POST' | 'DELETE', (request: Request) => Promise<Response>>;
  const saved = { ...process.env };

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    const key = await createKey(sandbox, { capabilities: ALL_KEY_CAPABILITIES });
    Object.assign(process.env, sandboxCredentials(sandbox, key), {
      B2_HTTP_CREDENTIAL_MODE: 'server',
      B2_MCP_PROFILE: 'read-only',
      B2_ALLOWED_HOSTS: 'b2-mcp.example.vercel.app',
      LOG_LEVEL: 'silent',
      B2_SECRET_SINK: 'off',
    });
    entry = (await import('../../api/mcp.js')) as unknown as typeof entry;
  });
  afterAll(async () => {
    process.env = saved;
    await sandbox?.close();
  });

  const post = (message: Record<string, unknown>) =>
    entry.POST(
      new Request('https://b2-mcp.example.vercel.app/api/mcp', {
        method: 'POST',
        headers: { ...JSON_HEADERS, ...standardHeaders(message), 'x-forwarded-for': '203.0.113.7' },
        body: JSON.stringify(message),
      }),
    );

  it('answers /api/health, and refuses a host it was not given', async () => {
    expect((await entry.GET(new Request('https://b2-mcp.example.vercel.app/api/health'))).status).toBe(200);
    expect((await entry.GET(new Request('https://elsewhere.example/api/health'))).status).toBe(403);
  });

  it('serves initialize, tools/list and a read tool from the sandbox at /api/mcp', async () => {
    const opened = await post(legacyInitialize());
    expect([opened.status, opened.headers.get('mcp-session-id')]).toEqual([200, expect.stringMatching(/^[0-9a-f-]{36}$/)]);
    await opened.text();
    const listed = await post(modernMessage('tools/list'));
    expect(((await listed.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(20);
    const called = await post(modernMessage('tools/call', { name: 'b2_list_buckets', arguments: {} }));
    const result = ((await called.json()) as { result: { isError?: boolean; structuredContent: { buckets: unknown[] } } }).result;
    expect([result.isError, result.structuredContent.buckets.length > 0]).toEqual([undefined, true]);
  });
});
