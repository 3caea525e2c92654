import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/server/logger.js';
import { createFetchHandler } from '../../src/server/fetch-handler.js';
import { createRuntime } from '../../src/server/start.js';
import { serveOverHttp, type HttpHandle } from '../../src/server/transports/http.js';
import { loadHttpSettings } from '../../src/server/transports/http-settings.js';
import type { LimitSlot } from '../../src/server/transports/limit-store.js';
import { connectRedisState } from '../../src/server/transports/redis-state.js';
import {
  LIST_HEADERS,
  legacyInitialize,
  modernMessage,
  openRequest,
  postJson,
  rawRequest,
  type StreamingRequest,
} from '../support/http-client.js';
import { SERVER_BIN, serverEnv, startHttpServer, type HttpServer } from '../support/server-harness.js';
import { REDIS_SERVER, redisOnFreePort, startRedis, type RedisProcess } from '../../scripts/redis-server.js';

const TENANT_A = { 'x-b2-mcp-key-id': 'tenant-a-id', 'x-b2-mcp-key': 'tenant-a-secret' };
const TENANT_B = { 'x-b2-mcp-key-id': 'tenant-b-id', 'x-b2-mcp-key': 'tenant-b-secret' };
const SERVER_ENV = {
  B2_MCP_PROFILE: 'default',
  B2_API_URL: 'http://127.0.0.1:9',
  B2_HTTP_CREDENTIAL_MODE: 'headers',
  B2_TRUST_PROXY_HEADERS: 'true',
};

interface CapturedLogger extends Logger {
  readonly records: Array<Record<string, unknown>>;
  /** Resolves on the `count`-th record of `event` (counting those already written). */
  next(event: string, count: number): Promise<void>;
}

function capturedLogger(): CapturedLogger {
  const records: Array<Record<string, unknown>> = [];
  const waiters: Array<{ event: string; count: number; resolve: () => void }> = [];
  const count = (event: string): number => records.filter((record) => record.event === event).length;
  const write = (level: string) => (event: string, fields?: Record<string, unknown>) => {
    records.push({ level, event, ...fields });
    for (const waiter of [...waiters]) {
      if (count(waiter.event) >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  return {
    records,
    next: (event, wanted) =>
      count(event) >= wanted ? Promise.resolve() : new Promise((resolve) => waiters.push({ event, count: wanted, resolve })),
    debug: () => undefined,
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    close: () => undefined,
  };
}

/** A shared test clock: every instance reads it, the test moves it. */
function manualClock(start = 1_800_000_000_000): { now: () => number; advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms) };
}

interface Instance {
  url: URL;
  logger: CapturedLogger;
  handle: HttpHandle;
  state: Awaited<ReturnType<typeof connectRedisState>>;
}

async function inProcessInstance(env: Record<string, string>, now: () => number): Promise<Instance> {
  const logger = capturedLogger();
  const runtime = await createRuntime({ ...SERVER_ENV, B2_SECRET_SINK: 'off', LOG_LEVEL: 'silent' }, 'http');
  const settings = loadHttpSettings({ ...SERVER_ENV, ...env });
  const state = await connectRedisState({ limits: settings, redis: settings.redis!, sessionIdleMs: 60_000, logger, now });
  const handle = await serveOverHttp({ ...runtime, logger }, { port: 0, host: '127.0.0.1', settings, sharedState: state });
  return { url: new URL(`http://127.0.0.1:${(handle.server.address() as AddressInfo).port}/mcp`), logger, handle, state };
}

async function stopInstance(instance: Instance | undefined): Promise<void> {
  if (!instance) return;
  await instance.handle.drain(0);
  await instance.state.close();
}

const from = (address: string): Record<string, string> => ({ 'x-forwarded-for': address });
const get = async (url: URL, address: string): Promise<number> => (await rawRequest(url, { method: 'GET', headers: from(address) })).status;

async function localInFlight(url: URL): Promise<number> {
  return ((await rawRequest(url, { method: 'GET', path: '/health' })).json() as { inFlightRequests: number }).inFlightRequests;
}

/** A modern tools/list whose body is held back after the first byte, keeping the request in flight. */
function heldRequest(url: URL, headers: Record<string, string>): { request: StreamingRequest; finish(): void } {
  const body = JSON.stringify(modernMessage('tools/list'));
  const request = openRequest(url, { headers: { ...LIST_HEADERS, ...headers, 'content-length': String(Buffer.byteLength(body)) } });
  request.write(body.slice(0, 1));
  return { request, finish: () => request.end(body.slice(1)) };
}

/** Waits until the health document shows `count` requests in flight (each check is a request, not a timer). */
async function untilInFlight(url: URL, count: number): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt += 1) if ((await localInFlight(url)) === count) return;
  throw new Error(`never saw ${count} requests in flight`);
}

describe.skipIf(!REDIS_SERVER)('limits shared through Redis', () => {
  let redis: RedisProcess;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  describe('two `b2-mcp http` processes naming one Redis', () => {
    const env = (extra: Record<string, string>) =>
      serverEnv({ ...SERVER_ENV, B2_MCP_RATE_LIMIT_BURST: '4', B2_MCP_RATE_LIMIT_RPS: '0.001', ...extra });
    let servers: HttpServer[] = [];
    afterAll(() => Promise.all(servers.map((server) => server.stop())));

    it('let a burst of N through once, not once per instance', async () => {
      servers = await Promise.all([
        startHttpServer(env({ B2_MCP_REDIS_URL: redis.url })),
        startHttpServer(env({ B2_MCP_REDIS_URL: redis.url })),
      ]);
      const statuses: number[] = [];
      for (let i = 0; i < 8; i += 1) statuses.push(await get(servers[i % 2]!.url, '10.0.0.1'));
      expect(statuses).toEqual([405, 405, 405, 405, 429, 429, 429, 429]);
    });

    it('share the per-credential bucket across addresses and instances', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i += 1)
        statuses.push((await postJson(servers[i % 2]!.url, modernMessage('tools/list'), { ...TENANT_A, ...from(`10.0.1.${i}`) })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
      expect((await postJson(servers[0]!.url, modernMessage('tools/list'), { ...TENANT_B, ...from('10.0.1.9') })).status).toBe(200);
    });

    it('without Redis each instance has a burst of its own (the control)', async () => {
      const alone = await Promise.all([startHttpServer(env({})), startHttpServer(env({}))]);
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 8; i += 1) statuses.push(await get(alone[i % 2]!.url, '10.0.0.1'));
        expect(statuses).toEqual([405, 405, 405, 405, 405, 405, 405, 405]);
      } finally {
        await Promise.all(alone.map((server) => server.stop()));
      }
    });
  });

  it('two fetch handlers configured with B2_MCP_REDIS_URL share one burst too', async () => {
    const env = {
      ...SERVER_ENV,
      B2_SECRET_SINK: 'off',
      LOG_LEVEL: 'silent',
      B2_MCP_REDIS_URL: redis.url,
      B2_MCP_RATE_LIMIT_BURST: '3',
      B2_MCP_RATE_LIMIT_RPS: '0.001',
    };
    const handlers = [createFetchHandler({ env }), createFetchHandler({ env })];
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i += 1) {
        statuses.push((await handlers[i % 2]!(new Request('http://127.0.0.1/mcp', { method: 'GET', headers: from('10.4.0.1') }))).status);
      }
      expect(statuses).toEqual([405, 405, 405, 429, 429, 429]);
    } finally {
      await Promise.all(handlers.map((handler) => handler.close()));
    }
  });

  describe('in-flight caps across two instances', () => {
    let a: Instance | undefined;
    let b: Instance | undefined;
    beforeAll(async () => {
      const clock = manualClock();
      const env = { B2_MCP_REDIS_URL: redis.url, B2_MAX_SESSIONS: '2', B2_MAX_SESSIONS_PER_KEY: '1' };
      [a, b] = await Promise.all([inProcessInstance(env, clock.now), inProcessInstance(env, clock.now)]);
    });
    afterAll(async () => {
      await Promise.all([stopInstance(a), stopInstance(b)]);
    });

    it('a request in flight on one instance counts against the per-client cap on the other', async () => {
      const held = heldRequest(a!.url, { ...TENANT_A, ...from('10.2.0.1') });
      await untilInFlight(a!.url, 1);
      const refused = await postJson(b!.url, modernMessage('tools/list'), { ...TENANT_A, ...from('10.2.0.1') });
      expect([refused.status, refused.headers['retry-after'], refused.json()]).toEqual([
        429,
        '1',
        { error: 'Too many requests in flight for this client' },
      ]);
      held.finish();
      expect((await held.request.response).status).toBe(200);
      await untilInFlight(a!.url, 0);
      await a!.state.settled();
      expect((await postJson(b!.url, modernMessage('tools/list'), { ...TENANT_A, ...from('10.2.0.1') })).status).toBe(200);
    });

    it('and against the global cap', async () => {
      const first = heldRequest(a!.url, { ...TENANT_A, ...from('10.2.1.1') });
      const second = heldRequest(b!.url, { ...TENANT_B, ...from('10.2.1.2') });
      await untilInFlight(a!.url, 1);
      await untilInFlight(b!.url, 1);
      const refused = await postJson(a!.url, modernMessage('tools/list'), { ...TENANT_B, ...from('10.2.1.3') });
      expect([refused.status, refused.json()]).toEqual([503, { error: 'Server busy: too many requests in flight' }]);
      first.finish();
      second.finish();
      expect([(await first.request.response).status, (await second.request.response).status]).toEqual([200, 200]);
    });
  });

  describe('the store on its own (a manual clock passed to the scripts)', () => {
    const clock = manualClock();
    const stores: Array<Awaited<ReturnType<typeof connectRedisState>>> = [];
    /** Releases a slot and waits until Redis has it. */
    const released = async (state: Awaited<ReturnType<typeof open>>, slot: LimitSlot): Promise<void> => {
      slot.release();
      await state.settled();
    };
    const open = async (burst = 100) => {
      const limits = { rateLimit: { perSecond: 1, burst }, maxInFlight: 3, maxInFlightPerKey: 1 };
      const state = await connectRedisState({
        limits,
        redis: { url: redis.url, failure: 'open' },
        sessionIdleMs: 60_000,
        logger: capturedLogger(),
        now: clock.now,
        slotTtlMs: 3_000,
      });
      stores.push(state);
      return state;
    };
    afterAll(() => Promise.all(stores.map((state) => state.close())));
    /** Admits and at once releases: true when a token was taken, else the refusal. */
    const taken = async (state: Awaited<ReturnType<typeof open>>, key: string): Promise<true | string> => {
      const admitted = await state.limits.admit(key);
      if (typeof admitted === 'string') return admitted;
      admitted.release();
      await state.settled();
      return true;
    };
    const slotFor = async (state: Awaited<ReturnType<typeof open>>, key: string): Promise<LimitSlot> => {
      const admitted = await state.limits.admit(key);
      if (typeof admitted === 'string') throw new Error(`no slot for ${key}: ${admitted}`);
      return admitted;
    };

    it('refills the shared bucket by the clock it is given', async () => {
      const [a, b] = [await open(2), await open(2)];
      expect([await taken(a, 'refill'), await taken(b, 'refill'), await taken(a, 'refill')]).toEqual([true, true, 'rate']);
      clock.advance(999);
      expect(await taken(b, 'refill')).toBe('rate');
      clock.advance(1);
      expect([await taken(b, 'refill'), await taken(a, 'refill')]).toEqual([true, 'rate']);
      clock.advance(60_000);
      expect([await taken(a, 'refill'), await taken(a, 'refill'), await taken(b, 'refill')]).toEqual([true, true, 'rate']);
    });

    it('takes no token for a request the in-flight caps refuse, and keeps no slot for one the bucket refuses', async () => {
      const [a, b] = [await open(2), await open(2)];
      const held = await slotFor(a, 'capped');
      expect([await taken(b, 'capped'), await taken(b, 'capped')]).toEqual(['key', 'key']);
      await released(a, held);
      expect([await taken(b, 'capped'), await taken(b, 'capped')]).toEqual([true, 'rate']);
      expect([a.limits.localInFlight, b.limits.localInFlight]).toEqual([0, 0]);
      clock.advance(1_000);
      expect(await taken(a, 'capped')).toBe(true);
    });

    it("frees a crashed instance's slots once their expiry passes, not before", async () => {
      const crashed = await open();
      const survivor = await open();
      await slotFor(crashed, 'crash');
      expect(crashed.limits.localInFlight).toBe(1);
      await crashed.close();
      clock.advance(2_999);
      expect(await taken(survivor, 'crash')).toBe('key');
      clock.advance(1);
      expect(await taken(survivor, 'crash')).toBe(true);
    });

    it('keeps a slot its holder refreshes', async () => {
      const [holder, other] = [await open(), await open()];
      const slot = await slotFor(holder, 'refreshed');
      clock.advance(2_000);
      await holder.limits.refresh();
      clock.advance(2_000);
      expect(await taken(other, 'refreshed')).toBe('key');
      await released(holder, slot);
      expect(holder.limits.localInFlight).toBe(0);
      expect(await taken(other, 'refreshed')).toBe(true);
    });

    it('counts a slot under its credential as well, atomically, refusing a full one and keeping the address counted', async () => {
      const [a, b] = [await open(), await open()];
      const slot = await slotFor(a, 'address-1');
      expect(await slot.countAlso('credential-x')).toBe('ok');
      expect(await taken(b, 'credential-x')).toBe('key');
      expect(await taken(b, 'address-1')).toBe('key');
      const other = await slotFor(b, 'address-2');
      expect(await other.countAlso('credential-x')).toBe('key');
      expect(await taken(a, 'address-2')).toBe('key');
      slot.release();
      await released(a, slot);
      expect(await taken(b, 'address-1')).toBe(true);
      expect(await other.countAlso('credential-x')).toBe('ok');
      await released(b, other);
      expect(await taken(a, 'credential-x')).toBe(true);
      expect(await taken(a, 'address-2')).toBe(true);
    });

    it('refuses a credential whose bucket is empty, counting the slot under the credential', async () => {
      const [a, b] = [await open(1), await open(1)];
      const first = await slotFor(a, 'address-3');
      expect(await first.countAlso('credential-y')).toBe('ok');
      await released(a, first);
      const second = await slotFor(b, 'address-4');
      expect(await second.countAlso('credential-y')).toBe('rate');
      expect(await taken(a, 'credential-y')).toBe('key');
      await released(b, second);
      clock.advance(1_000);
      expect(await taken(a, 'credential-y')).toBe(true);
    });
  });

  describe('legacy sessions held by another instance', () => {
    let a: Instance | undefined;
    let b: Instance | undefined;
    beforeAll(async () => {
      const clock = manualClock();
      [a, b] = await Promise.all([
        inProcessInstance({ B2_MCP_REDIS_URL: redis.url }, clock.now),
        inProcessInstance({ B2_MCP_REDIS_URL: redis.url }, clock.now),
      ]);
    });
    afterAll(async () => {
      await Promise.all([stopInstance(a), stopInstance(b)]);
    });

    it('answer a clear JSON-RPC error on the other instance, "not found" for unknown ones', async () => {
      const opened = await postJson(a!.url, legacyInitialize(), TENANT_A);
      const sessionId = opened.headers['mcp-session-id'] as string;
      expect([opened.status, typeof sessionId]).toEqual([200, 'string']);
      await a!.state.settled();
      const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
      const session = { ...TENANT_A, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };

      const elsewhere = await postJson(b!.url, list, session);
      expect([elsewhere.status, elsewhere.json()]).toEqual([
        421,
        {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32001, message: 'Session held by another instance: route requests by Mcp-Session-Id (sticky sessions)' },
        },
      ]);
      expect((await postJson(a!.url, list, session)).status).toBe(200);
      // Another credential on the holding instance learns nothing about the session.
      expect((await postJson(a!.url, list, { ...session, ...TENANT_B })).status).toBe(404);
      const unknown = await postJson(b!.url, list, { ...session, 'mcp-session-id': 'no-such-session' });
      expect([unknown.status, (unknown.json() as { error: { message: string } }).error.message]).toEqual([404, 'Session not found']);

      expect(
        (await rawRequest(a!.url, { method: 'DELETE', headers: { ...session, accept: 'application/json, text/event-stream' } })).status,
      ).toBe(200);
      await a!.state.settled();
      expect((await postJson(b!.url, list, session)).status).toBe(404);
    });
  });

  describe('a Redis restart mid-run', () => {
    let instances: Instance[] = [];
    afterAll(async () => {
      await Promise.all(instances.map(stopInstance));
      await redis.start().catch(() => undefined);
    });

    it("keeps both instances answering: fail-open falls back to each instance's own limits, logged once per outage", async () => {
      const clock = manualClock();
      const env = { B2_MCP_REDIS_URL: redis.url, B2_MCP_RATE_LIMIT_BURST: '3', B2_MCP_RATE_LIMIT_RPS: '0.001' };
      const closedEnv = { ...env, B2_MCP_REDIS_FAILURE: 'closed' };
      instances = await Promise.all([
        inProcessInstance(env, clock.now),
        inProcessInstance(env, clock.now),
        inProcessInstance(closedEnv, clock.now),
      ]);
      const [a, b, closed] = instances as [Instance, Instance, Instance];
      expect([await get(a.url, '10.3.0.1'), await get(b.url, '10.3.0.1'), await get(closed.url, '10.3.0.9')]).toEqual([405, 405, 405]);

      await redis.stop();
      // Each open instance now limits on its own: three each for a fresh address, then 429.
      const during: number[][] = [[], []];
      for (let i = 0; i < 4; i += 1) for (const [n, instance] of [a, b].entries()) during[n]!.push(await get(instance.url, '10.3.1.1'));
      expect(during).toEqual([
        [405, 405, 405, 429],
        [405, 405, 405, 429],
      ]);
      const refused = await rawRequest(closed.url, { method: 'GET', headers: from('10.3.1.2') });
      expect([refused.status, refused.headers['retry-after'], refused.json()]).toEqual([
        503,
        '1',
        { error: 'Shared rate-limit store unavailable' },
      ]);
      expect((await rawRequest(closed.url, { method: 'GET', path: '/health' })).status).toBe(200);
      for (const instance of instances) {
        const outages = instance.logger.records.filter((record) => record.event === 'http.redis_unavailable');
        expect(outages).toHaveLength(1);
        expect(outages[0]).toMatchObject({
          level: 'warn',
          redis: `127.0.0.1:${redis.port}`,
          failure: instance === closed ? 'closed' : 'open',
        });
      }

      await redis.start();
      await Promise.all(instances.map((instance) => instance.logger.next('http.redis_recovered', 1)));
      // Shared again (the restarted Redis is empty): one burst of three across both instances.
      expect([
        await get(a.url, '10.3.2.1'),
        await get(b.url, '10.3.2.1'),
        await get(a.url, '10.3.2.1'),
        await get(b.url, '10.3.2.1'),
      ]).toEqual([405, 405, 405, 429]);
      expect(await get(closed.url, '10.3.2.2')).toBe(405);
      for (const instance of instances)
        expect(instance.logger.records.filter((record) => record.event === 'http.redis_unavailable')).toHaveLength(1);
    });
  });
});

/** `b2-mcp http` with its log lines collected; `logged(event, n)` resolves once the n-th such line is out. */
async function loggingServer(env: Record<string, string>) {
  const child = spawn(process.execPath, [SERVER_BIN, 'http', '--port', '0'], {
    env: serverEnv({ ...SERVER_ENV, ...env, LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  let partial = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString();
    const complete = text.split('\n');
    partial = complete.pop()!;
    for (const line of complete) lines.push(JSON.parse(line) as Record<string, unknown>);
    for (const waiter of waiters.splice(0)) waiter();
  });
  const count = (event: string): number => lines.filter((line) => line.event === event).length;
  const logged = async (event: string, wanted = 1): Promise<void> => {
    while (count(event) < wanted) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${JSON.stringify(lines)}`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  await logged('http.listening');
  const url = new URL(String(lines.find((line) => line.event === 'http.listening')!.url));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { url, lines, count, logged, stop };
}

describe.skipIf(!REDIS_SERVER)('a Redis that is not there when the server starts', () => {
  it('starts and answers anyway (open: its own limits; closed: 503), logs the outage once, and shares once Redis appears', async () => {
    const redis = await redisOnFreePort();
    const limits = { B2_MCP_REDIS_URL: redis.url, B2_MCP_RATE_LIMIT_BURST: '2', B2_MCP_RATE_LIMIT_RPS: '0.001' };
    const open = await loggingServer(limits);
    const closed = await loggingServer({ ...limits, B2_MCP_REDIS_FAILURE: 'closed' });
    try {
      expect([await get(open.url, '10.5.0.1'), await get(open.url, '10.5.0.1'), await get(open.url, '10.5.0.1')]).toEqual([405, 405, 429]);
      const refused = await rawRequest(closed.url, { method: 'GET', headers: from('10.5.0.2') });
      expect([refused.status, refused.json()]).toEqual([503, { error: 'Shared rate-limit store unavailable' }]);
      expect((await rawRequest(closed.url, { method: 'GET', path: '/health' })).status).toBe(200);
      for (const server of [open, closed]) {
        expect(server.lines.filter((line) => line.event === 'http.redis_unavailable')).toEqual([
          expect.objectContaining({ level: 'warn', redis: `127.0.0.1:${redis.port}`, reason: 'ECONNREFUSED' }),
        ]);
      }

      await redis.start();
      await Promise.all([open.logged('http.redis_recovered'), closed.logged('http.redis_recovered')]);
      expect([await get(closed.url, '10.5.1.1'), await get(closed.url, '10.5.1.1'), await get(open.url, '10.5.1.1')]).toEqual([
        405, 405, 429,
      ]);
      expect([open.count('http.redis_unavailable'), closed.count('http.redis_unavailable')]).toEqual([1, 1]);
    } finally {
      await Promise.all([open.stop(), closed.stop(), redis.stop()]);
    }
  });
});

describe.skipIf(!REDIS_SERVER)('a Redis that wants a password', () => {
  const CANARY = 'redis-password-canary-7f3a9c';
  let redis: RedisProcess;
  beforeAll(async () => {
    redis = await startRedis(['--requirepass', CANARY]);
  });
  afterAll(() => redis?.stop());

  it('is used with the password from the URL; a wrong one is logged without ever showing it', async () => {
    const clock = manualClock();
    const limits = { rateLimit: { perSecond: 1, burst: 1 }, maxInFlight: 3, maxInFlightPerKey: 1 };
    const good = await connectRedisState({
      limits,
      redis: { url: `redis://:${CANARY}@127.0.0.1:${redis.port}`, failure: 'closed' },
      sessionIdleMs: 1_000,
      logger: capturedLogger(),
      now: clock.now,
    });
    const logger = capturedLogger();
    const wrong = await connectRedisState({
      limits,
      redis: { url: `redis://:wrong-${CANARY}@127.0.0.1:${redis.port}`, failure: 'closed' },
      sessionIdleMs: 1_000,
      logger,
      now: clock.now,
    });
    try {
      const admitted = await good.limits.admit('pw');
      if (typeof admitted === 'string') throw new Error(`refused: ${admitted}`);
      admitted.release();
      expect(await good.limits.admit('pw')).toBe('rate');
      await expect(wrong.limits.admit('pw')).rejects.toThrow('Shared rate-limit store unavailable');
      expect(logger.records).toEqual([
        { level: 'warn', event: 'http.redis_unavailable', redis: `127.0.0.1:${redis.port}`, failure: 'closed', reason: 'WRONGPASS' },
      ]);
      expect(JSON.stringify(logger.records)).not.toContain(CANARY);
    } finally {
      await Promise.all([good.close(), wrong.close()]);
    }
  });
});

if (!REDIS_SERVER) {
  console.warn('test:redis skipped: no redis-server on PATH (apt-get install redis-server; .ci/run installs it where it can)');
  describe('limits shared through Redis', () => {
    it.skip('redis-server is not installed (apt-get install -y redis-server); .ci/run installs it', () => undefined);
  });
}
