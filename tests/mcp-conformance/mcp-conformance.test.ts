import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { missingTools, REGISTRY_TOOLS, toolBinary } from '../../scripts/registry-tools.js';
import { ALL_KEY_CAPABILITIES, createKey, sandboxCredentials, startTestSandbox, type SandboxKey } from '../support/sandbox-harness.js';
import { serverEnv, startHttpServer, type HttpServer } from '../support/server-harness.js';
import { startCredentialProxy, type CredentialProxy } from './credential-proxy.js';

/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
 * scripts/registry-tools.ts, run by a Node 22 binary from the registry) against `b2-mcp http` on
 * loopback, backed by the sandbox, in both credential modes. scenarios.json says which scenarios
 * pass whole, which pass but for named checks, and which are left out and why.
 */

interface Scenarios {
  passes: string[];
  partly: Record<string, Record<string, string>>;
  leftOut: Record<string, string>;
}

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
}

const SCENARIOS = JSON.parse(readFileSync(join(import.meta.dirname, 'scenarios.json'), 'utf8')) as Scenarios;
const NEEDED = ['node22', 'conformance'] as const;
const missing = missingTools(NEEDED);
if (missing.length > 0)
  console.warn(
    `official MCP conformance suite skipped: ${missing.join(', ')} not installed (node dist/scripts/registry-tools.js ${NEEDED.join(' ')})`,
  );

/** Runs every scenario of the suite against `url`; the checks of each, by scenario name. */
async function runSuite(url: URL): Promise<Map<string, Check[]>> {
  const out = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  try {
    const child = spawn(
      toolBinary('node22'),
      [toolBinary('conformance'), 'server', '--url', url.href, '--suite', 'all', '--output-dir', out],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // The suite exits non-zero when any check fails; the checks themselves are judged below.
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    const results = new Map<string, Check[]>();
    for (const entry of readdirSync(out)) {
      const scenario = entry.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
      results.set(scenario, JSON.parse(readFileSync(join(out, entry, 'checks.json'), 'utf8')) as Check[]);
    }
    if (results.size === 0) throw new Error(`the suite wrote no results (exit ${code}): ${stderr.slice(0, 2_000)}`);
    return results;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const failures = (checks: Check[]): string[] => checks.filter((check) => check.status === 'FAILURE').map((check) => check.id);
const described = (checks: Check[]): string[] =>
  checks.filter((check) => check.status === 'FAILURE').map((check) => `${check.id}: ${check.errorMessage ?? ''}`);

describe.skipIf(missing.length > 0)(
  `official MCP conformance suite ${REGISTRY_TOOLS.conformance.version} under Node ${REGISTRY_TOOLS.node22.version}`,
  () => {
    let sandbox: RunningSandbox;
    let key: SandboxKey;
    const servers: HttpServer[] = [];
    let proxy: CredentialProxy | undefined;
    const runs = new Map<string, Map<string, Check[]>>();

    beforeAll(async () => {
      sandbox = await startTestSandbox();
      key = await createKey(sandbox, { capabilities: ALL_KEY_CAPABILITIES });
      const credentials = sandboxCredentials(sandbox, key);
      // The suite sends every scenario from one address as fast as it can: the rate limit (tested on its own) stays out of its way.
      const unlimited = { B2_MCP_RATE_LIMIT_RPS: '100000', B2_MCP_RATE_LIMIT_BURST: '100000' };
      const serverMode = await startHttpServer(serverEnv({ ...credentials, ...unlimited, B2_HTTP_CREDENTIAL_MODE: 'server' }));
      servers.push(serverMode);
      const headersMode = await startHttpServer(
        serverEnv({ ...unlimited, B2_API_URL: sandbox.apiUrl, B2_HTTP_CREDENTIAL_MODE: 'headers' }),
      );
      servers.push(headersMode);
      proxy = await startCredentialProxy(headersMode.url, { 'x-b2-mcp-key-id': key.applicationKeyId, 'x-b2-mcp-key': key.applicationKey });
      const [server, headers] = await Promise.all([runSuite(serverMode.url), runSuite(proxy.url)]);
      runs.set('server', server).set('headers', headers);
    });

    afterAll(async () => {
      await proxy?.close();
      await Promise.all(servers.map((server) => server.stop()));
      await sandbox?.close();
    });

    describe.each(['server', 'headers'])('%s credential mode', (mode) => {
      it('every scenario the suite ran is listed as passing, partly passing or left out, and every listed one ran', () => {
        const listed = [...SCENARIOS.passes, ...Object.keys(SCENARIOS.partly), ...Object.keys(SCENARIOS.leftOut)];
        expect(new Set(listed).size).toBe(listed.length);
        expect([...runs.get(mode)!.keys()].sort()).toEqual(listed.sort());
      });

      it.each(SCENARIOS.passes)('%s passes: no check fails', (scenario) => {
        const checks = runs.get(mode)!.get(scenario)!;
        expect(described(checks)).toEqual([]);
        expect(checks.some((check) => check.status === 'SUCCESS')).toBe(true);
      });

      it.each(Object.entries(SCENARIOS.partly))('%s passes but for the checks left out', (scenario, leftOut) => {
        const checks = runs.get(mode)!.get(scenario)!;
        expect(failures(checks).sort()).toEqual(Object.keys(leftOut).sort());
        expect(checks.some((check) => check.status === 'SUCCESS')).toBe(true);
      });
    });
  },
);

describe('docs/mcp-conformance.md', () => {
  it('names every scenario and every check left out, with the pinned versions', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'mcp-conformance.md'), 'utf8');
    const named = [
      ...SCENARIOS.passes,
      ...Object.keys(SCENARIOS.leftOut),
      ...Object.values(SCENARIOS.partly).flatMap((checks) => Object.keys(checks)),
    ];
    expect(named.filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
    expect(doc).toContain(`${REGISTRY_TOOLS.conformance.package}\` ${REGISTRY_TOOLS.conformance.version}`);
    expect(doc).toContain(`\`${REGISTRY_TOOLS.node22.package}\` ${REGISTRY_TOOLS.node22.version}`);
  });
});
