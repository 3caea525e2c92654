import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { PROFILE_NAMES } from '../../../../src/contract/constants.js';
import { BUNDLED } from '../../../../src/conformance/package-root.js';
import { checkServer } from '../../../../src/conformance/commands/check.js';
import { bundledEnvironment } from '../../../../src/conformance/connect/bundled.js';
import { httpTarget, stdioTarget } from '../../../../src/conformance/connect/target.js';
import { connectionSettings } from '../../../../src/conformance/api.js';

/**
 * The shipped server against the shipped contract: the embedded default of `check` (no
 * --server, no --url) must pass for every profile, in both eras and for the 1.x witness, and so
 * must the same server over stdio, its default transport.
 */
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill();
});

test('the server is built (npm test builds it first)', () => {
  expect(existsSync(BUNDLED.serverEntry), `${BUNDLED.serverEntry} missing: run npm run build`).toBe(true);
});

test('each bin bundle keeps only the English messages of Zod (the locales nothing selects are left out)', () => {
  const chunks = join(dirname(BUNDLED.serverEntry), 'chunks');
  for (const bin of ['b2-mcp', 'b2-mcp-conform']) {
    const code = readdirSync(join(chunks, bin))
      .map((name) => readFileSync(join(chunks, bin, name), 'utf8'))
      .join('\n');
    const locales = [...new Set([...code.matchAll(/^\/\/ node_modules\/zod\/v4\/locales\/([\w-]+)\.js$/gm)].map((match) => match[1]))];
    expect(locales, bin).toEqual(['en']);
  }
});

function expectConforming(result: Awaited<ReturnType<typeof checkServer>>): void {
  const errors = result.findings.filter((finding) => finding.severity === 'error');
  expect(errors.map((finding) => `${finding.ruleId} ${finding.tool ?? ''}: ${finding.message}`)).toEqual([]);
  expect(Object.keys(result.evidence.connections).sort()).toEqual(['legacy', 'modern', 'witness']);
  for (const comparison of Object.values(result.evidence.hashes)) expect(comparison.drift).toEqual({ status: 'match' });
  expect(result.evidence.connections.modern?.serverInfo?.name).toBe('backblaze-b2');
  expect(result.evidence.connections.modern?.protocolVersion).toBe('2026-07-28');
  // The only warning allowed is the reviewed webhook signing secret (docs/contract.md §8.4).
  for (const warning of result.findings.filter((finding) => finding.severity !== 'error')) {
    expect(`${warning.ruleId} ${warning.tool}`).toBe('credentials/secret-like-nested b2_set_bucket_notification_rules');
  }
}

describe.concurrent('check passes on the bundled b2-mcp (the embedded default: one loopback HTTP server)', () => {
  for (const profile of PROFILE_NAMES) {
    test(`profile ${profile}, both eras and the witness`, async () => {
      const result = await checkServer({ profile, target: null, era: 'both', connection: connectionSettings({ timeoutMs: 20_000 }) });
      expectConforming(result);
      expect(result.evidence.target).toEqual({
        transport: 'streamable-http',
        server: 'b2-mcp (bundled, loopback)',
        env: ['B2_HTTP_CREDENTIAL_MODE', 'B2_MCP_PROFILE', 'B2_SECRET_SINK'],
      });
    });
  }
});

describe.concurrent('check passes on the same server over stdio (one process per connection)', () => {
  for (const profile of PROFILE_NAMES) {
    test(`profile ${profile}, both eras and the witness`, async () => {
      const target = stdioTarget(`"${process.execPath}" "${BUNDLED.serverEntry}" stdio`, { ...bundledEnvironment(profile) });
      expectConforming(await checkServer({ profile, target, era: 'both', connection: connectionSettings({ timeoutMs: 20_000 }) }));
    });
  }
});

test('check passes on a server in the default headers credential mode, without leaking the headers', async () => {
  const child = spawn(process.execPath, [BUNDLED.serverEntry, 'http', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', B2_MCP_PROFILE: 'default', B2_SECRET_SINK: 'off' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  const url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  // Any key pair lets tools/list through; nothing is called on B2.
  const target = httpTarget(url, { 'x-b2-mcp-key-id': 'conform-key-id', 'x-b2-mcp-key': 'conform-key-secret' });
  const result = await checkServer({ profile: 'default', target, era: 'both', connection: connectionSettings({ timeoutMs: 20_000 }) });
  expectConforming(result);
  expect(JSON.stringify(result)).not.toContain('conform-key-secret');
});
