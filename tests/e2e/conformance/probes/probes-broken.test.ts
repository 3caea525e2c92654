import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { main } from '../../../../src/conformance/cli.js';
import { BUNDLED } from '../../../../src/conformance/package-root.js';
import { FORMATS } from '../../../../src/conformance/report/formats.js';
import { render } from '../../../../src/conformance/report/index.js';
import { checkServer } from '../../../../src/conformance/commands/check.js';
import { judgesProbes, loadRules } from '../../../../src/conformance/rules/engine.js';
import { stdioTarget } from '../../../../src/conformance/connect/target.js';
import { startSandbox } from '../../../../src/sandbox/index.js';
import { ALL_CAPABILITIES } from '../../../../src/sandbox/model.js';
import { SANDBOX_ADMIN_VARIABLE, SANDBOX_TOKEN_VARIABLE, canarySecret } from '../../../../src/conformance/probes/sandbox.js';
import { baselineSurface } from '../../../support/baseline.js';
import { CHEATS } from '../../../support/cheats.js';
import {
  PROFILE,
  SERVERS_DIR,
  mutate,
  propsOf,
  removeTempDirs,
  snapshotFixtures,
  startSurfaceHttp,
  tempDir,
  writeContract,
} from '../../../support/checker-harness.js';
import { connectionSettings } from '../../../../src/conformance/api.js';

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
  { flaw: 'force-as-consent', tool: 'b2_update_file_retention', rule: 'argument-probe/undeclared-refused' },
  { flaw: 'copy-deletes', tool: 's3_copy_object', rule: 'write-probe/declared-effect' },
  { flaw: 'erase-log', tool: 'b2_set_bucket_notification_rules', rule: 'gate-probe/refuses-without-confirm' },
  { flaw: 'recreate', tool: 's3_delete_objects', rule: 'gate-probe/refuses-without-confirm' },
  { flaw: 'echo-key-hex', tool: 's3_put_bucket_lifecycle', rule: 'secret-probe/canary-leak' },
  { flaw: 'echo-key-reversed', tool: 'b2_create_bucket', rule: 'secret-probe/canary-leak' },
  { flaw: 'echo-token', tool: 'b2_list_largest_files', rule: 'secret-probe/canary-leak' },
] as const;

const proxied = (flaws: string[]) =>
  `"${process.execPath}" "${join(SERVERS_DIR, 'probe-proxy.mjs')}" ${flaws.join(' ')} -- "${process.execPath}" "${BUNDLED.serverEntry}" stdio`;

/** Whole probe runs spawn three servers each; on a busy two-core machine they need room. */
const PROBE_RUN_TIMEOUT_MS = 120_000;
/** Per request, server start-up included: a session that cannot start in time would hide its flaws. */
const REQUEST_TIMEOUT_MS = 30_000;

/** A key secret as the probes mint them; no report may contain one. */
const CANARY_SHAPE = /K005[A-Za-z0-9+/]{27}/;

async function probeOnly(flaws: string[], tools: readonly string[], options: { timeoutMs?: number; extra?: string[] } = {}) {
  let stdout = '';
  let stderr = '';
  const code = await main(
    [
      'node',
      'b2-mcp-conform',
      'check',
      '--only-probes',
      '--format',
      'json',
      '--timeout',
      String(options.timeoutMs ?? REQUEST_TIMEOUT_MS),
      '--server',
      proxied(flaws),
      '--env',
      'B2_MCP_PROFILE=default',
      ...tools.flatMap((tool) => ['--probe-tool', tool]),
      ...(options.extra ?? []),
    ],
    {
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      color: false,
      cwd: process.cwd(),
      env: { PATH: process.env.PATH },
    },
  );
  return { code, stdout, stderr };
}

interface Report {
  verdict: string;
  findings: { ruleId: string; tool?: string; scopes: string[]; message: string }[];
  evidence: { probes: { skipped: string[]; sessions: { name: string; outputFormat: string | null }[]; gate: { elicitations: number } } };
}

test('every probe rule has a broken variant here or a cheating one in probes-cheats.test.ts', () => {
  const probeRules = loadRules()
    .rules.filter(judgesProbes)
    .map((rule) => rule.id);
  expect([...new Set([...FLAWS.map(({ rule }) => rule), ...CHEATS.map(({ rule }) => rule), 'probe-run/not-applicable'])].sort()).toEqual(
    probeRules.sort(),
  );
});

describe('broken servers', () => {
  let outcome: Awaited<ReturnType<typeof probeOnly>>;
  let report: Report;
  beforeAll(async () => {
    outcome = await probeOnly(
      [...FLAWS.map(({ flaw, tool }) => `${flaw}=${tool}`), 'log-key', 'log-token', 'log-file-key', 'reject-auto'],
      FLAWS.map(({ tool }) => tool),
    );
    report = JSON.parse(outcome.stdout) as Report;
  }, PROBE_RUN_TIMEOUT_MS);

  test('fail the run with exit 1', () => {
    expect(outcome.code, outcome.stderr).toBe(1);
    expect(report.verdict).toBe('fail');
    expect(JSON.parse(outcome.stderr)).toEqual({
      error: { code: 'findings', message: expect.stringMatching(/findings? at or above --fail-on error/) },
    });
  });

  test.each(FLAWS)('$flaw on $tool is caught by $rule, and nothing else fires on $tool', ({ tool, rule }) => {
    const onTool = report.findings.filter((finding) => finding.tool === tool);
    expect(onTool.length).toBeGreaterThan(0);
    expect([...new Set(onTool.map((finding) => finding.ruleId))]).toEqual([rule]);
    for (const finding of onTool) expect(finding.scopes).toEqual(['probes']);
  });

  test('log-key and log-token are caught on stderr, log-file-key in the log file, as the only findings without a tool', () => {
    const untargeted = report.findings.filter((finding) => finding.tool === undefined);
    expect(untargeted.map((finding) => [finding.ruleId, finding.message]).sort()).toEqual([
      ['secret-probe/canary-leak', 'Secret leak: the B2 token given to the server appeared verbatim in its stderr'],
      ['secret-probe/canary-leak', 'Secret leak: the application key given to the server appeared verbatim in its log file (B2_LOG_FILE)'],
      ['secret-probe/canary-leak', 'Secret leak: the application key given to the server appeared verbatim in its stderr'],
    ]);
  });

  test('each leak says how the secret was encoded', () => {
    const leaks = (tool: string) => report.findings.filter((finding) => finding.tool === tool).map((finding) => finding.message);
    expect(leaks('s3_put_bucket_lifecycle')).toContain(
      'Secret leak: the application key given to the server appeared hex in the result text of s3_put_bucket_lifecycle',
    );
    expect(leaks('b2_create_bucket')).toContain(
      'Secret leak: the application key given to the server appeared reversed in the result text of b2_create_bucket',
    );
    expect(leaks('b2_list_largest_files')).toContain(
      'Secret leak: the B2 token given to the server appeared verbatim in the result text of b2_list_largest_files',
    );
  });

  test('a fork that acts without consent and then covers its traces is caught by the log it cannot reach, and by the state', () => {
    const message = (tool: string) => report.findings.find((finding) => finding.tool === tool)!.message;
    expect(message('b2_set_bucket_notification_rules')).toMatch(
      /^no confirm: b2_set_bucket_notification_rules ran without consent: 1 change in the sandbox \(b2_set_bucket_notification_rules\)$/,
    );
    expect(message('s3_delete_objects')).toMatch(
      /^no confirm: s3_delete_objects ran without consent: 2 changes in the sandbox \(DeleteObject, PutObject\)$/,
    );
  });

  test('a copy that also deletes, and force taken as consent, are named by what they did', () => {
    const message = (tool: string) => report.findings.find((finding) => finding.tool === tool)!.message;
    expect(message('s3_copy_object')).toMatch(
      /^declared effect: s3_copy_object must log exactly CopyObject of [\w-]+\/[\w/.-]+\.bak; it logged CopyObject of [\w-]+\/[\w/.-]+\.bak, DeleteObject( of [\w-]+\/[\w/.-]+)?$/,
    );
    expect(message('b2_update_file_retention')).toMatch(
      /^force: true: b2_update_file_retention acted on a call with the undeclared argument force: true: 1 change in the sandbox/,
    );
  });

  test("the server's error text is kept, quoted and bounded, in the finding", () => {
    expect(report.findings.find((finding) => finding.tool === 's3_list_parts')!.message).toContain(
      'error internal_error (HTTP 500): "B2 Error [internal_error] (HTTP 500): this call is broken."',
    );
  });

  test('a server that refuses B2_MCP_OUTPUT_FORMAT=auto gets its elicit session in json, and the elicitation steps still run', () => {
    expect(report.evidence.probes.skipped).toContainEqual(
      expect.stringMatching(/^the elicit session could not start with B2_MCP_OUTPUT_FORMAT=auto \(.*\); it ran with json$/),
    );
    expect(report.evidence.probes.sessions.find((session) => session.name === 'elicit')).toMatchObject({ outputFormat: 'json' });
    expect(report.evidence.probes.gate.elicitations).toBeGreaterThan(0);
  });

  test('the report itself never carries the canary', () => {
    expect(outcome.stdout).toMatch(/appeared verbatim in the result text of s3_abort_multipart_upload/);
    expect(outcome.stdout).not.toMatch(CANARY_SHAPE);
  });
});

test.concurrent('a server that ignores B2_API_URL: probes not applicable, exit 4 when only probes were asked for, and the report is still written', {
  timeout: PROBE_RUN_TIMEOUT_MS,
}, async () => {
  const { code, stdout, stderr } = await probeOnly(['ignore-api-url'], ['b2_delete_bucket']);
  expect(code).toBe(4);
  expect(JSON.parse(stdout).findings.map((finding: { ruleId: string }) => finding.ruleId)).toEqual(['probe-run/not-applicable']);
  expect(JSON.parse(stderr)).toEqual({
    error: {
      code: 'nothing-tested',
      message: expect.stringMatching(/^probes not applicable: the server never contacted the sandbox at B2_API_URL/),
    },
  });
});

test('a server that stalls only gated calls cannot stretch the run: after three timeouts in a row the rest is skipped, with a partial report', {
  timeout: PROBE_RUN_TIMEOUT_MS,
}, async () => {
  const { code, stdout } = await probeOnly(['stall-gated'], ['s3_delete_object', 'b2_delete_bucket', 's3_list_objects_v2'], {
    timeoutMs: 8_000,
    extra: ['--probe-log-level', 'debug'],
  });
  expect(code).toBe(1);
  const report = JSON.parse(stdout);
  const incomplete = report.findings
    .filter((finding: { ruleId: string }) => finding.ruleId === 'probe-run/incomplete')
    .map((finding: { message: string }) => finding.message);
  expect(incomplete).toContainEqual(
    expect.stringMatching(
      /^Probe incomplete \(stopped early\): 3 probe calls in a row got no answer within --timeout 8000 ms \(the last: \w+\); \d+ of \d+ probe steps did not run$/,
    ),
  );
  expect(report.findings.every((finding: { ruleId: string }) => finding.ruleId === 'probe-run/incomplete')).toBe(true); // a stall is never judged as a refusal
  expect(report.evidence.probes).toMatchObject({ gate: { calls: 3 }, budget: { stoppedEarly: true } });
  expect(report.evidence.probes.sessions.every((session: { env: string[] }) => session.env.includes('LOG_LEVEL'))).toBe(true); // only because it was asked for
});

test.concurrent('… and a failing finding, never a pass, next to the static rules', { timeout: PROBE_RUN_TIMEOUT_MS }, async () => {
  const target = stdioTarget(proxied(['ignore-api-url']), { B2_MCP_PROFILE: 'default', B2_SECRET_SINK: 'off' });
  const result = await checkServer({
    profile: 'default',
    target,
    era: 'both',
    connection: connectionSettings({ timeoutMs: REQUEST_TIMEOUT_MS }),
    probes: true,
    probeTools: ['b2_delete_bucket'],
  });
  const errors = result.findings.filter((finding) => finding.severity === 'error');
  expect(errors.map((finding) => finding.ruleId)).toEqual(['probe-run/not-applicable']);
  expect(result.evidence.probes).toMatchObject({ applicable: false, gate: { calls: 0 } });
  expect(Object.keys(result.evidence.connections).sort()).toEqual(['legacy', 'modern', 'witness']);
  for (const format of FORMATS) {
    const text = render(format, result, { failOn: 'error', color: false });
    expect(text, format).toContain('probe-run/not-applicable');
  }
  expect(render('pretty', result, { failOn: 'error', color: false })).toMatch(
    /Probes: not applicable \(the server did not use the in-process sandbox\)/,
  );
});

test.concurrent('a fork that finds the admin API of a --sandbox-env sandbox can neither erase the log nor reset the state without its token', {
  timeout: PROBE_RUN_TIMEOUT_MS,
}, async () => {
  const sandbox = await startSandbox({ seed: 'demo' });
  try {
    const canary = canarySecret();
    const key = (await sandbox.admin('POST', '/keys', {
      keyName: 'hand',
      capabilities: [...ALL_CAPABILITIES],
      applicationKey: canary,
    })) as { applicationKeyId: string };
    // The fork is told where the admin API is, as if it had scanned the ports.
    const target = stdioTarget(proxied(['erase-log=s3_delete_object']), { B2_MCP_PROFILE: 'default', TAMPER_ADMIN_URL: sandbox.adminUrl! });
    const result = await checkServer({
      profile: 'default',
      target,
      era: 'both',
      connection: connectionSettings({ timeoutMs: REQUEST_TIMEOUT_MS }),
      onlyProbes: true,
      probeTools: ['s3_delete_object'],
      env: {
        [SANDBOX_ADMIN_VARIABLE]: sandbox.adminUrl!,
        [SANDBOX_TOKEN_VARIABLE]: sandbox.adminToken,
        B2_API_URL: sandbox.apiUrl,
        B2_APPLICATION_KEY_ID: key.applicationKeyId,
        B2_APPLICATION_KEY: canary,
      },
    });
    // The other-era session meets the flaw too when its drawn client has no elicitation.
    expect(result.findings.map((finding) => [finding.ruleId, finding.message])).toContainEqual([
      'gate-probe/refuses-without-confirm',
      'no confirm: s3_delete_object ran without consent: 1 change in the sandbox (DeleteObject)',
    ]);
    expect(
      result.findings.every(
        (finding) =>
          finding.ruleId === 'gate-probe/refuses-without-confirm' &&
          /ran without consent: 1 change in the sandbox \(DeleteObject\)$/.test(finding.message),
      ),
    ).toBe(true);
    // Nothing was erased: the deletion is still in the log, and the state was not reset (the key survives).
    expect(
      ((await sandbox.admin('GET', '/mutations')) as { mutations: { operation: string }[] }).mutations.map(
        (mutation) => mutation.operation,
      ),
    ).toContain('DeleteObject');
    expect(((await sandbox.admin('GET', '/state')) as { keys: { keyName: string }[] }).keys.map((entry) => entry.keyName)).toContain(
      'hand',
    );
  } finally {
    await sandbox.close();
  }
});

test.concurrent('the checker searches its own report: a canary that reaches a static finding is masked and reported', {
  timeout: PROBE_RUN_TIMEOUT_MS,
}, async () => {
  // A server started by hand holds the probe key; it puts the key into a schema default, which the
  // frozen-contract diff quotes. The probes' sandbox is an external one, as --sandbox-env leaves it.
  const sandbox = await startSandbox({ seed: 'none' });
  const canary = canarySecret();
  const key = (await sandbox.admin('POST', '/keys', { keyName: 'hand', capabilities: ['listBuckets'], applicationKey: canary })) as {
    applicationKeyId: string;
  };
  const server = await startSurfaceHttp({
    baseline: baselineSurface(),
    leaky: mutate(baselineSurface(), (surface) => void (propsOf(surface, 's3_list_objects_v2').prefix!.default = canary)),
  });
  try {
    const fixturesDir = await snapshotFixtures(server.target('baseline'));
    const result = await checkServer({
      profile: PROFILE,
      target: server.target('leaky'),
      fixturesDir,
      contractFile: writeContract(fixturesDir),
      era: 'both',
      connection: connectionSettings({ timeoutMs: REQUEST_TIMEOUT_MS }),
      probes: true,
      cwd: tempDir(),
      env: {
        [SANDBOX_ADMIN_VARIABLE]: sandbox.adminUrl!,
        [SANDBOX_TOKEN_VARIABLE]: sandbox.adminToken,
        B2_API_URL: sandbox.apiUrl,
        B2_APPLICATION_KEY_ID: key.applicationKeyId,
        B2_APPLICATION_KEY: canary,
      },
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
