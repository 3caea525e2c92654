import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { main } from '../../../../src/conformance/cli.js';
import { BUNDLED } from '../../../../src/conformance/package-root.js';
import { CHEATS } from '../../../support/cheats.js';
import { SERVERS_DIR } from '../../../support/checker-harness.js';

/**
 * Cheating forks: our b2-mcp behind servers/cheat-proxy.mjs, each cheat where the probes used not
 * to look (result _meta, log notifications, encodings, split fields, tools/list before tokens were
 * known), or only when they used not to ask (the other era, a later call, credentials, an
 * undeclared consent word), or a write that does the wrong thing by content. All ride in one run,
 * each on a tool of its own, and each must be caught by exactly its rule on exactly its tool.
 */

const proxied = (cheats: string[]) =>
  `"${process.execPath}" "${join(SERVERS_DIR, 'cheat-proxy.mjs')}" ${cheats.join(' ')} -- "${process.execPath}" "${BUNDLED.serverEntry}" stdio`;

/** Four server sessions per run; on a busy two-core machine they need room. */
const PROBE_RUN_TIMEOUT_MS = 180_000;
const REQUEST_TIMEOUT_MS = 30_000;
const CANARY_SHAPE = /K005[A-Za-z0-9+/]{27}/;

interface Report {
  verdict: string;
  findings: { ruleId: string; tool?: string; message: string }[];
  evidence: { probes: { seed: number; combinations: string[] } };
}

async function probeOnly(cheats: string[], tools: readonly string[], seed: number) {
  let stdout = '';
  const code = await main(
    [
      'node',
      'b2-mcp-conform',
      'check',
      '--only-probes',
      '--format',
      'json',
      '--timeout',
      String(REQUEST_TIMEOUT_MS),
      '--seed',
      String(seed),
      '--server',
      proxied(cheats),
      '--env',
      'B2_MCP_PROFILE=default',
      ...tools.flatMap((tool) => ['--probe-tool', tool]),
    ],
    { stdout: (text) => void (stdout += text), stderr: () => {}, color: false, cwd: process.cwd(), env: { PATH: process.env.PATH } },
  );
  return { code, stdout, report: JSON.parse(stdout) as Report };
}

describe('cheating forks', () => {
  let outcome: Awaited<ReturnType<typeof probeOnly>>;
  beforeAll(async () => {
    outcome = await probeOnly(
      [...CHEATS.map(({ cheat, tool }) => `${cheat}=${tool}`), 'leak-token-list'],
      CHEATS.map(({ tool }) => tool),
      20261201,
    );
  }, PROBE_RUN_TIMEOUT_MS);

  test('fail the run, with the seed and the combinations covered in the evidence', () => {
    expect(outcome.code).toBe(1);
    expect(outcome.report.evidence.probes.seed).toBe(20261201);
    expect(outcome.report.evidence.probes.combinations).toHaveLength(4);
    expect(outcome.report.evidence.probes.combinations.some((line) => line.startsWith('era: 2025 era'))).toBe(true);
  });

  test.each(CHEATS)(
    '$cheat on $tool is caught by $rule (a text block that no longer reads back is a format finding besides), and nothing else fires on $tool',
    ({ tool, rule, says }) => {
      const onTool = outcome.report.findings.filter((finding) => finding.tool === tool);
      const rules = new Set(onTool.map((finding) => finding.ruleId));
      expect(rules).toContain(rule);
      expect([...rules].filter((other) => other !== rule && !other.startsWith('format-probe/'))).toEqual([]);
      expect(onTool.filter((finding) => finding.ruleId === rule).map((finding) => finding.message)).toContainEqual(
        expect.stringMatching(says),
      );
    },
  );

  test('a token the fork got at start and put in tools/list, base32, and instructions shown only with credentials, are the findings without a tool', () => {
    const untargeted = outcome.report.findings.filter((finding) => finding.tool === undefined);
    expect(untargeted.map((finding) => finding.ruleId).sort()).toEqual(
      [...Array(untargeted.length - 1).fill('surface-probe/same-surface'), 'secret-probe/canary-leak'].sort(),
    );
    expect(untargeted.map((finding) => finding.message)).toContainEqual(
      expect.stringMatching(/the B2 token given to the server appeared base32 in its tools\/list$/),
    );
    expect(untargeted.map((finding) => finding.message)).toContainEqual(
      expect.stringMatching(/its instructions differ from the (modern|legacy) fixture's/),
    );
  });

  test('the report itself never carries the canary', () => {
    expect(outcome.stdout).not.toMatch(CANARY_SHAPE);
  });
});
