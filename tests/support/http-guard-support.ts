import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchHandler } from '../../src/server/fetch-handler.js';
import {
  JSON_HEADERS,
  LIST_HEADERS,
  legacyInitialize,
  modernMessage,
  openRequest,
  rawRequest,
  standardHeaders,
  type RawResponse,
} from './http-client.js';
import { serverEnv, startHttpServer } from './server-harness.js';

/**
 * The HTTP guard cases, written once against a {@link GuardTarget} and run against both ways of
 * serving: the `b2-mcp http` process (raw HTTP on loopback) and `createFetchHandler` (plain
 * `Request` objects, no socket).
 */

export interface GuardRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
}

export interface GuardReply {
  status: number;
  header(name: string): string | undefined;
  text: string;
  json(): unknown;
}

export interface HeldRequest {
  /** Sends the rest of the body. */
  finish(): void;
  response: Promise<GuardReply>;
}

export interface GuardTarget {
  send(request: GuardRequest): Promise<GuardReply>;
  /** A modern tools/list whose body is held back after its first byte, keeping the request in flight. */
  hold(headers: Record<string, string>): HeldRequest;
  stop(): Promise<void>;
}

export type StartTarget = (env: Record<string, string>) => Promise<GuardTarget>;

const BASE_ENV = { B2_MCP_PROFILE: 'default', B2_API_URL: 'http://127.0.0.1:9', B2_HTTP_CREDENTIAL_MODE: 'headers' };
const HELD_BODY = JSON.stringify(modernMessage('tools/list'));

function fromRaw(res: RawResponse): GuardReply {
  return { status: res.status, header: (name) => [res.headers[name]].flat()[0], text: res.text, json: res.json };
}

/** A server listening at `url` (raw HTTP on loopback: Host, Origin and framing as written). */
export function targetAt(url: URL, stop: () => Promise<void>): GuardTarget {
  return {
    send: async ({ method = 'POST', path, headers, body }) =>
      fromRaw(
        await rawRequest(url, {
          method,
          ...(path && { path }),
          ...(headers && { headers }),
          ...(body !== undefined && { body: Buffer.from(body) }),
        }),
      ),
    hold: (headers) => {
      const request = openRequest(url, {
        headers: { ...LIST_HEADERS, ...headers, 'content-length': String(Buffer.byteLength(HELD_BODY)) },
      });
      request.write(HELD_BODY.slice(0, 1));
      return { finish: () => request.end(HELD_BODY.slice(1)), response: request.response.then(fromRaw) };
    },
    stop,
  };
}

/** The settings every guard suite starts from (a suite's own `env` is added to them). */
export const guardEnv = (env: Record<string, string>): Record<string, string> => ({ ...BASE_ENV, ...env });

/** `b2-mcp http --port 0`, spawned from the built bin. */
export const startProcessTarget: StartTarget = async (env) => {
  const http = await startHttpServer(serverEnv(guardEnv(env)));
  return targetAt(http.url, () => http.stop());
};

async function fromResponse(response: Response): Promise<GuardReply> {
  const text = await response.text();
  return { status: response.status, header: (name) => response.headers.get(name) ?? undefined, text, json: () => JSON.parse(text) };
}

/** `createFetchHandler`, called in process with plain `Request` objects; the peer is loopback, as for the process. */
export const startFetchTarget: StartTarget = async (env) => {
  const handler = createFetchHandler({
    env: { LOG_LEVEL: 'silent', B2_SECRET_SINK: 'off', ...BASE_ENV, ...env },
    clientAddress: () => '127.0.0.1',
  });
  const url = (path = '/mcp'): string => `http://localhost${path}`;
  return {
    send: async ({ method = 'POST', path, headers, body }) =>
      fromResponse(await handler(new Request(url(path), { method, ...(headers && { headers }), ...(body !== undefined && { body }) }))),
    hold: (headers) => {
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
      const bytes = new TextEncoder().encode(HELD_BODY);
      controller.enqueue(bytes.slice(0, 1));
      const request = new Request(url(), { method: 'POST', headers: { ...LIST_HEADERS, ...headers }, body, duplex: 'half' } as RequestInit);
      return {
        finish: () => {
          controller.enqueue(bytes.slice(1));
          controller.close();
        },
        response: handler(request).then(fromResponse),
      };
    },
    stop: () => handler.close(),
  };
};

const MIB = 1_048_576;
const TENANT = { 'x-b2-mcp-key-id': 'tenant-key-id', 'x-b2-mcp-key': 'tenant-secret-value' };
const TENANT_A = { 'x-b2-mcp-key-id': 'tenant-a-id', 'x-b2-mcp-key': 'tenant-a-secret' };
const TENANT_B = { 'x-b2-key-id': 'tenant-b-id', 'x-b2-key': 'tenant-b-secret' };
const HEALTH_OK = {
  status: 'ok',
  server: 'backblaze-b2-mcp',
  version: expect.any(String),
  activeSessions: 0,
  inFlightRequests: 0,
  openSubscriptions: 0,
};

const post = (target: GuardTarget, message: unknown, headers: Record<string, string> = {}): Promise<GuardReply> =>
  target.send({ headers: { ...JSON_HEADERS, ...standardHeaders(message), ...headers }, body: JSON.stringify(message) });
const get = (target: GuardTarget, headers: Record<string, string> = {}, path = '/mcp'): Promise<GuardReply> =>
  target.send({ method: 'GET', path, headers });
const health = async (target: GuardTarget): Promise<{ inFlightRequests: number; activeSessions: number }> =>
  (await get(target, {}, '/health')).json() as { inFlightRequests: number; activeSessions: number };

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface GuardCase {
  name: string;
  run(target: GuardTarget): Promise<void>;
}

export interface GuardSuite {
  name: string;
  /** Added to the defaults: pinned `default` profile, `headers` credential mode, a B2 API nobody listens on. */
  env: Record<string, string>;
  cases: GuardCase[];
}

export const GUARD_SUITES: readonly GuardSuite[] = [
  {
    name: 'default settings (headers mode, loopback only)',
    env: {},
    cases: [
      {
        name: 'answers 404 off the MCP and health paths, and 405 with Allow for other methods',
        run: async (target) => {
          const missing = await get(target, {}, '/elsewhere');
          expect([missing.status, missing.json()]).toEqual([404, { error: 'Not found' }]);
          for (const path of ['/mcp', '/api/mcp']) {
            const put = await target.send({ method: 'PUT', path, body: '{}' });
            expect([put.status, put.header('allow'), put.json()]).toEqual([405, 'GET, POST, DELETE', { error: 'Method not allowed' }]);
          }
          const postHealth = await target.send({ method: 'POST', path: '/health', body: '{}' });
          expect([postHealth.status, postHealth.header('allow')]).toEqual([405, 'GET']);
        },
      },
      {
        name: 'reports health and readiness on /health, /ready and /api/health',
        run: async (target) => {
          for (const path of ['/health', '/ready', '/api/health']) {
            const res = await get(target, {}, path);
            expect([res.status, res.json()], path).toEqual([200, HEALTH_OK]);
          }
        },
      },
      {
        name: 'refuses a foreign Host and a foreign or opaque Origin with 403; loopback names pass',
        run: async (target) => {
          const refused: Array<Record<string, string>> = [
            { host: 'evil.example' },
            { host: 'evil.example:3000' },
            { origin: 'http://evil.example' },
            { origin: 'null' },
          ];
          for (const headers of refused) {
            const res = await get(target, headers);
            expect([res.status, res.json()], JSON.stringify(headers)).toEqual([403, { error: 'Host/Origin not allowed' }]);
          }
          // The SDK then answers GET itself: no server-to-client stream.
          for (const headers of [
            { host: 'localhost:1234' },
            { host: '[::1]:80' },
            { origin: 'http://localhost:5173' },
            { origin: 'http://127.0.0.1' },
          ] as Array<Record<string, string>>) {
            expect((await get(target, headers)).status, JSON.stringify(headers)).toBe(405);
          }
        },
      },
      {
        name: 'refuses a body over 1 MiB with 413, and reads one of exactly 1 MiB',
        run: async (target) => {
          const res = await target.send({ headers: JSON_HEADERS, body: new Uint8Array(MIB + 1).fill(0x20) });
          expect([res.status, res.json()]).toEqual([413, { error: 'Request body too large' }]);
          const exact = await target.send({ headers: LIST_HEADERS, body: JSON.stringify(modernMessage('tools/list')).padEnd(MIB, ' ') });
          expect(exact.status).toBe(401);
        },
      },
      {
        name: 'asks to close the connection after refusing a body over 1 MiB (Connection: close)',
        run: async (target) => {
          const res = await target.send({ headers: JSON_HEADERS, body: new Uint8Array(MIB + 1).fill(0x20) });
          // A runtime's HTTP server may add its own `close` to the handler's (Deno sends "close, close").
          expect([
            res.status,
            res
              .header('connection')
              ?.split(/,\s*/)
              .every((token) => token === 'close'),
          ]).toEqual([413, true]);
        },
      },
      {
        name: 'answers a modern request without credentials with 401 and JSON-RPC error -32001, a legacy one with a plain 401',
        run: async (target) => {
          const modern = await post(target, modernMessage('tools/list', {}, 7));
          expect([modern.status, modern.json()]).toEqual([
            401,
            {
              jsonrpc: '2.0',
              id: 7,
              error: {
                code: -32001,
                message: 'Missing B2 credentials: send the x-b2-mcp-key-id and x-b2-mcp-key headers.',
                data: { code: 'missing_credentials', status: 401 },
              },
            },
          ]);
          const legacy = await post(target, legacyInitialize());
          expect([legacy.status, legacy.json()]).toEqual([
            401,
            { error: 'Missing B2 credentials: send the x-b2-mcp-key-id and x-b2-mcp-key headers.', code: 'missing_credentials' },
          ]);
        },
      },
      {
        name: 'refuses half a credential pair and disagreeing aliases with 400',
        run: async (target) => {
          const cases: Array<[Record<string, string>, string, string]> = [
            [
              { 'x-b2-mcp-key-id': 'id-only' },
              'partial_credential',
              'Incomplete credential pair: x-b2-mcp-key-id was sent without x-b2-mcp-key.',
            ],
            [
              { 'x-b2-key': 'secret-only' },
              'partial_credential',
              'Incomplete credential pair: x-b2-mcp-key was sent without x-b2-mcp-key-id.',
            ],
            [
              { ...TENANT, 'x-b2-master-key-id': 'master-id' },
              'partial_credential',
              'Incomplete credential pair: x-b2-mcp-master-key-id was sent without x-b2-mcp-master-key.',
            ],
            [
              { ...TENANT, 'x-b2-mcp-app-key': 'app-secret' },
              'partial_credential',
              'Incomplete credential pair: x-b2-mcp-app-key was sent without x-b2-mcp-app-key-id.',
            ],
            [
              { ...TENANT, 'x-b2-key-id': 'another-id' },
              'conflicting_headers',
              'Conflicting credential headers: x-b2-mcp-key-id and x-b2-key-id carry different values.',
            ],
          ];
          for (const [headers, code, message] of cases) {
            const res = await post(target, modernMessage('tools/list', {}, 'c'), headers);
            expect([res.status, res.json()], message).toEqual([
              400,
              { jsonrpc: '2.0', id: 'c', error: { code: -32001, message, data: { code, status: 400 } } },
            ]);
          }
          // Aliases that agree are fine.
          expect((await post(target, modernMessage('tools/list'), { ...TENANT, 'x-b2-key-id': TENANT['x-b2-mcp-key-id'] })).status).toBe(
            200,
          );
        },
      },
      {
        name: 'serves a credentialed modern request, and refuses one without Mcp-Method, or a tools/call without Mcp-Name (400, -32020) before looking at credentials',
        run: async (target) => {
          const res = await post(target, modernMessage('tools/list'), TENANT);
          expect(res.status).toBe(200);
          expect((res.json() as { result: { tools: unknown[] } }).result.tools).toHaveLength(37);
          const noMethod = await target.send({ headers: JSON_HEADERS, body: JSON.stringify(modernMessage('tools/list', {}, 4)) });
          expect([noMethod.status, noMethod.json()]).toEqual([
            400,
            {
              jsonrpc: '2.0',
              id: 4,
              error: {
                code: -32020,
                message: 'Bad Request: the body names method tools/list but the required Mcp-Method header is absent',
                data: { missing: 'Mcp-Method' },
              },
            },
          ]);
          const call = modernMessage('tools/call', { name: 'b2_list_buckets', arguments: {} }, 5);
          const noName = await target.send({ headers: { ...JSON_HEADERS, 'mcp-method': 'tools/call' }, body: JSON.stringify(call) });
          expect([noName.status, noName.json()]).toEqual([
            400,
            {
              jsonrpc: '2.0',
              id: 5,
              error: {
                code: -32020,
                message: 'Bad Request: the body names "b2_list_buckets" but the required Mcp-Name header is absent',
                data: { missing: 'Mcp-Name' },
              },
            },
          ]);
        },
      },
      {
        name: 'refuses an Mcp-Name header that disagrees with the body (400, -32020) before looking at credentials',
        run: async (target) => {
          const res = await post(target, modernMessage('tools/call', { name: 'b2_list_buckets', arguments: {} }, 3), {
            'mcp-name': 'b2_delete_bucket',
          });
          expect([res.status, res.json()]).toEqual([
            400,
            {
              jsonrpc: '2.0',
              id: 3,
              error: {
                code: -32020,
                message: 'Bad Request: the Mcp-Name header names "b2_delete_bucket" but the body names "b2_list_buckets"',
                data: { mismatch: { header: 'b2_delete_bucket', body: 'b2_list_buckets' } },
              },
            },
          ]);
        },
      },
      {
        name: 'lets protocol-only requests reach the SDK without credentials',
        run: async (target) => {
          expect((await get(target, { accept: 'text/event-stream' })).status).toBe(405);
          expect(
            (await target.send({ headers: { 'content-type': 'text/plain', accept: JSON_HEADERS.accept }, body: 'hello' })).status,
          ).toBe(415);
          const otherRevision = modernMessage('tools/list');
          (otherRevision.params as { _meta: Record<string, unknown> })._meta['io.modelcontextprotocol/protocolVersion'] = '2099-01-01';
          const future = await post(target, otherRevision);
          expect(future.status).not.toBe(401);
          expect(future.text).toMatch(/2099-01-01/);
        },
      },
      {
        name: 'keeps a 2025-era session to the credential that opened it; another tenant cannot use its id',
        run: async (target) => {
          const opened = await post(target, legacyInitialize(), TENANT_A);
          expect(opened.status).toBe(200);
          const sessionId = opened.header('mcp-session-id')!;
          expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
          expect((await health(target)).activeSessions).toBe(1);
          const inSession = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
          expect((await post(target, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...TENANT_A, ...inSession })).status).toBe(
            202,
          );
          const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
          const own = await post(target, list, { ...TENANT_A, ...inSession });
          expect([own.status, own.text]).toEqual([200, expect.stringMatching(/b2_list_buckets/)]);
          const foreign = await post(target, list, { ...TENANT_B, ...inSession });
          expect([foreign.status, foreign.json()]).toEqual([
            404,
            { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } },
          ]);
          expect((await post(target, list, inSession)).status).toBe(401);
          expect((await target.send({ method: 'DELETE', headers: { ...TENANT_A, ...inSession } })).status).toBe(200);
          expect((await health(target)).activeSessions).toBe(0);
          expect((await post(target, list, { ...TENANT_A, ...inSession })).status).toBe(404);
        },
      },
    ],
  },
  {
    name: 'server credential mode with the server’s own key',
    env: { B2_HTTP_CREDENTIAL_MODE: 'server', B2_APPLICATION_KEY_ID: 'server-key-id', B2_APPLICATION_KEY: 'server-key-secret' },
    cases: [
      {
        name: 'serves without credential headers, refuses any credential header with 400 (even on a bare GET), and is ready',
        run: async (target) => {
          expect((await post(target, modernMessage('tools/list'))).status).toBe(200);
          for (const header of ['x-b2-mcp-key-id', 'x-b2-key', 'x-b2-app-key-id', 'x-b2-mcp-master-key']) {
            const res = await post(target, modernMessage('tools/list', {}, 9), { [header]: 'anything' });
            expect([res.status, res.json()], header).toEqual([
              400,
              {
                jsonrpc: '2.0',
                id: 9,
                error: {
                  code: -32001,
                  message: 'This server uses its own B2 credentials (B2_HTTP_CREDENTIAL_MODE=server); do not send credential headers.',
                  data: { code: 'credential_headers_rejected', status: 400 },
                },
              },
            ]);
          }
          const bare = await get(target, { 'x-b2-key-id': 'anything' });
          expect([bare.status, (bare.json() as { code: string }).code]).toEqual([400, 'credential_headers_rejected']);
          expect((await get(target, {}, '/ready')).json()).toEqual(HEALTH_OK);
        },
      },
    ],
  },
  {
    name: 'server credential mode without a key',
    env: { B2_HTTP_CREDENTIAL_MODE: 'server' },
    cases: [
      {
        name: 'is not ready',
        run: async (target) => {
          const notReady = await get(target, {}, '/ready');
          expect([notReady.status, notReady.json()]).toEqual([
            503,
            { ...HEALTH_OK, status: 'error', error: 'Credential configuration invalid' },
          ]);
        },
      },
    ],
  },
  {
    name: 'Host allowlist',
    env: { B2_ALLOWED_HOSTS: ' MCP.example.com , api.example.com:8443 ' },
    cases: [
      {
        name: 'matches Host exactly, or by hostname when the entry has no port',
        run: async (target) => {
          const expected: Array<[string, number]> = [
            ['mcp.example.com', 405],
            ['mcp.example.com:3000', 405],
            ['api.example.com:8443', 405],
            ['api.example.com:9999', 403],
            ['api.example.com', 403],
            ['localhost', 403],
          ];
          for (const [host, status] of expected) expect((await get(target, { host })).status, host).toBe(status);
        },
      },
      {
        name: 'matches Origin against the host list when no origin list is set',
        run: async (target) => {
          const expected: Array<[string, number]> = [
            ['https://mcp.example.com', 405],
            ['https://api.example.com:8443', 405],
            ['https://evil.example', 403],
            ['http://localhost', 403],
          ];
          for (const [origin, status] of expected)
            expect((await get(target, { host: 'mcp.example.com', origin })).status, origin).toBe(status);
        },
      },
      {
        name: 'always lets a loopback health probe through, and nothing else from a foreign Host',
        run: async (target) => {
          expect((await get(target, { host: 'localhost' }, '/health')).status).toBe(200);
          expect((await get(target, { host: '127.0.0.1:8080', origin: 'http://localhost' }, '/ready')).status).toBe(200);
          expect((await get(target, { host: 'evil.example' }, '/health')).status).toBe(403);
          expect((await get(target, { host: 'localhost', origin: 'https://evil.example' }, '/health')).status).toBe(403);
        },
      },
    ],
  },
  {
    name: 'Host and Origin allowlists',
    env: { B2_ALLOWED_HOSTS: 'mcp.example.com', B2_ALLOWED_ORIGINS: 'https://app.example.com' },
    cases: [
      {
        name: 'matches Origin exactly against the origin list when one is set',
        run: async (target) => {
          const expected: Array<[string, number]> = [
            ['https://app.example.com', 405],
            ['https://mcp.example.com', 403],
            ['https://app.example.com:443x', 403],
          ];
          for (const [origin, status] of expected)
            expect((await get(target, { host: 'mcp.example.com', origin })).status, origin).toBe(status);
        },
      },
    ],
  },
  {
    name: 'rate limits',
    env: { B2_MCP_RATE_LIMIT_RPS: '0.1', B2_MCP_RATE_LIMIT_BURST: '2', B2_TRUST_PROXY_HEADERS: 'true' },
    cases: [
      {
        name: 'limits each client address to its burst, then answers 429 with Retry-After',
        run: async (target) => {
          const from = { 'x-forwarded-for': '10.0.0.1, 192.0.2.7' };
          expect((await get(target, from)).status).toBe(405);
          expect((await get(target, from)).status).toBe(405);
          const limited = await get(target, from);
          expect([limited.status, limited.header('retry-after'), limited.json()]).toEqual([429, '1', { error: 'Rate limit exceeded' }]);
          // Another address (X-Real-IP when there is no X-Forwarded-For) has its own bucket.
          expect((await get(target, { 'x-real-ip': '10.0.0.2' })).status).toBe(405);
        },
      },
      {
        name: 'limits each credential to its burst across client addresses',
        run: async (target) => {
          const call = (address: string, tenant: Record<string, string>) =>
            post(target, modernMessage('tools/list'), { ...tenant, 'x-forwarded-for': address });
          expect((await call('10.0.1.1', TENANT_A)).status).toBe(200);
          expect((await call('10.0.1.2', TENANT_A)).status).toBe(200);
          const limited = await call('10.0.1.3', TENANT_A);
          expect([limited.status, limited.header('retry-after'), limited.json()]).toEqual([429, '1', { error: 'Rate limit exceeded' }]);
          expect((await call('10.0.1.4', TENANT_B)).status).toBe(200);
        },
      },
    ],
  },
  {
    name: 'in-flight caps',
    env: { B2_MAX_SESSIONS: '2', B2_MAX_SESSIONS_PER_KEY: '1', B2_TRUST_PROXY_HEADERS: 'true' },
    cases: [
      {
        name: 'answers 429 over the per-client cap and 503 over the global cap, both with Retry-After',
        run: async (target) => {
          const first = target.hold({ ...TENANT_A, 'x-forwarded-for': '10.1.0.1' });
          await until(async () => (await health(target)).inFlightRequests === 1, 'the first request to be in flight');
          const sameClient = await post(target, modernMessage('tools/list'), { ...TENANT_A, 'x-forwarded-for': '10.1.0.1' });
          expect([sameClient.status, sameClient.header('retry-after'), sameClient.json()]).toEqual([
            429,
            '1',
            { error: 'Too many requests in flight for this client' },
          ]);

          const second = target.hold({ ...TENANT_B, 'x-forwarded-for': '10.1.0.2' });
          await until(async () => (await health(target)).inFlightRequests === 2, 'the second request to be in flight');
          const overGlobal = await post(target, modernMessage('tools/list'), { ...TENANT_B, 'x-forwarded-for': '10.1.0.3' });
          expect([overGlobal.status, overGlobal.header('retry-after'), overGlobal.json()]).toEqual([
            503,
            '1',
            { error: 'Server busy: too many requests in flight' },
          ]);

          first.finish();
          second.finish();
          for (const held of [first, second]) {
            const res = await held.response;
            expect([res.status, (res.json() as { result: { tools: unknown[] } }).result.tools.length]).toEqual([200, 37]);
          }
          await until(async () => (await health(target)).inFlightRequests === 0, 'the requests to finish');
          expect((await post(target, modernMessage('tools/list'), { ...TENANT_A, 'x-forwarded-for': '10.1.0.1' })).status).toBe(200);
        },
      },
    ],
  },
  {
    name: 'trusted proxies that append to X-Forwarded-For',
    env: { B2_MCP_RATE_LIMIT_RPS: '0.1', B2_MCP_RATE_LIMIT_BURST: '2', B2_TRUST_PROXY_HEADERS: 'true' },
    cases: [
      {
        name: 'one proxy (nginx): the last entry is the client, whatever it wrote before it',
        run: async (target) => {
          // The client writes a new first entry each time; nginx appends the address it saw.
          const statuses = [];
          for (let i = 0; i < 3; i++) statuses.push((await get(target, { 'x-forwarded-for': `10.9.9.${i}, 192.0.2.50` })).status);
          expect(statuses).toEqual([405, 405, 429]);
          expect((await get(target, { 'x-forwarded-for': '192.0.2.50, 192.0.2.51' })).status).toBe(405);
        },
      },
      {
        name: 'an address written with its port (Azure Application Gateway) is one client whatever the port',
        run: async (target) => {
          const statuses = [];
          for (const port of [50001, 50002, 50003]) statuses.push((await get(target, { 'x-forwarded-for': `192.0.2.70:${port}` })).status);
          for (const port of [443, 444, 445]) statuses.push((await get(target, { 'x-forwarded-for': `[2001:db8::70]:${port}` })).status);
          expect(statuses).toEqual([405, 405, 429, 405, 405, 429]);
        },
      },
    ],
  },
  {
    name: 'two trusted proxies (a cloud load balancer, then nginx)',
    env: { B2_MCP_RATE_LIMIT_RPS: '0.1', B2_MCP_RATE_LIMIT_BURST: '2', B2_TRUST_PROXY_HEADERS: 'true', B2_TRUSTED_PROXY_HOPS: '2' },
    cases: [
      {
        name: 'the entry two from the end is the client; the load balancer’s own address is not',
        run: async (target) => {
          const statuses = [];
          for (let i = 0; i < 3; i++) statuses.push((await get(target, { 'x-forwarded-for': `10.8.8.${i}, 192.0.2.60, 10.0.0.1` })).status);
          expect(statuses).toEqual([405, 405, 429]);
          // Another client through the same load balancer has its own bucket.
          expect((await get(target, { 'x-forwarded-for': '192.0.2.61, 10.0.0.1' })).status).toBe(405);
        },
      },
    ],
  },
  {
    name: 'deep JSON',
    env: { B2_DESTRUCTIVE_POLICY: 'confirm' },
    cases: [
      {
        name: 'a body nested past 64 levels is refused 400 (JSON-RPC -32600) before any credential is looked at',
        run: async (target) => {
          const depth = (MIB - 2) / 2;
          const res = await target.send({ headers: JSON_HEADERS, body: '['.repeat(depth) + ']'.repeat(depth) });
          expect([res.status, res.json()]).toEqual([
            400,
            {
              jsonrpc: '2.0',
              id: null,
              error: { code: -32600, message: 'Invalid Request: the body nests arrays and objects deeper than 64 levels' },
            },
          ]);
          const inString = JSON.stringify(modernMessage('tools/list', { cursor: '['.repeat(1_000) }));
          expect((await target.send({ headers: LIST_HEADERS, body: inString })).status).toBe(401);
        },
      },
      {
        name: 'deeply nested client capabilities on a gated call are a 400, not an internal error',
        run: async (target) => {
          const nested = (depth: number): unknown => (depth === 0 ? {} : { a: nested(depth - 1) });
          const call = modernMessage('tools/call', { name: 'b2_delete_bucket', arguments: { bucketId: 'b1' } }) as {
            params: { _meta: Record<string, unknown> };
          };
          call.params._meta['io.modelcontextprotocol/clientCapabilities'] = { elicitation: { form: {}, extra: nested(3_000) } };
          const res = await post(target, call, TENANT);
          expect([res.status, (res.json() as { error: { code: number } }).error.code]).toEqual([400, -32600]);
          call.params._meta['io.modelcontextprotocol/clientCapabilities'] = { elicitation: { form: {}, extra: nested(40) } };
          const shallow = await post(target, call, TENANT);
          expect([shallow.status, shallow.text]).toEqual([200, expect.stringMatching(/"resultType":"input_required"/)]);
        },
      },
    ],
  },
  {
    name: 'JSON-RPC batches',
    env: { B2_MAX_SESSIONS_PER_KEY: '2' },
    cases: [
      {
        name: 'each call in a 2025-03-26 batch is admitted as its own call; MCP 2025-06-18 has no batches',
        run: async (target) => {
          const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
          const three = await post(target, [call(1), call(2), call(3)], TENANT);
          expect([three.status, three.json()]).toEqual([429, { error: 'Too many requests in flight for this client' }]);
          const two = await post(target, [call(1), call(2), { jsonrpc: '2.0', method: 'notifications/initialized' }], TENANT);
          expect([two.status, two.text]).toEqual([200, expect.stringMatching(/"id":2/)]);
          const refused = await post(target, [call(1)], { ...TENANT, 'mcp-protocol-version': '2025-06-18' });
          expect([refused.status, refused.json()]).toEqual([
            400,
            {
              jsonrpc: '2.0',
              id: null,
              error: { code: -32600, message: 'Invalid Request: MCP 2025-06-18 has no JSON-RPC batches; send one message per request' },
            },
          ]);
        },
      },
    ],
  },
  {
    name: 'legacy sessions, server credential mode',
    env: { B2_HTTP_CREDENTIAL_MODE: 'server', B2_MAX_SESSIONS_PER_KEY: '4' },
    cases: [
      {
        name: 'sessions opened under made-up client names cannot lock another client of the address out',
        run: async (target) => {
          const initialize = (name: string) => ({
            ...legacyInitialize(),
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1' } },
          });
          for (let i = 0; i < 4; i++) expect((await post(target, initialize(`squatter-${i}`))).status).toBe(200);
          const desktop = await post(target, initialize('Claude Desktop'));
          expect([desktop.status, desktop.header('mcp-session-id')]).toEqual([200, expect.any(String)]);
          expect((await health(target)).activeSessions).toBe(4);
        },
      },
    ],
  },
  {
    name: 'legacy sessions, headers credential mode',
    env: { B2_MAX_SESSIONS: '8', B2_MAX_SESSIONS_PER_KEY: '4', B2_TRUST_PROXY_HEADERS: 'true' },
    cases: [
      {
        name: 'two keys × four client names from one address cannot lock another tenant out',
        run: async (target) => {
          const initialize = (name: string) => ({
            ...legacyInitialize(),
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1' } },
          });
          const squatter = { 'x-forwarded-for': '198.51.100.9' };
          for (const key of [TENANT_A, TENANT_B]) {
            for (let i = 0; i < 4; i++) expect((await post(target, initialize(`squatter-${i}`), { ...key, ...squatter })).status).toBe(200);
          }
          const tenant = await post(target, initialize('Claude Desktop'), { ...TENANT, 'x-forwarded-for': '203.0.113.5' });
          expect([tenant.status, tenant.header('mcp-session-id')]).toEqual([200, expect.any(String)]);
          expect((await health(target)).activeSessions).toBe(8);
        },
      },
    ],
  },
];

/**
 * Runs every guard suite against the targets `start` creates (one per suite). `leftOut` names
 * cases a platform cannot pass, each with the reason (they are reported as skipped, reason included).
 */
export function describeGuardSuites(start: StartTarget, leftOut: Readonly<Record<string, string>> = {}): void {
  describe.each(GUARD_SUITES)('$name', (suite) => {
    let target: GuardTarget;
    beforeAll(async () => {
      target = await start(suite.env);
    });
    afterAll(() => target?.stop());
    for (const guardCase of suite.cases) {
      const reason = leftOut[guardCase.name];
      if (reason === undefined) it(guardCase.name, () => guardCase.run(target));
      else it.skip(`${guardCase.name} (left out: ${reason})`, () => undefined);
    }
  });
}
