/**
 * What README.md and the configuration table promise about starting b2-mcp: unknown commands
 * are named as such (exit 2), an unknown B2_MCP_TRANSPORT is a configuration error (exit 1), and
 * HTTP in headers credential mode starts without a process key and serves the key each request
 * brings; starting creates no files (the secret ledger appears on first use only).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/index.js';
import { createKey, startTestSandbox } from '../../support/sandbox-harness.js';
import { connectHttp, connectStdio, SERVER_BIN, serverEnv, startHttpServer, type HttpServer } from '../../support/server-harness.js';

const run = (args: string[], extra: Record<string, string> = {}) =>
  spawnSync(process.execPath, [SERVER_BIN, ...args], {
    env: serverEnv({ B2_MCP_PROFILE: 'default', ...extra }),
    encoding: 'utf8',
    input: '',
    timeout: 10_000,
  });

describe('b2-mcp start-up', () => {
  it.each(['help', 'serve', 'ws'])('"b2-mcp %s" says unknown command and exits 2', (command) => {
    const result = run([command]);
    expect(result.status).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(`b2-mcp: unknown command "${command}" (expected stdio, http or sandbox)`);
  });

  it('B2_MCP_TRANSPORT=ws is a configuration error: one line, exit 1', () => {
    const result = run([], { B2_MCP_TRANSPORT: 'ws' });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe('b2-mcp: configuration error: B2_MCP_TRANSPORT must be one of stdio, http (got "ws").\n');
    expect(result.stdout).toBe('');
  });

  it('stdio without a key or a pinned profile still refuses to start (exit 1)', () => {
    const result = spawnSync(process.execPath, [SERVER_BIN, 'stdio'], { env: serverEnv(), encoding: 'utf8', input: '', timeout: 10_000 });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/Set B2_APPLICATION_KEY_ID and B2_APPLICATION_KEY/);
  });
});

it('starting b2-mcp on stdio with the default file sink creates no files', async () => {
  const home = mkdtempSync(join(tmpdir(), 'b2-mcp-home-'));
  const { B2_SECRET_SINK: _off, ...env } = serverEnv({ HOME: home, B2_MCP_PROFILE: 'default' });
  const client = await connectStdio('legacy', env);
  try {
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('b2_list_buckets');
    expect(readdirSync(home)).toEqual([]);
  } finally {
    await client.close();
  }
});

describe('HTTP in headers credential mode, no process key', () => {
  let sandbox: RunningSandbox;
  let server: HttpServer;
  beforeAll(async () => {
    sandbox = await startTestSandbox();
    server = await startHttpServer({ ...serverEnv({ B2_API_URL: sandbox.apiUrl }), B2_HTTP_CREDENTIAL_MODE: 'headers' });
  });
  afterAll(async () => {
    await server?.stop();
    await sandbox?.close();
  });

  it('starts, and serves the surface of the key each request brings', async () => {
    const key = await createKey(sandbox, { capabilities: ['listBuckets', 'listFiles', 'readFiles'] });
    const client = await connectHttp('modern', server.url, {
      headers: { 'x-b2-mcp-key-id': key.applicationKeyId, 'x-b2-mcp-key': key.applicationKey },
    });
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('b2_list_buckets');
      expect(names).not.toContain('b2_delete_bucket');
      const buckets = await client.callTool('b2_list_buckets', {});
      expect(buckets.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
