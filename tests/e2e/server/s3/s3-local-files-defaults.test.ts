/**
 * Local files under the defaults a desktop client gets (stdio, local files on, no B2_FILE_ROOT),
 * driven through the official MCP clients against the sandbox, and over HTTP:
 * - a steered model saving an attacker's object where Python, launchd or a shell would run it;
 * - a steered model uploading the client's own configuration, which holds this server's key.
 * Each is refused before any byte moves, with a message that names B2_FILE_ROOT and never the key.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { RunningSandbox } from '../../../../src/sandbox/index.js';
import {
  ALL_KEY_CAPABILITIES,
  connectToSandbox,
  createKey,
  startTestSandbox,
  textOf,
  type SandboxKey,
} from '../../../support/sandbox-harness.js';
import { connectHttp, startHttpServer, type Connected } from '../../../support/server-harness.js';
import { lastRequestSeq, requestsSince } from '../../../support/s3.js';

const BUCKET = 'demo-private-assets';
const PAYLOAD = 'import os; os.system("touch /tmp/b2-mcp-pwned")\n';

let sandbox: RunningSandbox;
let key: SandboxKey;
let home: string;
let client: Connected;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  key = await createKey(sandbox, { capabilities: ALL_KEY_CAPABILITIES });
  home = mkdtempSync(join(tmpdir(), 'lf-home-'));
  // The desktop default: no B2_FILE_ROOT, local files on; HOME is where the default folder goes.
  client = await connectToSandbox(sandbox, key, { env: { HOME: home, B2_MCP_PROFILE: 'full' } });
  const put = await client.callTool('s3_put_object', {
    bucket: BUCKET,
    key: 'attacker/zz.pth',
    content: Buffer.from(PAYLOAD).toString('base64'),
  });
  expect(put.isError, textOf(put)).toBeFalsy();
});
afterAll(async () => {
  await client?.close();
  await sandbox?.close();
  rmSync(home, { recursive: true, force: true });
});

const root = () => join(home, 'b2-mcp-files');

/** A refused call: 403 local_file_refused, the text checked by `expectText`. */
async function refused(name: string, args: Record<string, unknown>, connection = client): Promise<string> {
  const result = await connection.callTool(name, args);
  const text = textOf(result);
  expect(result.isError, text).toBe(true);
  expect(text, text).toMatch(/^B2 Error \[local_file_refused\] \(HTTP 403\): /);
  return text;
}

describe('saveToPath never plants a file that something loads or runs by itself', () => {
  test('outside the default folder (a venv, LaunchAgents, a bin on PATH) every save is refused, naming B2_FILE_ROOT, before anything is downloaded', async () => {
    const before = await lastRequestSeq(sandbox);
    const targets = [
      join(home, 'venv', 'lib', 'python3.11', 'site-packages', 'zz.pth'),
      join(home, 'miniconda3', 'lib', 'python3.11', 'site-packages', 'sitecustomize.py'),
      join(home, 'Library', 'LaunchAgents', 'com.example.agent.plist'),
      join(home, 'bin', 'ls'),
      join(home, 'notes.txt'),
    ];
    for (const saveToPath of targets) {
      const text = await refused('s3_get_object', { bucket: BUCKET, key: 'attacker/zz.pth', saveToPath });
      expect(text, saveToPath).toContain('B2_FILE_ROOT');
      expect(text, saveToPath).toContain(root());
      expect(existsSync(saveToPath), saveToPath).toBe(false);
    }
    expect((await requestsSince(sandbox, before)).filter((r) => r.operation === 'GetObject')).toEqual([]);
    expect(readdirSync(home).sort()).toEqual(['b2-mcp-files']);
  });

  test('inside the folder, what Python, a shell, the desktop or ssh would load is refused too', async () => {
    for (const saveToPath of [
      'venv/lib/python3.11/site-packages/zz.pth',
      'zz.pth',
      'sitecustomize.py',
      '.bashrc',
      'autostart/x.desktop',
      '.ssh/authorized_keys',
      'node_modules/x/index.js',
      'bin/tool',
    ]) {
      const text = await refused('s3_get_object', { bucket: BUCKET, key: 'attacker/zz.pth', saveToPath });
      expect(text, saveToPath).toContain('never saves a file that something loads or runs by itself');
    }
    expect(readdirSync(root())).toEqual([]);
  });

  test('a plain save lands in the owner-only default folder, owner-only and not executable', async () => {
    const result = await client.callTool('s3_get_object', { bucket: BUCKET, key: 'attacker/zz.pth', saveToPath: 'downloads/zz.txt' });
    expect(result.isError, textOf(result)).toBeFalsy();
    const saved = join(root(), 'downloads', 'zz.txt');
    expect(textOf(result)).toContain(saved);
    expect(statSync(saved).mode & 0o777).toBe(0o600);
    expect(statSync(root()).mode & 0o777).toBe(0o700);
    rmSync(join(root(), 'downloads'), { recursive: true });
  });
});

describe("filePath never uploads the client configuration that holds this server's key", () => {
  const config = () =>
    JSON.stringify(
      {
        mcpServers: {
          b2: { command: 'b2-mcp', env: { B2_APPLICATION_KEY_ID: key.applicationKeyId, B2_APPLICATION_KEY: key.applicationKey } },
        },
      },
      null,
      2,
    );

  beforeEach(() => {
    for (const dir of [join(home, 'Library', 'Application Support', 'Claude'), join(home, 'AppData', 'Roaming', 'Claude'), root()])
      mkdirSync(dir, { recursive: true });
  });

  test('where the clients keep it (Application Support, AppData), under its own name in the folder, or copied under another name in any encoding: refused, the key never shown, nothing sent', async () => {
    writeFileSync(join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json'), config());
    writeFileSync(join(home, 'AppData', 'Roaming', 'Claude', 'claude_desktop_config.json'), config());
    writeFileSync(join(root(), 'claude_desktop_config.json'), '{"mcpServers":{}}');
    writeFileSync(join(root(), 'mcp.json'), '{"servers":{}}');
    writeFileSync(join(root(), 'backup.txt'), config());
    writeFileSync(join(root(), 'backup-utf16.txt'), Buffer.from(config(), 'utf16le'));
    writeFileSync(join(root(), 'key-id-only.txt'), `my key id is ${key.applicationKeyId}\n`);
    const before = await lastRequestSeq(sandbox);
    const outside = [
      join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json'),
      join(home, 'AppData', 'Roaming', 'Claude', 'claude_desktop_config.json'),
    ];
    for (const filePath of outside)
      expect(await refused('s3_put_object', { bucket: BUCKET, key: 'leak.json', filePath }), filePath).toContain('B2_FILE_ROOT');
    for (const filePath of ['claude_desktop_config.json', 'mcp.json']) {
      expect(await refused('s3_put_object', { bucket: BUCKET, key: 'leak.json', filePath }), filePath).toContain(
        "MCP client's configuration file",
      );
    }
    for (const filePath of ['backup.txt', 'backup-utf16.txt', 'key-id-only.txt']) {
      const text = await refused('s3_put_object', { bucket: BUCKET, key: 'leak.json', filePath });
      expect(text, filePath).toContain("holds this server's B2 key");
      expect(text).not.toContain(key.applicationKey);
      expect(text).not.toContain(key.applicationKeyId);
    }
    expect((await requestsSince(sandbox, before)).filter((r) => r.operation === 'PutObject')).toEqual([]);

    writeFileSync(join(root(), 'report.txt'), 'quarterly numbers');
    const uploaded = await client.callTool('s3_put_object', { bucket: BUCKET, key: 'report.txt', filePath: 'report.txt' });
    expect(uploaded.isError, textOf(uploaded)).toBeFalsy();
  });

  test('a file holding the secret of a key this server created (kept in its ledger) is refused', async () => {
    const ledger = join(home, '.b2-mcp', 'secrets.jsonl');
    const withLedger = await connectToSandbox(sandbox, key, { env: { HOME: home, B2_MCP_PROFILE: 'full', B2_SECRET_SINK: 'file' } });
    try {
      const created = await withLedger.callTool('b2_create_key', {
        keyName: 'reader',
        capabilities: ['listFiles', 'readFiles'],
        idempotencyKey: 'reader-1',
        confirm: true,
      });
      expect(created.isError, textOf(created)).toBeFalsy();
      const record = JSON.parse(readFileSync(ledger, 'utf8').trim().split('\n').at(-1)!) as { result: { applicationKey: string } };
      const secret = record.result.applicationKey;
      writeFileSync(join(root(), 'reader-key.txt'), `export B2_APPLICATION_KEY=${secret}\n`);
      const before = await lastRequestSeq(sandbox);
      const text = await refused('s3_put_object', { bucket: BUCKET, key: 'leak.txt', filePath: 'reader-key.txt' }, withLedger);
      expect(text).toContain("holds this server's B2 key or another secret");
      expect(text).not.toContain(secret);
      expect((await requestsSince(sandbox, before)).filter((r) => r.operation === 'PutObject')).toEqual([]);
    } finally {
      await withLedger.close();
    }
  });

  test("over HTTP in headers mode, a file holding the calling credential's own key is refused", async () => {
    const fileRoot = mkdtempSync(join(tmpdir(), 'lf-http-root-'));
    const http = await startHttpServer({
      PATH: process.env.PATH ?? '',
      HOME: home,
      B2_API_URL: sandbox.apiUrl,
      B2_HTTP_CREDENTIAL_MODE: 'headers',
      B2_MCP_PROFILE: 'full',
      B2_SECRET_SINK: 'off',
      B2_ALLOW_LOCAL_FILES: 'true',
      B2_FILE_ROOT: fileRoot,
    });
    const tenant = await createKey(sandbox, { capabilities: ALL_KEY_CAPABILITIES });
    const connection = await connectHttp('modern', http.url, {
      headers: { 'x-b2-mcp-key-id': tenant.applicationKeyId, 'x-b2-mcp-key': tenant.applicationKey },
    });
    try {
      writeFileSync(join(fileRoot, 'env.txt'), `B2_APPLICATION_KEY=${tenant.applicationKey}\n`);
      const before = await lastRequestSeq(sandbox);
      const text = await refused('s3_put_object', { bucket: BUCKET, key: 'leak.txt', filePath: 'env.txt' }, connection);
      expect(text).toContain("holds this server's B2 key");
      expect(text).not.toContain(tenant.applicationKey);
      expect((await requestsSince(sandbox, before)).filter((r) => r.operation === 'PutObject')).toEqual([]);
    } finally {
      await connection.close();
      await http.stop();
      rmSync(fileRoot, { recursive: true, force: true });
    }
  });
});
