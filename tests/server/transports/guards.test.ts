import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { isLoopbackAddress } from '../../../src/contract/loopback-address.js';
import { createHostGuard } from '../../../src/server/transports/host-guard.js';
import { CredentialFailure, credentialKey, credentialsFromHeaders } from '../../../src/server/transports/http-credentials.js';
import { loadHttpSettings } from '../../../src/server/transports/http-settings.js';
import { InFlightLimiter } from '../../../src/server/transports/in-flight.js';
import { LegacySessions, type LegacyLease } from '../../../src/server/transports/legacy-sessions.js';
import { routeMcpRequest } from '../../../src/server/transports/mcp-route.js';
import { TokenBuckets } from '../../../src/server/transports/rate-limit.js';

describe('host guard', () => {
  const loopbackOnly = createHostGuard({ allowedHosts: [], allowedOrigins: [] });
  const check = (guard: typeof loopbackOnly, host: string | undefined, origin?: string, loopbackHealthProbe = false) =>
    guard({ host, origin, loopbackHealthProbe });

  it('accepts only loopback names when nothing is configured', () => {
    for (const host of ['localhost', 'LOCALHOST:3000', '127.0.0.1:80', '[::1]', '[::1]:8080'])
      expect(check(loopbackOnly, host), host).toBe(true);
    for (const host of ['example.com', 'localhost.example.com', '127.0.0.2', '[::2]:80', '', undefined])
      expect(check(loopbackOnly, host), String(host)).toBe(false);
    expect(check(loopbackOnly, 'localhost', 'http://[::1]:5173')).toBe(true);
    expect(check(loopbackOnly, 'localhost', 'http://evil.example')).toBe(false);
    expect(check(loopbackOnly, 'localhost', 'not a url')).toBe(false);
  });

  it('matches a listed origin exactly, and trusts any Host when only origins are listed', () => {
    const guard = createHostGuard({ allowedHosts: [], allowedOrigins: ['https://app.example.com'] });
    expect(check(guard, 'mcp.internal:8080', 'https://app.example.com')).toBe(true);
    expect(check(guard, 'mcp.internal:8080')).toBe(true);
    expect(check(guard, 'mcp.internal:8080', 'https://app.example.com/')).toBe(false);
    expect(check(guard, 'mcp.internal:8080', 'http://app.example.com')).toBe(false);
  });

  it('lets a loopback health probe through regardless of the lists, but never a foreign Host or Origin', () => {
    const guard = createHostGuard({ allowedHosts: ['mcp.example.com'], allowedOrigins: [] });
    expect(check(guard, 'localhost:3000', undefined, true)).toBe(true);
    expect(check(guard, 'localhost:3000', undefined, false)).toBe(false);
    expect(check(guard, 'evil.example', undefined, true)).toBe(false);
    expect(check(guard, 'localhost', 'https://evil.example', true)).toBe(false);
  });

  it('recognises loopback socket addresses', () => {
    expect(['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1', '::FFFF:127.0.0.2', '0:0:0:0:0:0:0:1'].every(isLoopbackAddress)).toBe(
      true,
    );
    // An IPv4-mapped prefix is unwrapped only around an IPv4 address; names and malformed text are not addresses.
    const notLoopback = [
      '10.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:::1',
      '::ffff:127.example',
      '127.example',
      '::2',
      'localhost',
      '',
      undefined,
    ];
    expect(notLoopback.filter(isLoopbackAddress)).toEqual([]);
  });
});

describe('token buckets', () => {
  it('allow a burst, refill at the configured rate, and keep keys apart', () => {
    let now = 0;
    const buckets = new TokenBuckets(2, 3, () => now);
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a'), buckets.take('a')]).toEqual([true, true, true, false]);
    expect(buckets.take('b')).toBe(true);
    now = 499;
    expect(buckets.take('a')).toBe(false);
    now = 500;
    expect([buckets.take('a'), buckets.take('a')]).toEqual([true, false]);
  });

  it('forget buckets that are full again after ten idle minutes, and only those', () => {
    let now = 0;
    const buckets = new TokenBuckets(1, 5, () => now);
    buckets.take('idle');
    now = 60_000;
    buckets.take('recent');
    now = 10 * 60_000 - 1;
    buckets.sweep();
    expect(buckets.size).toBe(2);
    now = 10 * 60_000;
    buckets.sweep();
    expect(buckets.size).toBe(1);
    expect(buckets.take('recent')).toBe(true);
  });
});

describe('in-flight limiter', () => {
  it('refuses over the global cap first, then over the per-key cap, and frees slots once', () => {
    const limiter = new InFlightLimiter(3, 2);
    const a1 = limiter.acquire('a');
    const a2 = limiter.acquire('a');
    expect(limiter.acquire('a')).toBe('key');
    const b1 = limiter.acquire('b');
    expect(limiter.acquire('c')).toBe('global');
    expect(limiter.total).toBe(3);
    if (typeof a1 === 'string' || typeof a2 === 'string' || typeof b1 === 'string') throw new Error('expected slots');
    a1.release();
    a1.release();
    expect(limiter.total).toBe(2);
    expect(typeof limiter.acquire('a')).toBe('object');
  });

  it('counts a slot under the credential as well, keeping the client address full, refusing a full credential', () => {
    const limiter = new InFlightLimiter(10, 1);
    const first = limiter.acquire('address:1');
    const second = limiter.acquire('address:2');
    if (typeof first === 'string' || typeof second === 'string') throw new Error('expected slots');
    expect(first.countAlso('credential:x')).toBe(true);
    expect(limiter.acquire('address:1')).toBe('key');
    expect(second.countAlso('credential:x')).toBe(false);
    first.release();
    expect(second.countAlso('credential:x')).toBe(true);
    expect(typeof limiter.acquire('address:1')).toBe('object');
    expect(limiter.total).toBe(2);
  });
});

describe('credentials from headers', () => {
  const primary = { 'x-b2-mcp-key-id': 'id', 'x-b2-mcp-key': 'secret' };

  it('maps the primary pair, an application-key override and a master pair', () => {
    expect(credentialsFromHeaders(primary)).toEqual({ applicationKeyId: 'id', applicationKey: 'secret' });
    expect(credentialsFromHeaders({ 'x-b2-key-id': ' id ', 'x-b2-key': 'secret' })).toEqual({
      applicationKeyId: 'id',
      applicationKey: 'secret',
    });
    expect(credentialsFromHeaders({ ...primary, 'x-b2-app-key-id': 'app', 'x-b2-app-key': 'app-secret' })).toEqual({
      applicationKeyId: 'app',
      applicationKey: 'app-secret',
      masterKeyId: 'id',
      masterKey: 'secret',
    });
    expect(credentialsFromHeaders({ ...primary, 'x-b2-mcp-master-key-id': 'm', 'x-b2-master-key': 'm-secret' })).toEqual({
      applicationKeyId: 'id',
      applicationKey: 'secret',
      masterKeyId: 'm',
      masterKey: 'm-secret',
    });
  });

  it('reports missing, partial and conflicting headers with their codes and statuses', () => {
    const failure = (headers: Record<string, string | string[]>): [number, string] => {
      try {
        credentialsFromHeaders(headers);
      } catch (error) {
        if (error instanceof CredentialFailure) return [error.status, error.code];
        throw error;
      }
      throw new Error('expected a failure');
    };
    expect(failure({})).toEqual([401, 'missing_credentials']);
    expect(failure({ 'x-b2-mcp-key-id': '  ', 'x-b2-mcp-key': '' })).toEqual([401, 'missing_credentials']);
    expect(failure({ 'x-b2-mcp-master-key-id': 'm', 'x-b2-mcp-master-key': 's' })).toEqual([401, 'missing_credentials']);
    expect(failure({ 'x-b2-mcp-key-id': 'id' })).toEqual([400, 'partial_credential']);
    expect(failure({ ...primary, 'x-b2-app-key-id': 'app' })).toEqual([400, 'partial_credential']);
    expect(failure({ ...primary, 'x-b2-key': 'other' })).toEqual([400, 'conflicting_headers']);
    expect(failure({ ...primary, 'x-b2-mcp-key-id': ['id', 'id2'] })).toEqual([400, 'conflicting_headers']);
  });

  it('keys a credential without revealing it', () => {
    const key = credentialKey({ applicationKeyId: 'id', applicationKey: 'secret' });
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(key).toBe(credentialKey({ applicationKeyId: 'id', applicationKey: 'secret' }));
    expect(key).not.toBe(credentialKey({ applicationKeyId: 'id', applicationKey: 'secret2' }));
    expect(key).not.toContain('secret');
  });
});

describe('HTTP settings', () => {
  it('apply the documented defaults', () => {
    expect(loadHttpSettings({})).toEqual({
      credentialMode: 'headers',
      allowedHosts: [],
      allowedOrigins: [],
      trustProxyHeaders: false,
      trustedProxyHops: 1,
      rateLimit: { perSecond: 60, burst: 120 },
      maxInFlight: 1000,
      maxInFlightPerKey: 20,
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
    });
  });

  it('trim the allowlists and cap the headers timeout at the request timeout', () => {
    const settings = loadHttpSettings({
      B2_ALLOWED_HOSTS: ' A.example.com ,, b.example.com:8443 ',
      B2_ALLOWED_ORIGINS: 'https://App.example.com',
      B2_HTTP_REQUEST_TIMEOUT_MS: '5000',
      B2_HTTP_HEADERS_TIMEOUT_MS: '9000',
      B2_HTTP_CREDENTIAL_MODE: 'SERVER',
    });
    expect(settings.allowedHosts).toEqual(['a.example.com', 'b.example.com:8443']);
    expect(settings.allowedOrigins).toEqual(['https://App.example.com']);
    expect([settings.requestTimeoutMs, settings.headersTimeoutMs, settings.credentialMode]).toEqual([5000, 5000, 'server']);
  });
});

describe('legacy sessions', () => {
  const factory = () => new McpServer({ name: 'test', version: '1' });
  const initialize = (): Request =>
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
  const openSession = async (sessions: LegacySessions, owner: string, address = `from-${owner}`): Promise<string> => {
    const lease = sessions.open(owner, address, factory);
    if (typeof lease === 'string') throw new Error(`refused: ${lease}`);
    const response = await lease.fetch(initialize());
    lease.release();
    return response.headers.get('mcp-session-id')!;
  };
  const alive = (sessions: LegacySessions, owner: string, id: string): boolean => {
    const lease = sessions.resume(owner, id);
    if (lease === 'not_found') return false;
    lease.release();
    return true;
  };

  it('when globally full, close the requester’s own idle session, never a smaller holder’s; refuse when nothing is fair to close', async () => {
    let now = 0;
    const sessions = new LegacySessions(2, 2, 60_000, () => now);
    const first = await openSession(sessions, 'a');
    now = 1;
    const second = await openSession(sessions, 'b');
    now = 2;
    // Everyone holds one: a newcomer may not take anybody's.
    expect(sessions.open('c', 'from-c', factory)).toBe('global');
    expect([alive(sessions, 'a', first), alive(sessions, 'b', second)]).toEqual([true, true]);
    // `b` opening again replaces its own session, not `a`'s older one.
    now = 3;
    const replacement = await openSession(sessions, 'b');
    expect([alive(sessions, 'a', first), alive(sessions, 'b', second), alive(sessions, 'b', replacement)]).toEqual([true, false, true]);
    const busy = sessions.resume('b', replacement) as LegacyLease;
    expect(sessions.open('b', 'from-b', factory)).toBe('global');
    busy.release();
  });

  it('a legacy route counts the calls a batch makes and leaves out the client’s progress notifications', async () => {
    const headers = () => ({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
    const encode = (message: unknown) => Buffer.from(JSON.stringify(message));
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'b2_list_buckets', arguments: {} } });
    const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 0, progress: 1 } };
    const initialize = encode({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'claude-desktop', version: '1' } },
    });
    expect(await routeMcpRequest('POST', headers(), initialize)).toEqual({ kind: 'legacy', initialize: true, calls: 1, body: initialize });
    const batch = encode([call(1), progress, call(2), { jsonrpc: '2.0', method: 'notifications/initialized' }]);
    const routed = (await routeMcpRequest('POST', { ...headers(), 'mcp-session-id': 's' }, batch)) as { calls: number; body: Buffer };
    expect([routed.calls, JSON.parse(Buffer.from(routed.body).toString())]).toEqual([
      2,
      [call(1), call(2), { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ]);
    expect(await routeMcpRequest('POST', { ...headers(), 'mcp-session-id': 's' }, encode(progress))).toEqual({
      kind: 'legacy',
      initialize: false,
      sessionId: 's',
      calls: 1,
    });
  });

  it('when globally full, room is made from the requester’s own address, then the biggest holder’s: never by the names or keys a client declares', async () => {
    let now = 0;
    const sessions = new LegacySessions(4, 4, 60_000, () => now);
    // One address opens four sessions under four made-up credentials.
    const squatted: string[] = [];
    for (let i = 0; i < 4; i++) {
      squatted.push(await openSession(sessions, `credential:made-up-${i}`, 'address:198.51.100.9'));
      now += 1;
    }
    const theirs = await openSession(sessions, 'credential:tenant', 'address:203.0.113.5');
    expect(alive(sessions, 'credential:tenant', theirs)).toBe(true);
    expect(alive(sessions, 'credential:made-up-0', squatted[0]!)).toBe(false);
    expect(sessions.size).toBe(4);
  });

  it('cap sessions per owner, evicting that owner’s own idle session first', async () => {
    const sessions = new LegacySessions(10, 1, 60_000);
    const mine = await openSession(sessions, 'a');
    const theirs = await openSession(sessions, 'b');
    const replacement = await openSession(sessions, 'a');
    expect(sessions.resume('a', mine)).toBe('not_found');
    (sessions.resume('b', theirs) as LegacyLease).release();
    const held = sessions.resume('a', replacement) as LegacyLease;
    expect(sessions.open('a', 'from-a', factory)).toBe('key');
    held.release();
    expect(sessions.size).toBe(2);
  });

  it('close sessions idle past the limit, and reject another owner’s session id', async () => {
    let now = 0;
    const sessions = new LegacySessions(10, 10, 1_000, () => now);
    const id = await openSession(sessions, 'a');
    expect(sessions.resume('b', id)).toBe('not_found');
    now = 999;
    sessions.sweep();
    expect(sessions.size).toBe(1);
    now = 1_000;
    sessions.sweep();
    expect(sessions.size).toBe(0);
    expect(sessions.resume('a', id)).toBe('not_found');
  });
});
