import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { ProfileName } from '../../../../src/contract/constants.js';
import { main } from '../../../../src/conformance/cli.js';
import { loadFixtureSet } from '../../../../src/conformance/diff/fixtures.js';
import { BUNDLED } from '../../../../src/conformance/package-root.js';
import type { ProbeEvidence } from '../../../../src/conformance/probes/types.js';
import { checkServer } from '../../../../src/conformance/commands/check.js';
import { reportSchemaValidator } from '../../../support/report-schema.js';
import { SERVERS_DIR } from '../../../support/checker-harness.js';
import { judgesProbes, loadRules } from '../../../../src/conformance/rules/engine.js';
import { connectionSettings } from '../../../../src/conformance/api.js';

const PROBE_RULES = loadRules()
  .rules.filter(judgesProbes)
  .map((rule) => rule.id);

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(
  args: string[],
  io: { progress?: boolean; env?: NodeJS.ProcessEnv; untilStopped?: () => Promise<void>; onStdout?: (text: string) => void } = {},
): Promise<Outcome> {
  let stdout = '';
  let stderr = '';
  const code = await main(['node', 'b2-mcp-conform', ...args], {
    stdout: (text) => {
      stdout += text;
      io.onStdout?.(stdout);
    },
    stderr: (text) => void (stderr += text),
    color: false,
    cwd: process.cwd(),
    env: io.env ?? { PATH: process.env.PATH },
    ...(io.progress ? { progress: true } : {}),
    ...(io.untilStopped ? { untilStopped: io.untilStopped } : {}),
  });
  return { code, stdout, stderr };
}

/** Whole probe runs spawn three servers each; on a busy two-core machine they need room. */
const PROBE_RUN_TIMEOUT_MS = 120_000;
/** Per request, server start-up included (the CLI's default is 10 s). */
const REQUEST_TIMEOUT = ['--timeout', '30000'];

/** What every passing probe run of the bundled server shows, whichever way it was started. */
function expectAllProbesPassed(profile: ProfileName, probes: ProbeEvidence): void {
  const fixture = loadFixtureSet(BUNDLED.fixturesDir, profile, ['modern']).byEra.modern!;
  expect(probes).toMatchObject({ applicable: true, sandbox: 'in-process', failed: 0, skipped: [] });
  expect(probes.gate.tools).toBe(fixture.confirmTools.length);
  // no confirm, declined, cancelled, block, confirm: true, accepted (+ harmless) per gated tool
  expect(probes.gate.calls).toBeGreaterThanOrEqual(6 * fixture.confirmTools.length);
  expect(probes.sessions.map((session) => [session.name, session.policy, session.outputFormat])).toEqual([
    ['plain', 'confirm', 'toon'],
    ['elicit', 'confirm', 'auto'],
    ['block', 'block', 'json'],
    ['era', 'confirm', 'json'],
  ]);
  // Both eras, each session's client and sampling drawn from the seed the evidence prints.
  expect(probes.seed).toBeGreaterThan(0);
  expect(probes.combinations.map((line) => /^(\w+): (modern|2025) era \(/.exec(line)?.slice(1))).toEqual([
    ['plain', 'modern'],
    ['elicit', 'modern'],
    ['block', 'modern'],
    ['era', '2025'],
  ]);
  expect(probes.sessions.find((session) => session.name === 'block')!.env).toContain('B2_LOG_FILE');
  // Nothing in the environment announces a checker: no LOG_LEVEL unless asked for, no variable of the checker's own.
  for (const session of probes.sessions)
    expect(session.env.filter((name) => name === 'LOG_LEVEL' || name.startsWith('B2_MCP_CONFORM'))).toEqual([]);
  expect(probes.format.calls).toBeGreaterThanOrEqual(3 * 15);
  // The keys' secrets, plus every token the sandbox issued to them during the run.
  expect(probes.secrets.canaries).toBeGreaterThan(profile === 'full' ? 2 : 1);
  expect(probes.writes.tools).toBe(profile === 'read-only' ? 0 : 6);
  expect(probes.arguments).toEqual({ tools: fixture.tools.length, calls: fixture.tools.length });
  expect(probes.budget).toEqual({ maxDuration: '5 min', stoppedEarly: false });
  // The durable-secret stubs refuse without asking; every other gated tool asks three times.
  const asking = fixture.confirmTools.filter(
    (tool) => !['b2_create_key', 'b2_create_group_member', 'b2_reserve_trial_create_account'].includes(tool),
  );
  expect(probes.gate.elicitations).toBe(3 * asking.length);
  expect(probes.passed).toBeGreaterThan(probes.gate.calls);
}

describe.concurrent('every probe passes on the bundled b2-mcp', () => {
  for (const profile of ['full', 'default'] as const) {
    test(`profile ${profile}`, { timeout: PROBE_RUN_TIMEOUT_MS }, async () => {
      const result = await checkServer({
        profile,
        target: null,
        era: 'both',
        connection: connectionSettings({ timeoutMs: 30_000 }),
        onlyProbes: true,
      });
      expect(result.findings.map((finding) => `${finding.ruleId} ${finding.tool ?? ''}: ${finding.message}`)).toEqual([]);
      expect(result.evaluated.sort()).toEqual([...PROBE_RULES].sort());
      expectAllProbesPassed(profile, result.evidence.probes!);
    });
  }

  test('profile read-only, through the CLI: probes are on by default for the bundled server; --no-probes skips them', {
    timeout: PROBE_RUN_TIMEOUT_MS,
  }, async () => {
    const on = await run(['check', '--profile', 'read-only', '--format', 'json', ...REQUEST_TIMEOUT]);
    expect(on.code, on.stderr).toBe(0);
    const report = JSON.parse(on.stdout);
    const validate = reportSchemaValidator();
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true); // the probe evidence is documented too
    expect(report.findings.filter((finding: { severity: string }) => finding.severity === 'error')).toEqual([]);
    expectAllProbesPassed('read-only', report.evidence.probes);
    expect(report.evidence.rulesEvaluated).toBeGreaterThan(PROBE_RULES.length);
    expect(Object.keys(report.evidence.connections).sort()).toEqual(['legacy', 'modern', 'witness']);
    expect(on.stderr).toBe(''); // no progress with --format json (and none off a terminal)

    const off = await run(['check', '--profile', 'read-only', '--format', 'json', '--no-probes', ...REQUEST_TIMEOUT]);
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout).evidence.probes).toBeUndefined();
  });
});

describe.concurrent('the CLI', () => {
  test('--seed replays the drawn sessions and call order; every seed passes the bundled server', {
    timeout: PROBE_RUN_TIMEOUT_MS,
  }, async () => {
    const probe = async (seed: string) => {
      const outcome = await run([
        'check',
        '--only-probes',
        '--profile',
        'default',
        '--format',
        'json',
        '--seed',
        seed,
        '--probe-tool',
        's3_delete_object',
        '--probe-tool',
        's3_head_object',
        ...REQUEST_TIMEOUT,
      ]);
      expect(outcome.code, outcome.stderr).toBe(0);
      return JSON.parse(outcome.stdout).evidence.probes as ProbeEvidence;
    };
    const [first, again, other] = await Promise.all([probe('7'), probe('7'), probe('8')]);
    expect(first.seed).toBe(7);
    expect(again.combinations).toEqual(first.combinations);
    expect(other.seed).toBe(8);
    // Each run covers both clients without elicitation, two with it, both eras, and sampling declared and not.
    for (const probes of [first, other]) {
      expect(probes.combinations.filter((line) => / 2025 era \(/.test(line))).toHaveLength(1);
      expect(
        probes.combinations.some((line) => line.endsWith('declares sampling')) &&
          probes.combinations.some((line) => line.endsWith('no sampling')),
      ).toBe(true);
      expect(new Set(probes.combinations.map((line) => line.split(', ')[1])).size).toBe(4);
    }
    const usage = await run(['check', '--only-probes', '--seed', 'soon']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--seed must be a positive integer/);
  });

  test('a terminal sees which probe runs, n of m, and a cleared line at the end', { timeout: PROBE_RUN_TIMEOUT_MS }, async () => {
    const outcome = await run(
      [
        'check',
        '--only-probes',
        '--profile',
        'default',
        '--probe-tool',
        's3_delete_object',
        '--probe-tool',
        's3_head_object',
        ...REQUEST_TIMEOUT,
      ],
      { progress: true },
    );
    expect(outcome.code, outcome.stderr).toBe(0);
    const frames = outcome.stderr.split('\r\x1b[2K').filter(Boolean);
    const total = Number(/^probes 1\/(\d+) · calibration: /.exec(frames[0]!)?.[1]);
    // calibration; six gate steps for s3_delete_object, one more in the other era and one per consent-looking word; the two reads of s3_head_object three times in the plain session, twice in the era session and once in the two others; one undeclared-argument call per tool
    expect(total).toBe(1 + 6 + 1 + 5 + 2 * 3 + 2 * 2 + 2 * 1 * 2 + 2);
    expect(frames).toContain(`probes 2/${total} · gate s3_delete_object: no confirm`);
    expect(frames.at(-1)).toMatch(new RegExp(`^probes ${total}/${total} · `));
    expect(outcome.stderr.endsWith('\r\x1b[2K')).toBe(true);
    expect(outcome.stdout).toMatch(/Probes: \d+ passed, 0 failed/);
    expect(outcome.stdout).toMatch(/^PASS/m);
  });

  test('a server that cannot start for the probes: exit 3, one line', async () => {
    const outcome = await run(['check', '--only-probes', '--server', 'no-such-mcp-server --stdio', '--profile', 'read-only']);
    expect(outcome.code).toBe(3);
    expect(outcome.stderr).toMatch(
      /^b2-mcp-conform: error: the server could not be started or reached for the probes \(starting the plain session: .*\)\n$/,
    );
  });

  test('an unknown --probe-tool is a usage error that names the closest tool, before any server starts', async () => {
    const outcome = await run(['check', '--only-probes', '--profile', 'default', '--probe-tool', 's3_delete_objekt']);
    expect(outcome).toMatchObject({ code: 2, stdout: '' });
    expect(outcome.stderr).toBe(
      'b2-mcp-conform: error: --probe-tool "s3_delete_objekt" is not a tool of profile default (did you mean s3_delete_object?)\n',
    );
  });

  test('--max-duration takes 300s, 5m or milliseconds; anything else is a usage error', async () => {
    expect(await run(['check', '--max-duration', 'soon'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--max-duration must be a positive duration such as 300s, 5m or 1500ms, got "soon"/),
    });
    expect((await run(['check', '--max-duration', '0s'])).code).toBe(2);
  });

  test('a server that never lists its tools cannot hold the run past --max-duration: exit 3, named', {
    timeout: PROBE_RUN_TIMEOUT_MS,
  }, async () => {
    const silent = `"${process.execPath}" "${join(SERVERS_DIR, 'silent.mjs')}"`;
    const outcome = await run(['check', '--server', silent, '--no-probes', '--timeout', '600000', '--max-duration', '2s']);
    expect(outcome.code).toBe(3);
    expect(outcome.stderr).toBe("b2-mcp-conform: error: the run went past --max-duration 2 s while listing the server's tools\n");
  });

  test('option conflicts are usage errors', async () => {
    expect((await run(['check', '--only-probes', '--no-probes'])).stderr).toMatch(/use either --only-probes or --no-probes/);
    expect((await run(['check', '--probe-tool', 'x', '--no-probes'])).code).toBe(2);
    expect((await run(['check', '--sandbox-env', '--url', 'http://127.0.0.1:1/mcp'])).stderr).toMatch(/--sandbox-env runs on its own/);
  });
});

/** `b2-mcp http` started by hand with the variables `--sandbox-env` printed. */
function startByHand(env: Record<string, string>): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [BUNDLED.serverEntry, 'http', '--port', '0', '--host', '127.0.0.1'], {
    env: { PATH: process.env.PATH ?? '', ...env, B2_MCP_PROFILE: 'default', B2_HTTP_CREDENTIAL_MODE: 'server', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  stopLater.push(() => child.kill());
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const url = /"url":"(http:\/\/127\.0\.0\.1:\d+\/mcp)"/.exec(seen)?.[1];
      if (url) resolve({ url, stop: () => child.kill() });
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${seen}`)));
  });
}
const stopLater: (() => void)[] = [];
afterAll(() => {
  for (const stop of stopLater) stop();
});

test('--sandbox-env keeps a sandbox for a server started by hand; check --url --probes uses it; the admin token stays with the checker', {
  timeout: PROBE_RUN_TIMEOUT_MS,
}, async () => {
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  let printed!: (text: string) => void;
  const lines = new Promise<string>((resolve) => (printed = resolve));
  const checkerFile = join(mkdtempSync(join(tmpdir(), 'checker-env-')), 'checker.env');
  const serving = run(['check', '--sandbox-env', '--checker-env', checkerFile, '--profile', 'default'], {
    untilStopped: () => stopped,
    onStdout: (text) => text.includes('B2_SECRET_SINK=') && printed(text),
  });

  const parse = (text: string) =>
    Object.fromEntries(
      text
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
  const env = parse(await lines);
  expect(Object.keys(env).sort()).toEqual([
    'B2_API_URL',
    'B2_APPLICATION_KEY',
    'B2_APPLICATION_KEY_ID',
    'B2_DESTRUCTIVE_POLICY',
    'B2_SECRET_SINK',
  ]);
  expect(env.B2_APPLICATION_KEY).toMatch(/^K005[A-Za-z0-9+/]{27}$/);
  await expect.poll(() => existsSync(checkerFile)).toBe(true);
  expect(statSync(checkerFile).mode & 0o077).toBe(0); // the checker's file is private
  const checkerEnv = parse(readFileSync(checkerFile, 'utf8'));
  expect(Object.keys(checkerEnv).sort()).toEqual(['B2_MCP_CONFORM_SANDBOX', 'B2_MCP_CONFORM_SANDBOX_TOKEN']);
  // The admin API refuses anyone without the token, as a server that found the port would be.
  expect((await fetch(`${checkerEnv.B2_MCP_CONFORM_SANDBOX}/mutations`)).status).toBe(401);

  const server = await startByHand(env);
  const checked = await run(
    [
      'check',
      '--url',
      server.url,
      '--only-probes',
      '--profile',
      'default',
      '--format',
      'json',
      '--probe-tool',
      'b2_delete_bucket',
      '--probe-tool',
      's3_list_objects_v2',
      ...REQUEST_TIMEOUT,
    ],
    {
      env: { PATH: process.env.PATH, ...env, ...checkerEnv },
    },
  );
  server.stop();
  stop();
  expect((await serving).code).toBe(0);

  expect(checked.code, checked.stderr).toBe(0);
  const probes = JSON.parse(checked.stdout).evidence.probes;
  expect(probes).toMatchObject({ applicable: true, sandbox: 'external', failed: 0 });
  expect(probes.sessions.map((session: { name: string; outputFormat: string | null }) => [session.name, session.outputFormat])).toEqual([
    ['plain', null],
    ['elicit', null],
    ['era', null],
  ]);
  expect(probes.skipped).toEqual([expect.stringMatching(/B2_DESTRUCTIVE_POLICY=block step .* cannot be restarted/)]);
  expect(probes.gate.elicitations).toBe(3);
  expect(checked.stdout).not.toContain(env.B2_APPLICATION_KEY);
  expect(checked.stdout).not.toContain(checkerEnv.B2_MCP_CONFORM_SANDBOX_TOKEN);
});

test('--sandbox-env without --checker-env, or --checker-env alone: usage errors', async () => {
  expect(await run(['check', '--sandbox-env'])).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/--sandbox-env needs --checker-env FILE/),
  });
  expect(await run(['check', '--checker-env', 'x.env', '--no-probes'])).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/--checker-env goes with --sandbox-env/),
  });
});
