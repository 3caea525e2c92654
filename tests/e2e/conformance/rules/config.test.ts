import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { applySuppressions, loadConfig } from '../../../../src/conformance/rules/config.js';
import { ConformError } from '../../../../src/conformance/errors.js';
import type { Finding } from '../../../../src/conformance/rules/findings.js';
import { loadRules } from '../../../../src/conformance/rules/engine.js';
import { baselineSurface } from '../../../support/baseline.js';
import {
  check,
  firedRules,
  mutate,
  propsOf,
  removeTempDirs,
  snapshotFixtures,
  startSurfaceHttp,
  tempDir,
  toolOf,
  writeContract,
  writeJson,
  type SurfaceHttpServer,
} from '../../../support/checker-harness.js';
import { connectionSettings } from '../../../../src/conformance/api.js';

const rules = loadRules();

function configError(content: unknown): string {
  const dir = tempDir();
  mkdirSync(join(dir, '.git')); // the implicit config is read at the git root only
  writeJson(dir, 'b2-mcp-conform.config.json', content);
  try {
    loadConfig(undefined, rules, dir);
  } catch (error) {
    expect(error).toBeInstanceOf(ConformError);
    expect((error as ConformError).exitCode).toBe(2);
    return (error as Error).message;
  }
  throw new Error('expected a config error');
}

describe('config validation (exit 2, one clear message)', () => {
  test('unknown top-level key', () => expect(configError({ rule: {} })).toMatch(/\(top level\) unknown key "rule"$/));
  test('unknown key inside a suppression', () =>
    expect(configError({ suppressions: [{ rule: 'naming/prefix', reason: 'x', until: '2027-01-01' }] })).toMatch(
      /\/suppressions\/0 unknown key "until"/,
    ));
  test('unknown rule id in an override', () =>
    expect(configError({ rules: { 'naming/prefixes': 'off' } })).toMatch(/unknown rule "naming\/prefixes"/));
  test('bad severity', () =>
    expect(configError({ rules: { 'naming/prefix': 'fatal' } })).toMatch(
      /\/rules\/naming~1prefix must be equal to one of the allowed values/,
    ));
  test('suppression without a reason', () =>
    expect(configError({ suppressions: [{ rule: 'naming/prefix' }] })).toMatch(/must have required property 'reason'/));
  test('suppression naming nothing', () =>
    expect(configError({ suppressions: [{ reason: 'because' }] })).toMatch(/must name a rule, a tool, a prompt, a fingerprint or a file/));
  test('bad expires date', () =>
    expect(configError({ suppressions: [{ rule: 'naming/prefix', reason: 'r', expires: '31/12/2027' }] })).toMatch(
      /expires must match format "date"/,
    ));
  test('an explicit file that does not exist', () => {
    expect(() => loadConfig('missing.json', rules, tempDir())).toThrow(/config file not found/);
  });
  test('no file and no explicit option: empty config', () => {
    expect(loadConfig(undefined, rules, tempDir())).toMatchObject({ rules: {}, suppressions: [], file: null, source: null, refused: [] });
  });
});

describe('suppression matching', () => {
  const finding = (ruleId: string, tool: string, fingerprint: string): Finding => ({
    ruleId,
    tool,
    fingerprint,
    severity: 'error',
    category: 'x',
    message: 'm',
    fix: 'f',
    doc: 'd',
    scopes: [],
  });
  const findings = [
    finding('naming/prefix', 'a_x', 'a'.repeat(32)),
    finding('naming/prefix', 'b_x', 'b'.repeat(32)),
    finding('schema/limits', 'a_x', 'c'.repeat(32)),
  ];

  test('by rule, by tool, by fingerprint, by rule and tool together', () => {
    const { findings: marked, outcome } = applySuppressions(
      findings,
      [
        { rule: 'naming/prefix', tool: 'b_x', reason: 'r1' },
        { fingerprint: 'c'.repeat(32), reason: 'r2' },
      ],
      '2026-11-30',
    );
    expect(marked.map((entry) => entry.suppressed?.reason ?? null)).toEqual([null, 'r1', 'r2']);
    expect(outcome).toEqual({ stale: [], expired: [], refused: [] });
  });

  test('an expired suppression stops suppressing and is reported; expiry day itself still counts', () => {
    const run = (today: string) => applySuppressions(findings, [{ tool: 'a_x', reason: 'r', expires: '2026-11-30' }], today);
    expect(run('2026-11-30').findings.filter((entry) => entry.suppressed)).toHaveLength(2);
    const late = run('2026-12-01');
    expect(late.findings.filter((entry) => entry.suppressed)).toHaveLength(0);
    expect(late.outcome.expired).toEqual([{ index: 0, description: 'tool a_x', expires: '2026-11-30' }]);
    expect(late.outcome.stale).toEqual([]);
  });

  test('a suppression that matches nothing is stale', () => {
    const { outcome } = applySuppressions(findings, [{ rule: 'naming/prefix', tool: 'c_x', reason: 'r' }], '2026-11-30');
    expect(outcome.stale).toEqual([{ index: 0, description: 'rule naming/prefix, tool c_x' }]);
  });
});

describe('config applied to a live check', () => {
  let server: SurfaceHttpServer;
  let fixturesDir: string;
  let contractFile: string;

  beforeAll(async () => {
    server = await startSurfaceHttp({
      baseline: baselineSurface(),
      broken: mutate(baselineSurface(), (s) => {
        propsOf(s, 's3_put_object').apiKey = { type: 'string' };
        toolOf(s, 'b2_list_buckets').description = 'List buckets.';
      }),
    });
    // Fixtures of the broken server itself: only the static rules fire, no drift.
    fixturesDir = await snapshotFixtures(server.target('broken'));
    contractFile = writeContract(fixturesDir);
  });

  afterAll(() => {
    server?.stop();
    removeTempDirs();
  });

  const run = (config: unknown, today = '2026-11-30') =>
    check(server.target('broken'), { fixturesDir, contractFile, configFile: writeJson(tempDir(), 'config.json', config), today });

  test('without config: an error and a warning', async () => {
    const result = await run({});
    expect(result.findings.map((finding) => [finding.ruleId, finding.severity])).toEqual([
      ['credentials/prohibited-field', 'error'],
      ['description/length', 'warning'],
    ]);
  });

  test('severity overrides, and off disables a rule', async () => {
    const result = await run({ rules: { 'credentials/prohibited-field': 'warning', 'description/length': 'off' } });
    expect(result.findings.map((finding) => [finding.ruleId, finding.severity])).toEqual([['credentials/prohibited-field', 'warning']]);
    expect(result.evaluated).not.toContain('description/length');
  });

  test('a suppression hides a finding with its reason and is counted in the evidence', async () => {
    const result = await run({
      suppressions: [
        { rule: 'credentials/prohibited-field', tool: 's3_put_object', reason: 'fixed in next release', expires: '2027-01-31' },
      ],
    });
    expect(firedRules(result)).toEqual(['description/length']);
    expect(result.findings.find((finding) => finding.suppressed)?.suppressed).toEqual({
      reason: 'fixed in next release',
      expires: '2027-01-31',
    });
    expect(result.evidence.config).toMatchObject({ suppressed: 1, stale: 0, expired: 0 });
  });

  test('a suppression by fingerprint works across runs', async () => {
    const first = await run({});
    const fingerprint = first.findings.find((finding) => finding.ruleId === 'description/length')!.fingerprint;
    const second = await run({ suppressions: [{ fingerprint, reason: 'short on purpose' }] });
    expect(firedRules(second)).toEqual(['credentials/prohibited-field']);
  });

  test('a stale suppression fails the run', async () => {
    const result = await run({ suppressions: [{ rule: 'naming/prefix', reason: 'old' }] });
    expect(firedRules(result)).toEqual(['config/stale-suppression', 'credentials/prohibited-field', 'description/length']);
    expect(result.findings.find((finding) => finding.ruleId === 'config/stale-suppression')).toMatchObject({
      severity: 'error',
      path: 'suppressions[0]',
    });
  });

  test('an expired suppression stops suppressing and warns', async () => {
    const result = await run({ suppressions: [{ rule: 'credentials/prohibited-field', reason: 'temporary', expires: '2026-06-30' }] });
    expect(firedRules(result)).toEqual(['config/expired-suppression', 'credentials/prohibited-field', 'description/length']);
    expect(result.findings.find((finding) => finding.ruleId === 'config/expired-suppression')?.message).toBe(
      'Suppression #0 (rule credentials/prohibited-field) expired on 2026-06-30 and no longer applies',
    );
  });
});

describe('a config that fails to load', () => {
  test('stops the servers launched early for the check, and names the config', async () => {
    const { checkServer } = await import('../../../../src/conformance/commands/check.js');
    const { launchServers } = await import('../../../../src/conformance/connect/stdio-transport.js');
    const { CONNECTIONS_FOR } = await import('../../../../src/conformance/connect/connections.js');
    const target = {
      kind: 'stdio' as const,
      command: process.execPath,
      args: [join(import.meta.dirname, '..', '..', '..', 'support', 'servers', 'silent.mjs')],
      env: {},
    };
    const launched = launchServers(target, CONNECTIONS_FOR.both);
    await Promise.all(Object.values(launched).map((transport) => transport!.launch()));
    const pids = Object.values(launched).map((transport) => transport!.pid!);
    expect(pids.every((pid) => isRunning(pid))).toBe(true);
    const missing = join(tempDir(), 'missing.config.json');
    await expect(
      checkServer(
        { profile: 'default', target, era: 'both', connection: connectionSettings({ timeoutMs: 5000 }), configFile: missing },
        { launched },
      ),
    ).rejects.toThrow(/config file not found/);
    expect(pids.filter((pid) => isRunning(pid))).toEqual([]);
  });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
