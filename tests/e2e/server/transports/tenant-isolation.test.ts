/**
 * Tenants of one HTTP server (issue 24, holes 13 and 15). In `headers` credential mode with a
 * pinned profile the server does not ask B2 about a key before it builds a session for it, so
 * what a key id alone can reach, and what made-up keys cost, are the server's to bound; with
 * OAuth in `server` mode every subject shares one key, so the subject scopes its records.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../../src/sandbox/index.js';
import { CACHED_SESSION_BYTES, createRuntime, SESSION_CACHE_BYTES } from '../../../../src/server/start.js';
import { startLocalIssuer, type LocalIssuer } from '../../../support/oauth-issuer-support.js';
import { createKey, sandboxCredentials, startTestSandbox, textOf, type SandboxKey } from '../../../support/sandbox-harness.js';
import { connectHttp, serverEnv, startHttpServer, type Connected, type HttpServer } from '../../../support/server-harness.js';

describe('idempotency records belong to the key that made them, not to its id', () => {
  let sandbox: RunningSandbox;
  let alice: SandboxKey;
  let http: HttpServer;
  let home: string;
  const clients: Connected[] = [];

  const connect = async (keyId: string, secret: string): Promise<Connected> => {
    const client = await connectHttp('legacy', new URL('/mcp', http.url), {
      headers: { 'x-b2-mcp-key-id': keyId, 'x-b2-mcp-key': secret },
    });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    alice = await createKey(sandbox, {
      keyName: 'alice',
      capabilities: ['listKeys', 'writeKeys', 'listBuckets', 'listFiles', 'readFiles'],
    });
    home = mkdtempSync(join(tmpdir(), 'tenant-isolation-'));
    http = await startHttpServer(
      serverEnv({
        HOME: home,
        B2_API_URL: sandbox.apiUrl,
        B2_HTTP_CREDENTIAL_MODE: 'headers',
        B2_MCP_PROFILE: 'full',
        B2_SECRET_SINK: 'file',
        B2_SECRET_SINK_FILE: join(home, 'secrets.jsonl'),
        B2_ALLOW_LOCAL_FILES: 'true',
        B2_DESTRUCTIVE_POLICY: 'confirm',
      }),
    );
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await http?.stop();
    await sandbox?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it("a caller with Alice's key id and a made-up key neither replays nor probes her creation", async () => {
    const args = { keyName: 'alice-deployer', capabilities: ['listFiles'], idempotencyKey: 'deploy-1', confirm: true };
    const aliceClient = await connect(alice.applicationKeyId, alice.applicationKey);
    const created = await aliceClient.callTool('b2_create_key', args);
    expect(created.isError, textOf(created)).toBeFalsy();
    const createdId = (created.structuredContent as { applicationKeyId: string }).applicationKeyId;

    const mallory = await connect(alice.applicationKeyId, 'K005madeupkeymadeupkeymadeup12');
    for (const attempt of [args, { ...args, capabilities: ['listFiles', 'readFiles'] }]) {
      const answer = await mallory.callTool('b2_create_key', attempt);
      // B2 is asked, and refuses the made-up key: no replay, and no 409 telling the record exists.
      expect(answer.isError).toBe(true);
      expect(textOf(answer)).not.toMatch(/idempotency_key_conflict|idempotency_key_pending/);
      expect(JSON.stringify(answer)).not.toContain(createdId);
      expect(JSON.stringify(answer)).not.toContain('idempotentReplay');
    }

    // Alice herself still gets her replay.
    const replay = await aliceClient.callTool('b2_create_key', args);
    expect(replay.structuredContent).toMatchObject({ applicationKeyId: createdId, idempotentReplay: true });
  });
});

describe('with OAuth in server mode every subject shares the server key, but not its idempotency records', () => {
  let sandbox: RunningSandbox;
  let issuer: LocalIssuer;
  let http: HttpServer;
  let home: string;
  const clients: Connected[] = [];
  const resource = 'http://localhost:8080/mcp';

  const connectAs = async (subject: string): Promise<Connected> => {
    const token = await issuer.sign({ sub: subject, aud: resource, scope: 'b2:admin' });
    const client = await connectHttp('legacy', new URL('/mcp', http.url), { headers: { authorization: `Bearer ${token}` } });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    issuer = await startLocalIssuer();
    const key = await createKey(sandbox, {
      keyName: 'shared',
      capabilities: ['listKeys', 'writeKeys', 'listBuckets', 'listFiles', 'readFiles'],
    });
    home = mkdtempSync(join(tmpdir(), 'tenant-isolation-oauth-'));
    http = await startHttpServer(
      serverEnv({
        HOME: home,
        ...sandboxCredentials(sandbox, key),
        B2_HTTP_CREDENTIAL_MODE: 'server',
        B2_MCP_PROFILE: 'full',
        B2_OAUTH_ISSUER: issuer.issuer,
        B2_MCP_PUBLIC_URL: 'http://localhost:8080',
        B2_OAUTH_DANGEROUSLY_ALLOW_INSECURE_ISSUER_URL: 'true',
        B2_SECRET_SINK: 'file',
        B2_SECRET_SINK_FILE: join(home, 'secrets.jsonl'),
        B2_ALLOW_LOCAL_FILES: 'true',
        B2_DESTRUCTIVE_POLICY: 'confirm',
      }),
    );
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await http?.stop();
    await issuer?.close();
    await sandbox?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it("bob's call under alice's idempotency key creates his own key: no replay of hers, no 409 for other input", async () => {
    const args = { keyName: 'deployer', capabilities: ['listFiles'], idempotencyKey: 'deploy-1', confirm: true };
    const alice = await connectAs('alice');
    const hers = await alice.callTool('b2_create_key', args);
    expect(hers.isError, textOf(hers)).toBeFalsy();
    const herId = (hers.structuredContent as { applicationKeyId: string }).applicationKeyId;

    const bob = await connectAs('bob');
    const his = await bob.callTool('b2_create_key', args);
    expect(his.isError, textOf(his)).toBeFalsy();
    expect(his.structuredContent).not.toHaveProperty('idempotentReplay');
    expect((his.structuredContent as { applicationKeyId: string }).applicationKeyId).not.toBe(herId);
    const other = await bob.callTool('b2_create_key', { ...args, idempotencyKey: 'deploy-2' });
    const otherInput = await (await connectAs('carol')).callTool('b2_create_key', { ...args, capabilities: ['readFiles'] });
    for (const answer of [other, otherInput]) expect(textOf(answer)).not.toMatch(/idempotency_key_conflict/);

    expect((await alice.callTool('b2_create_key', args)).structuredContent).toMatchObject({
      applicationKeyId: herId,
      idempotentReplay: true,
    });
  });
});

describe('the credential session cache is bounded by memory', () => {
  const env = { B2_MCP_PROFILE: 'default', B2_API_URL: 'http://127.0.0.1:9', B2_SECRET_SINK: 'off', LOG_LEVEL: 'silent' };
  const madeUp = (i: number) => ({
    applicationKeyId: `000madeup${String(i).padStart(16, '0')}`,
    applicationKey: `K000madeupkey${String(i).padStart(18, '0')}`,
  });

  it('a budget holds no more sessions than it has room for at the measured cost, least recently used going first', async () => {
    const room = 8;
    const runtime = await createRuntime(env, 'http', { sessionCacheBytes: room * CACHED_SESSION_BYTES });
    const first = await Promise.all(Array.from({ length: 3 * room }, (_, i) => runtime.sessionFor(madeUp(i))));
    // The last `room` are still cached (the same session comes back)...
    for (let i = 2 * room; i < 3 * room; i++) expect(await runtime.sessionFor(madeUp(i)), `credential ${i}`).toBe(first[i]);
    // ...and an earlier one was let go: asking again builds a new session.
    expect(await runtime.sessionFor(madeUp(0))).not.toBe(first[0]);
  });

  it('the default budget, 64 MiB at the measured cost, lets go of made-up credentials long before 10,000', async () => {
    const runtime = await createRuntime(env, 'http');
    const room = Math.floor(SESSION_CACHE_BYTES / CACHED_SESSION_BYTES);
    expect(room).toBeLessThan(2_000);
    const oldest = await runtime.sessionFor(madeUp(0));
    for (let i = 1; i <= room; i++) await runtime.sessionFor(madeUp(i));
    expect(await runtime.sessionFor(madeUp(room))).toBe(await runtime.sessionFor(madeUp(room)));
    expect(await runtime.sessionFor(madeUp(0))).not.toBe(oldest);
  });
});
