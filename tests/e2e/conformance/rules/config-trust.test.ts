import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { applySuppressions, DEFAULT_CONFIG_FILE, gitRootOf, loadConfig } from '../../../../src/conformance/rules/config.js';
import type { Finding } from '../../../../src/conformance/rules/findings.js';
import { loadRules } from '../../../../src/conformance/rules/engine.js';
import { baselineSurface } from '../../../support/baseline.js';
import {
  mutate,
  removeTempDirs,
  runCli,
  snapshotFixtures,
  startSurfaceHttp,
  tempDir,
  toolOf,
  writeContract,
  writeJson,
  type SurfaceHttpServer,
} from '../../../support/checker-harness.js';

const rules = loadRules();
const OVERRIDE = { rules: { 'description/length': 'off' } };

/** A checkout: a directory with `.git`, a config at its root, and a nested working directory. */
function checkout(config: unknown = OVERRIDE, gitAsFile = false): { root: string; nested: string } {
  const root = tempDir();
  if (gitAsFile) writeFileSync(join(root, '.git'), 'gitdir: /elsewhere/.git/worktrees/x\n');
  else mkdirSync(join(root, '.git'));
  writeJson(root, DEFAULT_CONFIG_FILE, config);
  const nested = join(root, 'packages', 'fork');
  mkdirSync(nested, { recursive: true });
  return { root, nested };
}

afterAll(() => removeTempDirs());

describe('which file is read without --config', () => {
  test('the git root of the working directory, from any directory below it', () => {
    const { root, nested } = checkout();
    expect(gitRootOf(nested)).toBe(root);
    expect(loadConfig(undefined, rules, nested)).toMatchObject({
      file: join(root, DEFAULT_CONFIG_FILE),
      source: 'git-root',
      rules: { 'description/length': 'off' },
    });
    expect(loadConfig(undefined, rules, checkout(OVERRIDE, true).nested)).toMatchObject({ source: 'git-root' });
  });

  test('never a file in a subdirectory below the git root, even the working directory itself', () => {
    const { nested } = checkout({});
    writeJson(nested, DEFAULT_CONFIG_FILE, OVERRIDE);
    expect(loadConfig(undefined, rules, nested).rules).toEqual({});
  });

  test('never one above the git root, and none outside a repository', () => {
    const parent = tempDir();
    writeJson(parent, DEFAULT_CONFIG_FILE, OVERRIDE);
    const repo = join(parent, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    expect(loadConfig(undefined, rules, repo)).toMatchObject({ file: null, source: null, rules: {} });
    const loose = tempDir();
    writeJson(loose, DEFAULT_CONFIG_FILE, OVERRIDE);
    expect(loadConfig(undefined, rules, loose)).toMatchObject({ file: null, rules: {} });
  });

  test('--no-config ignores every file; --config names one anywhere', () => {
    const { root, nested } = checkout();
    expect(loadConfig(false, rules, nested)).toMatchObject({ file: null, rules: {}, suppressions: [] });
    const elsewhere = writeJson(tempDir(), 'policy.json', { rules: { 'naming/sorted': 'off' } });
    expect(loadConfig(elsewhere, rules, root)).toMatchObject({ file: elsewhere, source: 'explicit', rules: { 'naming/sorted': 'off' } });
  });
});

describe('integrity rules', () => {
  const integrity = rules.rules.filter((rule) => rule.integrity).map((rule) => rule.id);

  test('are marked in the rule data: probe integrity, secret leaks, gate behaviour, tool-set changes', () => {
    for (const id of [
      'probe-run/not-applicable',
      'probe-run/incomplete',
      'secret-probe/canary-leak',
      'gate-probe/refuses-without-confirm',
      'diff/tool-added',
      'diff/tool-removed',
      'diff/tool-renamed',
    ])
      expect(integrity, id).toContain(id);
    expect(integrity).not.toContain('description/length');
  });

  test('a config file cannot turn them off or lower them; raising them, and other rules, is fine', () => {
    const file = writeJson(tempDir(), 'c.json', {
      rules: {
        'secret-probe/canary-leak': 'off',
        'diff/tool-added': 'warning',
        'gate-probe/confirmed-once': 'error',
        'description/length': 'off',
      },
    });
    const config = loadConfig(file, rules);
    expect(config.rules).toEqual({ 'gate-probe/confirmed-once': 'error', 'description/length': 'off' });
    expect(config.refused).toEqual(['secret-probe/canary-leak=off', 'diff/tool-added=warning']);
    const allowed = loadConfig(file, rules, undefined, { allowIntegrityOverrides: true });
    expect(allowed.rules).toMatchObject({ 'secret-probe/canary-leak': 'off', 'diff/tool-added': 'warning' });
    expect(allowed.refused).toEqual([]);
    expect(allowed.unsuppressible.size).toBe(0);
  });

  test('nor suppress their findings; a suppression that hit only those is refused, not stale', () => {
    const finding = (ruleId: string, tool: string): Finding => ({
      ruleId,
      tool,
      fingerprint: ruleId.padEnd(32, '0'),
      severity: 'error',
      category: 'x',
      message: 'm',
      fix: 'f',
      doc: 'd',
      scopes: [],
    });
    const findings = [finding('diff/tool-added', 'b2_exfiltrate'), finding('description/length', 'b2_exfiltrate')];
    const config = loadConfig(false, rules);
    const guarded = loadConfig(writeJson(tempDir(), 'c.json', {}), rules);
    expect(config.unsuppressible.size).toBe(0); // no file: nothing to guard against
    const { findings: marked, outcome } = applySuppressions(
      findings,
      [
        { tool: 'b2_exfiltrate', reason: 'ours' },
        { rule: 'diff/tool-added', reason: 'ours' },
      ],
      '2026-11-30',
      guarded.unsuppressible,
    );
    expect(marked.map((entry) => Boolean(entry.suppressed))).toEqual([false, true]);
    expect(outcome).toEqual({
      stale: [],
      expired: [],
      refused: [
        { index: 0, description: 'tool b2_exfiltrate' },
        { index: 1, description: 'rule diff/tool-added' },
      ],
    });
  });
});

describe("auditing from inside a fork's checkout", () => {
  let server: SurfaceHttpServer;
  let fixtures: string;
  let contract: string;
  /** The fork's checkout: its config turns off the rules that would catch its extra tool. */
  let fork: { root: string; nested: string };

  beforeAll(async () => {
    server = await startSurfaceHttp({
      baseline: baselineSurface(),
      extra: mutate(baselineSurface(), (s) => void s.tools.push({ ...toolOf(s, 'b2_list_buckets'), name: 'b2_list_buckets_everywhere' })),
    });
    fixtures = await snapshotFixtures(server.target('baseline'));
    contract = writeContract(fixtures);
    fork = checkout({
      rules: {
        'diff/tool-added': 'off',
        'contract/profile-hash': 'off',
        'contract/prefix-counts': 'off',
        'contract/backing-counts': 'off',
        'naming/sorted': 'off',
      },
      suppressions: [{ tool: 'b2_list_buckets_everywhere', reason: 'our tool' }],
    });
  });

  afterAll(() => server?.stop());

  const audit = (...extra: string[]) =>
    runCli(
      [
        'check',
        '--url',
        (server.target('extra') as { url: URL }).url.href,
        '--fixtures',
        fixtures,
        '--contract',
        contract,
        '--era',
        'modern',
        ...extra,
      ],
      { cwd: fork.nested },
    );

  test("the fork's config cannot hide its extra tool, and every format names the config and what it refused", async () => {
    const dir = tempDir();
    const outcome = await audit(
      '--format',
      'pretty',
      `--format=json=${join(dir, 'r.json')}`,
      `--format=sarif=${join(dir, 'r.sarif')}`,
      `--format=junit=${join(dir, 'r.xml')}`,
      `--format=markdown=${join(dir, 'r.md')}`,
    );
    expect(outcome.code, outcome.stderr).toBe(1);
    const json = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'));
    expect(json.findings.filter((finding: Finding) => !finding.suppressed).map((finding: Finding) => finding.ruleId)).toContain(
      'diff/tool-added',
    );
    const file = join(fork.root, DEFAULT_CONFIG_FILE);
    const refused = 'refused on integrity rules: diff/tool-added=off, suppressions/0 (tool b2_list_buckets_everywhere)';
    const lastLine = outcome.stdout.trimEnd().split('\n').at(-1)!;
    expect(lastLine).toMatch(/^FAIL /);
    expect(lastLine).toContain(`config ${file} (git root); overrides contract/profile-hash=off`);
    expect(lastLine).toContain(refused);
    expect(json.verdictLine).toBe(lastLine);
    expect(json.evidence.config).toMatchObject({
      file,
      source: 'git-root',
      refused: ['diff/tool-added=off', 'suppressions/0 (tool b2_list_buckets_everywhere)'],
    });
    expect(JSON.parse(readFileSync(join(dir, 'r.sarif'), 'utf8')).runs[0].properties.verdictLine).toBe(lastLine);
    const junit = new XMLParser({ ignoreAttributes: false }).parse(readFileSync(join(dir, 'r.xml'), 'utf8'));
    const properties = [junit.testsuites.properties.property].flat() as { '@_name': string; '@_value': string }[];
    expect(properties.find((property) => property['@_name'] === 'Verdict')?.['@_value']).toBe(lastLine);
    const markdown = readFileSync(join(dir, 'r.md'), 'utf8');
    expect(markdown.split('\n')[2]).toContain('diff/tool-added=off');
    const github = await audit('--format', 'github');
    expect(github.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^b2-mcp-conform FAIL .*\(git root\).*refused on integrity rules: diff\/tool-added=off/,
    );
  });

  test('with --allow-integrity-overrides the overrides apply, and the verdict says so', async () => {
    const outcome = await audit('--allow-integrity-overrides', '--format', 'json');
    const json = JSON.parse(outcome.stdout);
    expect(json.findings.filter((finding: Finding) => !finding.suppressed).map((finding: Finding) => finding.ruleId)).not.toContain(
      'diff/tool-added',
    );
    expect(json.verdictLine).toContain('overrides diff/tool-added=off');
    expect(json.verdictLine).not.toContain('refused');
  });

  test('--no-config: no file is read, the verdict says "no config"', async () => {
    const outcome = await audit('--no-config');
    expect(outcome.code).toBe(1);
    expect(outcome.stdout.trimEnd().split('\n').at(-1)).toMatch(/^FAIL .* · no config$/);
    expect(outcome.stdout).toMatch(/diff\/tool-added/);
  });
});
