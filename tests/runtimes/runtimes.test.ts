import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingTools, REGISTRY_TOOLS } from '../../scripts/registry-tools.js';
import { packageRoot } from '../../src/server/package-info.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { describeGuardSuites, GUARD_SUITES, targetAt, type GuardTarget } from '../support/http-guard-support.js';
import { JSON_HEADERS, legacyInitialize, modernMessage, standardHeaders } from '../support/http-client.js';
import { ALL_KEY_CAPABILITIES, createKey, sandboxCredentials, startTestSandbox } from '../support/sandbox-harness.js';
import { serverEnv } from '../support/server-harness.js';
import { RUNTIMES, runtimeTarget, type Runtime } from './runtime-targets.js';

/**
 * The fetch handler on real runtimes: the guard table `b2-mcp http` and the in-process handler
 * pass (tests/support/http-guard-support.ts), then initialize, tools/list and a read tool against
 * the sandbox (in Node, on loopback; the runtime reaches it through B2_API_URL).
 */

/** Guard cases a runtime cannot pass, each with the reason (docs/deploy.md repeats them). */
const LEFT_OUT: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'workerd (miniflare)': {
    'asks to close the connection after refusing a body over 1 MiB (Connection: close)':
      'workerd owns the connection and drops a Worker’s Connection header (hop-by-hop)',
  },
};

const versionOf = (runtime: Runtime): string =>
  runtime.tools.map((tool) => `${REGISTRY_TOOLS[tool].package} ${REGISTRY_TOOLS[tool].version}`).join(', ');

for (const runtime of RUNTIMES) {
  const missing = missingTools(runtime.tools);
  if (missing.length > 0)
    console.warn(
      `${runtime.name} skipped: ${missing.join(', ')} not installed (node dist/scripts/registry-tools.js ${runtime.tools.join(' ')})`,
    );

  describe.skipIf(missing.length > 0)(`${runtime.name} (${versionOf(runtime)})`, () => {
    beforeAll(() => runtime.prepare(), 120_000);

    describe('the HTTP guard cases', () => {
      describeGuardSuites(runtimeTarget(runtime), LEFT_OUT[runtime.name]);
    });

    describe('against the sandbox', () => {
      let sandbox: RunningSandbox;
      let target: GuardTarget;
      const post = (message: Record<string, unknown>, headers: Record<string, string> = {}) =>
        target.send({ headers: { ...JSON_HEADERS, ...standardHeaders(message), ...headers }, body: JSON.stringify(message) });

      beforeAll(async () => {
        sandbox = await startTestSandbox();
        const key = await createKey(sandbox, { capabilities: ALL_KEY_CAPABILITIES });
        const served = await runtime.listen(
          serverEnv({ ...sandboxCredentials(sandbox, key), B2_HTTP_CREDENTIAL_MODE: 'server', B2_MCP_PROFILE: 'read-only' }),
        );
        target = targetAt(served.url, served.stop);
      });
      afterAll(async () => {
        await target?.stop();
        await sandbox?.close();
      });

      it('opens a 2025-era session with initialize', async () => {
        const opened = await post(legacyInitialize());
        expect([opened.status, opened.header('mcp-session-id')]).toEqual([200, expect.stringMatching(/^[0-9a-f-]{36}$/)]);
        expect(opened.text).toMatch(/"protocolVersion":"2025-06-18"/);
      });

      it('lists the read-only profile’s 20 tools (2026-07-28)', async () => {
        const listed = await post(modernMessage('tools/list'));
        expect(listed.status).toBe(200);
        expect((listed.json() as { result: { tools: unknown[] } }).result.tools).toHaveLength(20);
      });

      it('calls b2_list_buckets and gets the sandbox’s buckets', async () => {
        const called = await post(modernMessage('tools/call', { name: 'b2_list_buckets', arguments: {} }));
        expect(called.status).toBe(200);
        const result = (called.json() as { result: { isError?: boolean; structuredContent: { buckets: Array<{ bucketName: string }> } } })
          .result;
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent.buckets.length).toBeGreaterThan(0);
      });
    });
  });
}

describe('docs/deploy.md', () => {
  it('says what was run: the runtimes and their versions, and how many guard cases in how many settings', () => {
    const doc = readFileSync(join(packageRoot(), 'docs', 'deploy.md'), 'utf8').replace(/\s+/g, ' ');
    for (const tool of RUNTIMES.flatMap((runtime) => runtime.tools))
      expect(doc).toContain(`\`${REGISTRY_TOOLS[tool].package}\` ${REGISTRY_TOOLS[tool].version}`);
    expect(doc).toContain(`${GUARD_SUITES.flatMap((suite) => suite.cases).length} cases in ${GUARD_SUITES.length} settings`);
  });
});
