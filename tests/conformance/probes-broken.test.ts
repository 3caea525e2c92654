import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { main } from '../../src/conformance/cli.js';
import { BUNDLED } from '../../src/conformance/package-root.js';
import { FORMATS } from '../../src/conformance/report/formats.js';
import { render } from '../../src/conformance/report/index.js';
import { runCheck } from '../../src/conformance/run.js';
import { judgesProbes, loadRules } from '../../src/conformance/rules/engine.js';
import { stdioTarget } from '../../src/conformance/target.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { SANDBOX_ADMIN_VARIABLE, SANDBOX_TOKEN_VARIABLE, canarySecret } from '../../src/conformance/probes/sandbox.js';
import { baselineSurface } from './helpers/baseline.js';
import { PROFILE, SERVERS_DIR, mutate, propsOf, removeTempDirs, snapshotFixtures, startSurfaceHttp, tempDir, writeContract } from './helpers/harness.js';

/**
 * Broken servers: our b2-mcp behind a stdio proxy (servers/probe-proxy.mjs) that breaks one
 * promise per flaw. All flaws ride in one run, each on a tool of its own, and each must be caught
 * by exactly its rule on exactly its tool (one run instead of eleven keeps this file fast).
 */
const FLAWS = [
  { flaw: 'inject-confirm', tool: 'b2_delete_bucket', rule: 'gate-probe/refuses-without-confirm' },
  { flaw: 'decline-as-accept', tool: 'b2_delete_key', rule: 'gate-probe/refuses-declined' },
  { flaw: 'block-as-allow', tool: 'b2_update_file_legal_hold', rule: 'gate-probe/block-refuses' },
  { flaw: 'drop-confirm', tool: 's3_delete_object', rule: 'gate-probe/confirmed-once' },
  { flaw: 'refuse-unconfirmed', tool: 'b2_update_bucket', rule: 'gate-probe/harmless-ungated' },
  { flaw: 'toon-unquote', tool: 's3_list_objects_v2', rule: 'format-probe/toon-round-trip' },
  { flaw: 'pretty-json', tool: 's3_list_object_versions', rule: 'format-probe/json-compact' },
  { flaw: 'json-errors', tool: 's3_head_object', rule: 'format-probe/errors-plain' },
  { flaw: 'echo-key', tool: 's3_abort_multipart_upload', rule: 'secret-probe/canary-leak' },
  { flaw: 'fail-call', tool: 's3_list_parts', rule: 'probe-run/incomplete' },
] as const;

const proxied = (flaws: string[]) => `"${process.execPath}" "${join(SERVERS_DIR, 'probe-proxy.mjs')}" ${flaws.join(' ')} -- "${process.execPath}" "${BUNDLED.serverEntry}" stdio`;

/** Whole probe runs spawn three servers each; on a busy two-core machine they need room. */
const PROBE_RUN_TIMEOUT_MS = 120_000;
/** Per request, server start-up included: a session that cannot start in time would hide its flaws. */
const REQUEST_TIMEOUT_MS = 30_000;

/** A key secret as the probes mint them; no report may contain one. */
const CANARY_SHAPE = /K005[A-Za-z0-9+/]{27}/;

async function probeOnly(flaws: string[], tools: readonly string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(
    ['node', 'b2-mcp-conform', 'check', '--only-probes', '--format', 'json', '--timeout', String(REQUEST_TIMEOUT_MS), '--server', proxied(flaws), '--env', 'B2_MCP_PROFILE=default', ...tools.flatMap((tool) => ['--probe-tool', tool])],
    { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), color: false, cwd: process.cwd(), env: { PATH: process.env.PATH } },
  );
  return { code, stdout, stderr };
}

interface Report {
  verdict: string;
  findings: { ruleId: string; tool?: string; scopes: string[]; message: string }[];
}

test('every probe rule has a broken variant here', () => {
  const probeRules = loadRules().rules.filter(judgesProbes).map((rule) => rule.id);
  expect([...new Set([...FLAWS.map(({ rule }) => rule), 'probe-run/not-applicable'])].sort()).toEqual(probeRules.sort());
});

describe('broken servers', () => {
  let outcome: Awaited<ReturnType<typeof probeOnly>>;
  let report: Report;
  beforeAll(async () => {
    outcome = await probeOnly([...FLAWS.map(({ flaw, tool }) => `${flaw}=${tool}`), 'log-key'], FLAWS.map(({ tool }) => tool));
    report = JSON.parse(outcome.stdout) as Report;
  }, PROBE_RUN_TIMEOUT_MS);

  test('fail the run with exit 1', () => {
    expect(outcome.code, outcome.stderr).toBe(1);
    expect(report.verdict).toBe('fail');
    expect(JSON.parse(outcome.stderr)).toEqual({ error: { code: 'findings', message: expect.stringMatching(/findings? at or above --fail-on error/) } });
  });

  test.each(FLAWS)('$flaw on $tool is caught by $rule, and nothing else fires on $tool', ({ tool, rule }) => {
    const onTool = report.findings.filter((finding) => finding.tool === tool);
    expect(onTool.length).toBeGreaterThan(0);
    expect([...new Set(onTool.map((finding) => finding.ruleId))]).toEqual([rule]);
    for (const finding of onTool) expect(finding.scopes).toEqual(['probes']);
  });

  test('log-key is caught on stderr, as the only finding without a tool', () => {
    const untargeted = report.findings.filter((finding) => finding.tool === undefined);
    expect(untargeted.map((finding) => [finding.ruleId, finding.message])).toEqual([['secret-probe/canary-leak', 'Secret leak: the application key given to the server appeared verbatim in its stderr']]);
  });

  test('the report itself never carries the canary', () => {
    expect(outcome.stdout).toMatch(/appeared verbatim in the result text of s3_abort_multipart_upload/);
    expect(outcome.stdout).not.toMatch(CANARY_SHAPE);
  });
});

test.concurrent('a server that ignores B2_API_URL: probes not applicable, exit 4 when only probes were asked for', { timeout: PROBE_RUN_TIMEOUT_MS }, async () => {
  const { code, stdout, stderr } = await probeOnly(['ignore-api-url'], ['b2_delete_bucket']);
  expect(code).toBe(4);
  expect(stdout).toBe('');
  expect(JSON.parse(stderr)).toEqual({ error: { code: 'nothing-tested', message: expect.stringMatching(/^probes not applicable: the server never contacted the sandbox at B2_API_URL/) } });
});

test.concurrent('… and a failing finding, never a pass, next to the static rules', { timeout: PROBE_RUN_TIMEOUT_MS }, async () => {
  const target = stdioTarget(proxied(['ignore-api-url']), { B2_MCP_PROFILE: 'default', B2_SECRET_SINK: 'off' });
  const result = await runCheck({ profile: 'default', target, era: 'both', timeoutMs: REQUEST_TIMEOUT_MS, probes: true, probeTools: ['b2_delete_bucket'] });
  const errors = result.findings.filter((finding) => finding.severity === 'error');
  expect(errors.map((finding) => finding.ruleId)).toEqual(['probe-run/not-applicable']);
  expect(result.evidence.probes).toMatchObject({ applicable: false, gate: { calls: 0 } });
  expect(Object.keys(result.evidence.connections).sort()).toEqual(['legacy', 'modern', 'witness']);
  for (const format of FORMATS) {
    const text = render(format, result, { failOn: 'error', color: false });
    expect(text, format).toContain('probe-run/not-applicable');
  }
  expect(render('pretty', result, { failOn: 'error', color: false })).toMatch(/Probes: not applicable \(the server did not use the in-process sandbox\)/);
});

test.concurrent('the checker searches its own report: a canary that reaches a static finding is masked and reported', { timeout: PROBE_RUN_TIMEOUT_MS }, async () => {
  // A server started by hand holds the probe key; it puts the key into a schema default, which the
  // frozen-contract diff quotes. The probes' sandbox is an external one, as --sandbox-env leaves it.
  const sandbox = await startSandbox({ seed: 'none' });
  const canary = canarySecret();
  const key = (await sandbox.admin('POST', '/keys', { keyName: 'hand', capabilities: ['listBuckets'], applicationKey: canary })) as { applicationKeyId: string };
  const server = await startSurfaceHttp({
    baseline: baselineSurface(),
    leaky: mutate(baselineSurface(), (surface) => void (propsOf(surface, 's3_list_objects_v2').prefix!.default = canary)),
  });
  try {
    const fixturesDir = await snapshotFixtures(server.target('baseline'));
    const result = await runCheck({
      profile: PROFILE,
      target: server.target('leaky'),
      fixturesDir,
      contractFile: writeContract(fixturesDir),
      era: 'both',
      timeoutMs: REQUEST_TIMEOUT_MS,
      probes: true,
      cwd: tempDir(),
      env: { [SANDBOX_ADMIN_VARIABLE]: sandbox.adminUrl!, [SANDBOX_TOKEN_VARIABLE]: sandbox.adminToken, B2_API_URL: sandbox.apiUrl, B2_APPLICATION_KEY_ID: key.applicationKeyId, B2_APPLICATION_KEY: canary },
    });
    const leaks = result.findings.filter((finding) => finding.ruleId === 'secret-probe/canary-leak').map((finding) => finding.message);
    expect(leaks).toEqual(
      expect.arrayContaining([
        'Secret leak: the application key given to the server appeared verbatim in its tools/list',
        'Secret leak: the application key given to the server appeared in this report (masked)',
      ]),
    );
    const quoted = result.findings.find((finding) => finding.ruleId === 'diff/default-changed');
    expect(quoted?.message).toContain('***');
    for (const format of FORMATS) expect(render(format, result, { failOn: 'error', color: false }), format).not.toContain(canary);
    expect(result.evidence.probes).toMatchObject({ applicable: false, sandbox: 'external' });
  } finally {
    server.stop();
    await sandbox.close();
    removeTempDirs();
  }
});
