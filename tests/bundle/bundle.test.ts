import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundle, MANIFEST, mcpb } from '../../scripts/build-mcpb.js';
import { missingTools, REGISTRY_TOOLS } from '../../scripts/registry-tools.js';
import { packageRoot, packageVersion } from '../../src/server/package-info.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { createKey, startTestSandbox, type SandboxKey } from '../support/sandbox-harness.js';

/**
 * The MCP Bundle `npm run bundle` builds: its manifest validates, and the server started from the
 * unpacked bundle as a desktop client would (the manifest's command, arguments and environment,
 * the user's answers filled in) answers tools/list over stdio.
 */

interface Manifest {
  version: string;
  server: { entry_point: string; mcp_config: { command: string; args: string[]; env: Record<string, string> } };
  user_config: Record<string, { type: string; required?: boolean; sensitive?: boolean; default?: string }>;
}

const missing = missingTools(['mcpb']);
if (missing.length > 0)
  console.warn(`MCP Bundle suite skipped: ${REGISTRY_TOOLS.mcpb.package} not installed (node dist/scripts/registry-tools.js mcpb)`);

/** `${user_config.x}`, `${__dirname}` and `${HOME}` as a desktop client substitutes them. */
function substitute(value: string, values: Record<string, string>, dir: string, home: string): string {
  return value
    .replace(/\$\{user_config\.([a-z_]+)\}/g, (_, name: string) => values[name] ?? '')
    .replaceAll('${__dirname}', dir)
    .replaceAll('${HOME}', home);
}

/** Sends JSON-RPC lines to `child` and resolves each answer by id. */
function lineClient(child: ReturnType<typeof spawn>): (message: Record<string, unknown>) => Promise<Record<string, unknown>> {
  const waiting = new Map<unknown, (answer: Record<string, unknown>) => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const answer = JSON.parse(line) as Record<string, unknown>;
    waiting.get(answer.id)?.(answer);
  });
  return (message) =>
    new Promise((resolve) => {
      waiting.set(message.id, resolve);
      child.stdin!.write(`${JSON.stringify(message)}\n`);
    });
}

describe.skipIf(missing.length > 0)(`the MCP Bundle (${REGISTRY_TOOLS.mcpb.package} ${REGISTRY_TOOLS.mcpb.version})`, () => {
  const scratch = mkdtempSync(join(tmpdir(), 'b2-mcp-bundle-'));
  const bundle = join(scratch, 'b2-mcp.mcpb');
  const unpacked = join(scratch, 'unpacked');
  let sandbox: RunningSandbox;
  let key: SandboxKey;

  beforeAll(async () => {
    buildBundle(bundle);
    mcpb(['unpack', bundle, unpacked]);
    sandbox = await startTestSandbox();
    key = await createKey(sandbox, { capabilities: ['listBuckets', 'listFiles', 'readFiles'] });
  }, 240_000);
  afterAll(async () => {
    await sandbox?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('validates, carries the package version, and asks for the key id, the key (sensitive), the profile and the file root', () => {
    expect(() => mcpb(['validate', join(unpacked, 'manifest.json')])).not.toThrow();
    const manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8')) as Manifest;
    expect(manifest).toEqual(JSON.parse(readFileSync(MANIFEST, 'utf8')));
    expect(manifest.version).toBe(packageVersion());
    const config = manifest.user_config;
    expect(Object.keys(config).sort()).toEqual(['application_key', 'application_key_id', 'file_root', 'profile']);
    expect([config.application_key!.sensitive, config.application_key!.required, config.application_key_id!.required]).toEqual([
      true,
      true,
      true,
    ]);
    expect(config.application_key_id!.sensitive).toBeUndefined();
    expect([config.file_root!.type, config.file_root!.default]).toEqual(['directory', '${HOME}/b2-mcp-files']);
    expect(manifest.server.mcp_config.env).toEqual({
      B2_APPLICATION_KEY_ID: '${user_config.application_key_id}',
      B2_APPLICATION_KEY: '${user_config.application_key}',
      B2_MCP_PROFILE: '${user_config.profile}',
      B2_FILE_ROOT: '${user_config.file_root}',
    });
    expect(existsSync(join(unpacked, manifest.server.entry_point))).toBe(true);
    expect(existsSync(join(unpacked, 'node_modules', '@modelcontextprotocol', 'server'))).toBe(true);
  });

  it('starts the server from the unpacked bundle as a client would; tools/list lists what the key may do', async () => {
    const manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8')) as Manifest;
    const home = join(scratch, 'home');
    const answers = {
      application_key_id: key.applicationKeyId,
      application_key: key.applicationKey,
      profile: '',
      file_root: '${HOME}/b2-mcp-files',
    };
    const filled = Object.fromEntries(Object.entries(answers).map(([name, value]) => [name, substitute(value, {}, unpacked, home)]));
    const { command, args, env } = manifest.server.mcp_config;
    const child = spawn(
      command === 'node' ? process.execPath : command,
      args.map((arg) => substitute(arg, filled, unpacked, home)),
      {
        // Run from elsewhere: the bundle must not lean on this checkout.
        cwd: scratch,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          B2_API_URL: sandbox.apiUrl,
          LOG_LEVEL: 'silent',
          ...Object.fromEntries(Object.entries(env).map(([name, value]) => [name, substitute(value, filled, unpacked, home)])),
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    try {
      const send = lineClient(child);
      const initialized = await send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bundle-test', version: '1' } },
      });
      expect((initialized.result as { serverInfo: { version: string } }).serverInfo.version).toBe(packageVersion());
      child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      const listed = await send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const names = (listed.result as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
      expect(names).toContain('b2_list_buckets');
      expect(names).not.toContain('b2_delete_bucket');
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('is what `npm run bundle` writes at the project root, which git ignores', () => {
    expect(readFileSync(join(packageRoot(), '.gitignore'), 'utf8').split('\n')).toContain('b2-mcp.mcpb');
  });
});
