import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { McpServerFactory } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Credentials } from '../../../../src/server/config.js';
import type { CredentialSession, ServerRuntime } from '../../../../src/server/server.js';
import { createRuntime, CredentialError } from '../../../../src/server/start.js';
import { serveOverHttp, type HttpHandle } from '../../../../src/server/transports/http.js';
import { loadHttpSettings } from '../../../../src/server/transports/http-settings.js';
import {
  connectHttp,
  serverEnv,
  startHttpServer,
  type ClientKind,
  type ElicitAnswer,
  type HttpServer,
} from '../../../support/server-harness.js';
import { modernMessage, postJson, rawRequest, standardHeaders } from '../../../support/http-client.js';

const TENANT_A = { 'x-b2-mcp-key-id': 'tenant-a-id', 'x-b2-mcp-key': 'tenant-a-secret-0123456789' };
const TENANT_B = { 'x-b2-key-id': 'tenant-b-id', 'x-b2-key': 'tenant-b-secret-9876543210' };
/** Nothing listens here: a tool that gets past the gate fails fast instead of touching the network. */
const DEAD_B2 = 'http://127.0.0.1:9';

const textOf = (result: Record<string, unknown>): string => (result.content as Array<{ text: string }>)[0]?.text ?? '';

describe('destructive-action elicitation over HTTP', () => {
  let http: HttpServer;
  beforeAll(async () => {
    http = await startHttpServer(
      serverEnv({ B2_MCP_PROFILE: 'full', B2_API_URL: DEAD_B2, B2_HTTP_CREDENTIAL_MODE: 'headers', B2_DESTRUCTIVE_POLICY: 'confirm' }),
    );
  });
  afterAll(() => http?.stop());

  const call = async (kind: ClientKind, answer: ElicitAnswer): Promise<Record<string, unknown>> => {
    const client = await connectHttp(kind, http.url, { headers: TENANT_A, elicitation: answer });
    try {
      return await client.callTool('b2_delete_bucket', { bucketId: 'b1' });
    } finally {
      await client.close();
    }
  };

  describe.each(['legacy', 'v1', 'modern'] as const)('with a %s client', (kind) => {
    it('declining is a refusal', async () => {
      const result = await call(kind, 'decline');
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/destructive_confirmation_refused/);
    });

    it('accepting lets the call through the gate', async () => {
      const result = await call(kind, 'accept');
      expect(textOf(result)).not.toMatch(/destructive_/);
    });
  });
});

describe('legacy sessions over HTTP', () => {
  let http: HttpServer;
  beforeAll(async () => {
    http = await startHttpServer(serverEnv({ B2_MCP_PROFILE: 'default', B2_API_URL: DEAD_B2, B2_HTTP_CREDENTIAL_MODE: 'headers' }));
  });
  afterAll(() => http?.stop());

  const activeSessions = async (): Promise<number> =>
    ((await rawRequest(http.url, { method: 'GET', path: '/health' })).json() as { activeSessions: number }).activeSessions;

  it('serve a legacy request without a session statelessly', async () => {
    const res = await postJson(http.url, { jsonrpc: '2.0', id: 5, method: 'tools/list' }, TENANT_B);
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/"id":5/);
    expect(await activeSessions()).toBe(0);
  });
});

describe('per-request credential isolation (in process)', () => {
  const logDir = mkdtempSync(join(tmpdir(), 'b2-mcp-http-'));
  const logFile = join(logDir, 'server.log');
  let handle: HttpHandle;
  let url: URL;
  const credentialsSeen: Credentials[] = [];
  const sessionsByKeyId = new Map<string, Set<CredentialSession>>();
  const headersAtHandler: string[][] = [];

  beforeAll(async () => {
    const runtime = await createRuntime(
      { B2_MCP_PROFILE: 'default', B2_SECRET_SINK: 'off', B2_API_URL: DEAD_B2, LOG_LEVEL: 'debug', B2_LOG_FILE: logFile },
      'http',
    );
    // Record what each request resolves to and what the MCP layer gets to see of the HTTP request.
    const observed = new WeakMap<CredentialSession, CredentialSession>();
    const observe = (session: CredentialSession): CredentialSession => {
      let wrapped = observed.get(session);
      if (!wrapped) {
        const factory: McpServerFactory = (ctx) => {
          headersAtHandler.push([...(ctx.requestInfo?.headers.keys() ?? [])]);
          return session.factory(ctx);
        };
        wrapped = { ...session, factory };
        observed.set(session, wrapped);
      }
      return wrapped;
    };
    const recording: ServerRuntime = {
      ...runtime,
      sessionFor: async (credentials) => {
        credentialsSeen.push(credentials!);
        const session = observe(await runtime.sessionFor(credentials));
        const sessions = sessionsByKeyId.get(credentials!.applicationKeyId) ?? new Set();
        sessionsByKeyId.set(credentials!.applicationKeyId, sessions.add(session));
        return session;
      },
    };
    handle = await serveOverHttp(recording, { port: 0, host: '127.0.0.1', settings: loadHttpSettings({}) });
    url = new URL(`http://127.0.0.1:${(handle.server.address() as AddressInfo).port}/mcp`);
  });
  afterAll(async () => {
    await handle?.drain(1_000);
    rmSync(logDir, { recursive: true, force: true });
  });

  it('100 interleaved concurrent calls from two tenants each resolve their own credential and session', async () => {
    // Other tests of this block may have run first: judge only what these calls add.
    credentialsSeen.length = 0;
    sessionsByKeyId.clear();
    const calls = Array.from({ length: 100 }, (_, i) => {
      const tenant = i % 2 === 0 ? TENANT_A : TENANT_B;
      const message =
        i % 4 < 2
          ? modernMessage('tools/list', {}, i)
          : modernMessage('tools/call', { name: 's3_delete_object', arguments: { bucket: `bucket-${i}`, key: 'k' } }, i);
      return postJson(url, message, tenant).then((res) => ({ i, res }));
    });
    for (const { i, res } of await Promise.all(calls)) {
      expect(res.status, `call ${i}`).toBe(200);
      const body = res.json() as { id: number; result: { tools?: unknown[]; content?: Array<{ text: string }> } };
      expect(body.id).toBe(i);
      if (i % 4 < 2) expect(body.result.tools).toHaveLength(37);
      else expect(body.result.content?.[0]?.text).toMatch(/destructive_policy_blocked/);
    }

    expect(credentialsSeen).toHaveLength(100);
    const a = credentialsSeen.filter((c) => c.applicationKeyId === 'tenant-a-id');
    const b = credentialsSeen.filter((c) => c.applicationKeyId === 'tenant-b-id');
    expect([a.length, b.length]).toEqual([50, 50]);
    expect(new Set(a.map((c) => JSON.stringify(c)))).toEqual(
      new Set([JSON.stringify({ applicationKeyId: 'tenant-a-id', applicationKey: TENANT_A['x-b2-mcp-key'] })]),
    );
    expect(new Set(b.map((c) => JSON.stringify(c)))).toEqual(
      new Set([JSON.stringify({ applicationKeyId: 'tenant-b-id', applicationKey: TENANT_B['x-b2-key'] })]),
    );

    const [sessionA, sessionB] = ['tenant-a-id', 'tenant-b-id'].map((id) => [...sessionsByKeyId.get(id)!]);
    expect([sessionA!.length, sessionB!.length]).toEqual([1, 1]);
    expect(sessionA![0]).not.toBe(sessionB![0]);
  });

  it('never hands credential headers to the MCP handler, nor writes them to the log', async () => {
    const res = await postJson(url, modernMessage('tools/list'), {
      ...TENANT_A,
      authorization: 'Bearer not-for-mcp',
      cookie: 'c=1',
      'x-custom': 'x',
    });
    expect(res.status).toBe(200);
    expect(headersAtHandler.length).toBeGreaterThan(0);
    const allowed = /^(accept|content-type|content-length|last-event-id|traceparent|tracestate|baggage|mcp-.*)$/;
    for (const names of headersAtHandler) {
      expect(names.filter((name) => !allowed.test(name))).toEqual([]);
      expect(names).toContain('mcp-method');
    }
    const log = readFileSync(logFile, 'utf8');
    expect(log).toMatch(/"event":"http.request"/);
    for (const secret of [TENANT_A['x-b2-mcp-key'], TENANT_B['x-b2-key'], 'not-for-mcp']) expect(log).not.toContain(secret);
  });

  it('reads the Mcp-Name of a non-ASCII tool name from its base64 sentinel', async () => {
    const message = modernMessage('tools/call', { name: 'b2_lïst', arguments: {} }, 'u');
    const res = await postJson(url, message, TENANT_A);
    expect(standardHeaders(message)['mcp-name']).toBe('=?base64?YjJfbMOvc3Q=?=');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/b2_lïst/);
  });
});

describe('session resolution failures (in process)', () => {
  it('answer a B2 credential failure with its status, and anything else with 500 and no details', async () => {
    const runtime = await createRuntime({ B2_MCP_PROFILE: 'default', B2_SECRET_SINK: 'off', LOG_LEVEL: 'silent' }, 'http');
    const failures: Error[] = [
      new CredentialError(401, 'bad_auth_token', 'The application key was rejected by B2.'),
      new Error('boom: internal detail'),
    ];
    const failing: ServerRuntime = { ...runtime, sessionFor: () => Promise.reject(failures.shift()) };
    const handle = await serveOverHttp(failing, { port: 0, host: '127.0.0.1', settings: loadHttpSettings({}) });
    try {
      const url = new URL(`http://127.0.0.1:${(handle.server.address() as AddressInfo).port}/mcp`);
      const rejected = await postJson(url, modernMessage('tools/list', {}, 1), TENANT_A);
      expect([rejected.status, rejected.json()]).toEqual([
        401,
        {
          jsonrpc: '2.0',
          id: 1,
          error: { code: -32001, message: 'The application key was rejected by B2.', data: { code: 'bad_auth_token', status: 401 } },
        },
      ]);
      const broken = await postJson(url, modernMessage('tools/list', {}, 2), TENANT_A);
      expect([broken.status, broken.json()]).toEqual([
        500,
        { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal server error' } },
      ]);
    } finally {
      await handle.drain(500);
    }
  });
});
