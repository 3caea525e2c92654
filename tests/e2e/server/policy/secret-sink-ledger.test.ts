/**
 * The durable-secret tools end to end (contract §7): the built server on stdio with debug logs
 * captured, the official MCP client, the sandbox. The canary is the real secret B2 minted: it
 * must reach the ledger and nothing else (results, structuredContent, errors, stderr).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../../src/sandbox/index.js';
import {
  ALL_KEY_CAPABILITIES,
  createKey,
  mutations,
  startTestSandbox,
  textOf,
  type SandboxKey,
  sandboxCredentials,
} from '../../../support/sandbox-harness.js';
import { testClock } from '../../../support/clock.js';
import { SERVER_BIN } from '../../../support/server-harness.js';

type Json = Record<string, any>;

interface CapturedServer {
  call(name: string, args: Json): Promise<Json>;
  listTools(): Promise<Json[]>;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

let sandbox: RunningSandbox;
let key: SandboxKey;
const servers: CapturedServer[] = [];
/** Every result and error text seen outside inline mode: none may hold a canary. */
const seen: string[] = [];

function env(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: mkdtempSync(join(tmpdir(), 'b2-secret-home-')),
    LOG_LEVEL: 'debug',
    ...sandboxCredentials(sandbox, key, { partner: true }),
    B2_DESTRUCTIVE_POLICY: 'confirm',
    ...extra,
  };
}

async function start(extra: Record<string, string>): Promise<CapturedServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...testClock.nodeArgs, SERVER_BIN, 'stdio'],
    env: { ...env(extra), ...testClock.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'secret-canary', version: '1' });
  await client.connect(transport);
  const server: CapturedServer = {
    call: async (name, args) => {
      const result = (await client.callTool({ name, arguments: args })) as Json;
      // Inline results carry their secret on purpose.
      if (extra.B2_SECRET_SINK !== 'inline') seen.push(JSON.stringify(result));
      return result;
    },
    listTools: async () => (await client.listTools(undefined, { cacheMode: 'bypass' })).tools as Json[],
    stderr: () => stderr,
    close: () => client.close(),
  };
  servers.push(server);
  return server;
}

async function lastSeq(): Promise<number> {
  return (await mutations(sandbox)).at(-1)?.seq ?? 0;
}

async function operationsSince(seq: number): Promise<string[]> {
  return (await mutations(sandbox)).filter((m) => m.seq > seq).map((m) => m.operation);
}

/** The ledger's records; none while nothing has been written (the file is created on first use). */
const ledgerLines = (path: string): Json[] =>
  (existsSync(path) ? readFileSync(path, 'utf8') : '')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

function expectNowhereButLedger(secret: string, ledger: string): void {
  expect(secret.length).toBeGreaterThan(20);
  expect(readFileSync(ledger, 'utf8')).toContain(secret);
  for (const text of seen) expect(text).not.toContain(secret);
  for (const server of servers) expect(server.stderr()).not.toContain(secret);
}

beforeAll(async () => {
  sandbox = await startTestSandbox();
  key = await createKey(sandbox, { capabilities: ALL_KEY_CAPABILITIES });
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await sandbox?.close();
});

describe('file sink', () => {
  let server: CapturedServer;
  let dir: string;
  let ledger: string;
  /** Read right after start-up, before any test (in whatever order) uses the ledger. */
  let ledgerDirAfterStartup: boolean;

  beforeAll(async () => {
    dir = join(mkdtempSync(join(tmpdir(), 'b2-secret-ledger-')), 'private');
    ledger = join(dir, 'secrets.jsonl');
    server = await start({ B2_SECRET_SINK: 'file', B2_SECRET_SINK_FILE: ledger });
    await server.listTools();
    ledgerDirAfterStartup = existsSync(dir);
  });

  it('creates the ledger owner-only on first use and serves the real key and member tools; trial accounts stay a stub', async () => {
    expect(ledgerDirAfterStartup, 'start-up creates no files').toBe(false);
    const tools = new Map((await server.listTools()).map((tool) => [tool.name, tool]));
    expect(Object.keys(tools.get('b2_create_key')!.inputSchema.properties)).toEqual(
      expect.arrayContaining(['keyName', 'capabilities', 'idempotencyKey', 'confirm']),
    );
    expect(Object.keys(tools.get('b2_create_group_member')!.inputSchema.properties)).toContain('memberEmail');
    expect(Object.keys(tools.get('b2_reserve_trial_create_account')!.inputSchema.properties)).toEqual(['confirm']);
    const trial = await server.call('b2_reserve_trial_create_account', { confirm: true });
    expect(textOf(trial)).toMatch(/^B2 Error \[tool_unavailable\] \(HTTP 410\): .*file secret sink does not support trial accounts/);
  });

  it('b2_create_key: gated, then the secret goes to the ledger and the model sees everything else plus the pointer', async () => {
    const args = { keyName: 'ci-deployer', capabilities: ['listFiles', 'readFiles'], idempotencyKey: 'deploy-1' };
    const before = await lastSeq();
    expect(textOf(await server.call('b2_create_key', args))).toMatch(/^B2 Error \[destructive_confirmation_required\] \(HTTP 409\)/);
    expect(await operationsSince(before)).toEqual([]);

    const result = await server.call('b2_create_key', { ...args, confirm: true });
    expect(result.isError, textOf(result)).toBeFalsy();
    const created = result.structuredContent as Json;
    expect(created).toMatchObject({
      keyName: 'ci-deployer',
      capabilities: ['listFiles', 'readFiles'],
      applicationKey: '[redacted]',
      secretSink: { type: 'file', path: ledger },
    });
    expect(await operationsSince(before)).toEqual(['b2_create_key']);

    const secret = sandbox.store.getKey(created.applicationKeyId)!.applicationKey;
    const record = ledgerLines(ledger).find((line) => line.recordId === created.secretSink.recordId);
    expect(record).toMatchObject({
      tool: 'b2_create_key',
      recordId: created.secretSink.recordId,
      result: { applicationKeyId: created.applicationKeyId, applicationKey: secret },
    });
    expectNowhereButLedger(secret, ledger);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(ledger).mode & 0o777).toBe(0o600);
  });

  it('the same idempotency key replays without creating; other input under it is a conflict; B2 refusals free it', async () => {
    const args = { keyName: 'ci-replayer', capabilities: ['listFiles', 'readFiles'], idempotencyKey: 'replay-1', confirm: true };
    const first = await server.call('b2_create_key', args);
    expect(first.isError, textOf(first)).toBeFalsy();
    const recordId = (first.structuredContent as Json).secretSink.recordId;
    const lines = ledgerLines(ledger).length;
    const before = await lastSeq();
    const replay = await server.call('b2_create_key', args);
    expect(replay.structuredContent).toMatchObject({
      keyName: 'ci-replayer',
      applicationKey: '[redacted]',
      idempotentReplay: true,
      secretSink: { recordId },
    });
    expect(textOf(await server.call('b2_create_key', { ...args, keyName: 'other-name' }))).toMatch(
      /^B2 Error \[idempotency_key_conflict\] \(HTTP 409\)/,
    );
    const refused = { ...args, idempotencyKey: 'replay-2', bucketIds: ['no-such-bucket'] };
    expect(textOf(await server.call('b2_create_key', refused))).toMatch(/^B2 Error \[bad_bucket_id\] \(HTTP 400\)/);
    expect(await operationsSince(before)).toEqual([]);
    expect(ledgerLines(ledger)).toHaveLength(lines);
    const fixed = await server.call('b2_create_key', {
      ...refused,
      bucketIds: [sandbox.store.findBucketByName('demo-public-site')!.bucketId],
    });
    expect(fixed.isError, textOf(fixed)).toBeFalsy();
    expect(await operationsSince(before)).toEqual(['b2_create_key']);
    expect(ledgerLines(ledger)).toHaveLength(lines + 1);
    expectNowhereButLedger(ledgerLines(ledger).at(-1)!.result.applicationKey, ledger);
  });

  it('b2_create_key refuses what the key policy forbids before calling B2', async () => {
    const before = await lastSeq();
    const lines = ledgerLines(ledger).length;
    const unscoped = await server.call('b2_create_key', {
      keyName: 'wide-writer',
      capabilities: ['writeFiles'],
      idempotencyKey: 'wide-1',
      confirm: true,
    });
    expect(textOf(unscoped)).toMatch(/^B2 Error \[key_policy_violation\] \(HTTP 403\): .*must be restricted to buckets/);
    const admin = await server.call('b2_create_key', {
      keyName: 'key-admin',
      capabilities: ['writeKeys'],
      bucketIds: ['x'],
      idempotencyKey: 'admin-1',
      confirm: true,
    });
    expect(textOf(admin)).toMatch(/\[key_policy_violation\].*manage other keys/);
    expect(await operationsSince(before)).toEqual([]);
    expect(ledgerLines(ledger)).toHaveLength(lines);
  });

  it('b2_create_group_member: the member key goes to the ledger through the master key', async () => {
    const groupId = sandbox.store.listGroups()[0]!.groupId;
    const args = {
      adminAccountId: sandbox.accountId,
      groupId,
      memberEmail: 'carol@example.com',
      region: 'eu-central',
      idempotencyKey: 'carol-1',
      confirm: true,
    };
    const before = await lastSeq();
    const lines = ledgerLines(ledger).length;
    const result = await server.call('b2_create_group_member', args);
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      applicationKey: '[redacted]',
      groupMember: { email: 'carol@example.com', region: 'eu-central' },
      secretSink: { type: 'file', path: ledger },
    });
    const newMutations = (await mutations(sandbox)).filter((m) => m.seq > before);
    expect(newMutations).toMatchObject([{ operation: 'b2_create_group_member', callerKeyId: sandbox.applicationKeyId }]);
    const record = ledgerLines(ledger).at(-1)!;
    expect(record).toMatchObject({ tool: 'b2_create_group_member', result: { groupMember: { email: 'carol@example.com' } } });
    expectNowhereButLedger(record.result.applicationKey, ledger);
    // A B2 refusal (the address is taken) creates nothing and writes nothing.
    const taken = await server.call('b2_create_group_member', { ...args, idempotencyKey: 'carol-2' });
    expect(textOf(taken)).toMatch(/^B2 Error \[\w+\] \(HTTP 400\)/);
    expect(ledgerLines(ledger)).toHaveLength(lines + 1);
  });

  it('debug logging names the tool calls but never their values', async () => {
    await server.call('b2_create_key', { keyName: 'log-probe-name', capabilities: ['listFiles'], idempotencyKey: 'log-probe-key' });
    const lines = server
      .stderr()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const calls = lines.filter((line) => line.event === 'tool.call' && line.tool === 'b2_create_key');
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.at(-1).argKeys).toEqual(expect.arrayContaining(['keyName', 'idempotencyKey']));
    expect(server.stderr()).not.toMatch(/ci-deployer|deploy-1|ci-replayer|replay-1|log-probe-name|log-probe-key/);
  });
});

describe('file sink failure after creation', () => {
  it('undoes the key or the member on B2 and says so; the secret is never returned', async () => {
    const ledger = join(mkdtempSync(join(tmpdir(), 'b2-secret-broken-')), 'secrets.jsonl');
    writeFileSync(ledger, '', { mode: 0o600 }); // an existing ledger: start-up checks it and has nothing left to create
    const server = await start({ B2_SECRET_SINK: 'file', B2_SECRET_SINK_FILE: ledger });
    // After start-up the ledger is replaced by a symlink: the sink refuses to follow it.
    renameSync(ledger, `${ledger}.real`);
    symlinkSync(`${ledger}.real`, ledger);
    const keysBefore = sandbox.store.allKeys().length;

    let before = await lastSeq();
    const key = await server.call('b2_create_key', {
      keyName: 'doomed',
      capabilities: ['listFiles'],
      idempotencyKey: 'doomed-1',
      confirm: true,
    });
    expect(key.isError).toBe(true);
    expect(key.structuredContent).toBeUndefined();
    expect(textOf(key)).toMatch(
      /^B2 Error \[secret_sink_write_failed\] \(HTTP 500\): Could not store the new secret: .*symlink.* The creation was undone: the application key \w+ was deleted\.$/,
    );
    expect(await operationsSince(before)).toEqual(['b2_create_key', 'b2_delete_key']);
    expect(sandbox.store.allKeys()).toHaveLength(keysBefore);

    before = await lastSeq();
    const groupId = sandbox.store.listGroups()[0]!.groupId;
    const member = await server.call('b2_create_group_member', {
      adminAccountId: sandbox.accountId,
      groupId,
      memberEmail: 'dave@example.com',
      idempotencyKey: 'dave-1',
      confirm: true,
    });
    expect(textOf(member)).toMatch(
      /\[secret_sink_write_failed\].*The creation was undone: the group member account \w+ was ejected from the group\.$/,
    );
    expect(await operationsSince(before)).toEqual(['b2_create_group_member', 'b2_eject_group_member']);

    expect(readFileSync(`${ledger}.real`, 'utf8')).toBe('');
    const fatal = server
      .stderr()
      .split('\n')
      .filter((line) => line.includes('secret_sink.write_failed'));
    expect(fatal).toHaveLength(2);
    expect(JSON.parse(fatal[0]!)).toMatchObject({ level: 'error', tool: 'b2_create_key', recovery: 'undone' });
    // The secrets B2 minted for the undone creations appear nowhere (they were never kept).
    for (const text of [...seen, server.stderr()]) expect(text).not.toMatch(/"applicationKey":"(?!\[redacted\])/);
  });
});

describe('inline sink', () => {
  it('returns the secret once with a warning (unsanitized by opt-in), replays redacted, and serves trial accounts', async () => {
    const server = await start({ B2_SECRET_SINK: 'inline' });
    const result = await server.call('b2_create_key', {
      keyName: 'inline-key',
      capabilities: ['listFiles'],
      idempotencyKey: 'inline-1',
      confirm: true,
    });
    const created = result.structuredContent as Json;
    const secret = sandbox.store.getKey(created.applicationKeyId)!.applicationKey;
    expect(created).toMatchObject({ applicationKey: secret, warning: expect.stringMatching(/shown only once/) });
    expect(textOf(result)).toContain(secret);
    expect(server.stderr()).not.toContain(secret);

    const replay = await server.call('b2_create_key', {
      keyName: 'inline-key',
      capabilities: ['listFiles'],
      idempotencyKey: 'inline-1',
      confirm: true,
    });
    expect(replay.structuredContent).toMatchObject({
      applicationKeyId: created.applicationKeyId,
      applicationKey: '[redacted]',
      idempotentReplay: true,
    });
    expect(JSON.stringify(replay)).not.toContain(secret);

    const before = await lastSeq();
    const trial = await server.call('b2_reserve_trial_create_account', {
      email: 'trial@example.com',
      term: 14,
      storage: 2,
      idempotencyKey: 'trial-1',
      confirm: true,
    });
    expect(trial.isError, textOf(trial)).toBeFalsy();
    expect(trial.structuredContent).toMatchObject({
      email: 'trial@example.com',
      applicationKey: expect.stringMatching(/^(?!\[redacted\]).{20,}/),
      warning: expect.any(String),
    });
    expect(await operationsSince(before)).toEqual(['b2_reserve_trial_create_account']);
    expect(server.stderr()).not.toContain((trial.structuredContent as Json).applicationKey);
  });
});

describe('sink start-up', () => {
  it('the implicit stdio default degrades to stubs that say why when ~/.b2-mcp cannot be used', async () => {
    const home = mkdtempSync(join(tmpdir(), 'b2-secret-home-'));
    writeFileSync(join(home, '.b2-mcp'), 'not a directory');
    const server = await start({ HOME: home });
    const result = await server.call('b2_create_key', { confirm: true });
    expect(textOf(result)).toMatch(
      /^B2 Error \[tool_unavailable\] \(HTTP 410\): b2_create_key is unavailable: the default secret ledger cannot be used: .*\.b2-mcp/,
    );
    expect(server.stderr()).toMatch(/"event":"secret_sink.unavailable"/);
  });

  it('the stdio default ~/.b2-mcp/secrets.jsonl serves the real tools, and starting creates no file', async () => {
    const home = mkdtempSync(join(tmpdir(), 'b2-secret-home-'));
    const server = await start({ HOME: home });
    expect(Object.keys((await server.listTools()).find((t) => t.name === 'b2_create_key')!.inputSchema.properties)).toContain('keyName');
    expect(readdirSync(home)).toEqual([]);
  });

  it('an explicit file sink that cannot be used stops start-up with one clear line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'b2-secret-bad-'));
    mkdirSync(join(dir, 'shared'), { mode: 0o755 });
    const path = join(dir, 'shared', 'secrets.jsonl');
    const run = spawnSync(process.execPath, [SERVER_BIN, 'stdio'], {
      env: env({ B2_SECRET_SINK: 'file', B2_SECRET_SINK_FILE: path }),
      input: '',
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/B2_SECRET_SINK=file: Directory .*shared is readable or writable by group or others/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(() => statSync(path)).toThrow();
  });
});
