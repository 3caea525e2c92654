/**
 * The GitHub Action, run locally: the check and verdict steps of action.yml with the commands,
 * environment and files they have on a runner (inputs substituted, GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY as files). The setup step (`npm ci`, whose `prepare` builds dist/) is what
 * `npm test` already did here. The SARIF it produces validates against the SARIF 2.1.0 schema
 * (the subset in tests/support).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { baselineSurface } from '../support/baseline.js';
import {
  mutate,
  removeTempDirs,
  snapshotFixtures,
  startSurfaceHttp,
  tempDir,
  writeContract,
  type SurfaceHttpServer,
} from '../support/checker-harness.js';
import { schemaValidator } from '../support/report-schema.js';
import { writeCheckout } from '../support/checkout.js';
import { REPO_ROOT } from './consumer.js';

interface Step {
  name: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  'working-directory'?: string;
}
interface Action {
  inputs: Record<string, { description: string; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')) as Action;
const stepNamed = (pattern: RegExp) => action.runs.steps.find((step) => pattern.test(step.name))!;
const validateSarif = schemaValidator(join(REPO_ROOT, 'tests', 'support', 'sarif-2.1.0-subset.schema.json'));

interface StepRun {
  status: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
}

/** Substitute `${{ … }}` the way the runner does for the expressions the action uses. */
function expand(text: string, inputs: Record<string, string>, context: { temp: string; outputs?: Record<string, string> }): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
    if (expression === 'github.action_path') return REPO_ROOT;
    if (expression === 'runner.temp') return context.temp;
    const input = /^inputs\.([\w-]+)$/.exec(expression);
    if (input) return inputs[input[1]!] ?? action.inputs[input[1]!]?.default ?? '';
    const output = /^steps\.check\.outputs\.([\w-]+)$/.exec(expression);
    if (output) return context.outputs?.[output[1]!] ?? '';
    throw new Error(`expression not handled by this test: ${expression}`);
  });
}

function runStep(step: Step, inputs: Record<string, string>, context: { temp: string; outputs?: Record<string, string> }): StepRun {
  const dir = tempDir();
  const outputFile = join(dir, 'output');
  const summaryFile = join(dir, 'summary');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([name, value]) => [name, expand(String(value), inputs, context)]));
  const run = spawnSync('bash', ['-e', '-c', expand(step.run!, inputs, context)], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: dir, GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: summaryFile, ...env },
    timeout: 120_000,
  });
  const outputs = Object.fromEntries(
    readFileSync(outputFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, outputs, summary: readFileSync(summaryFile, 'utf8') };
}

/** The check step, then the verdict step with the check's outputs, as the runner would. */
function runAction(inputs: Record<string, string>) {
  const temp = tempDir();
  const check = runStep(stepNamed(/check$/), inputs, { temp });
  const verdict = runStep(stepNamed(/^Verdict$/), inputs, { temp, outputs: check.outputs });
  const upload = stepNamed(/SARIF/);
  return { check, verdict, uploads: upload.if!.includes("steps.check.outputs.sarif-file != ''") && Boolean(check.outputs['sarif-file']) };
}

describe('action.yml', () => {
  it('is a composite action with the documented inputs, uploading SARIF to code scanning', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs)).toEqual(
      expect.arrayContaining(['profile', 'server', 'url', 'env', 'fixtures', 'contract', 'probes', 'fail-on']),
    );
    expect(stepNamed(/^Set up/).run).toBe('npm ci --no-audit --no-fund');
    const upload = stepNamed(/SARIF/);
    expect(upload.uses).toMatch(/^github\/codeql-action\/upload-sarif@v\d+$/);
    expect(upload.if).toMatch(/^always\(\)/);
    expect(upload.with!.sarif_file).toBe('${{ steps.check.outputs.sarif-file }}');
    // Inputs reach the script through env, never pasted into the script text.
    for (const step of action.runs.steps) expect(step.run ?? '', step.name).not.toMatch(/inputs\./);
    const documented = readFileSync(join(REPO_ROOT, 'docs', 'ci.md'), 'utf8');
    for (const input of Object.keys(action.inputs)) expect(documented, `docs/ci.md documents input ${input}`).toContain(`\`${input}\``);
  });
});

describe('the action run locally', () => {
  let server: SurfaceHttpServer;
  let fixtures: string;
  let contract: string;
  const urlOf = (name: string) => (server.target(name) as { url: URL }).url.href;
  beforeAll(async () => {
    server = await startSurfaceHttp({
      baseline: baselineSurface(),
      renamed: mutate(baselineSurface(), (s) => void (s.tools[1]!.name = 'b2_bucket_delete')),
    });
    fixtures = await snapshotFixtures(server.target('baseline'));
    contract = writeContract(fixtures);
  });
  afterAll(() => {
    server?.stop();
    removeTempDirs();
  });

  it('a drifted server: annotations, valid SARIF, the summary, outputs, and a failing verdict', () => {
    const { check, verdict, uploads } = runAction({ url: urlOf('renamed'), fixtures, contract });
    expect(check.status, check.stderr).toBe(0); // the check step never fails: the upload must still run
    expect(check.outputs['exit-code']).toBe('1');
    expect(check.stdout).toMatch(/^::error [^\n]*title=diff\/tool-renamed/m);
    const sarif = JSON.parse(readFileSync(check.outputs['sarif-file']!, 'utf8'));
    expect(validateSarif(sarif), JSON.stringify(validateSarif.errors)).toBe(true);
    expect(sarif.runs[0].results.map((result: { ruleId: string }) => result.ruleId)).toContain('diff/tool-renamed');
    expect(check.summary).toBe(readFileSync(join(check.outputs['report-dir']!, 'b2-mcp-conform.md'), 'utf8'));
    expect(check.summary).toContain('diff/tool-renamed');
    expect(JSON.parse(readFileSync(check.outputs['report-file']!, 'utf8')).verdict).toBe('fail');
    expect(existsSync(join(check.outputs['report-dir']!, 'b2-mcp-conform.xml'))).toBe(true);
    expect(uploads).toBe(true);
    expect(verdict.status).toBe(1);
  });

  it('fail-on and a passing server: exit 0 all the way through', () => {
    const { check, verdict } = runAction({ url: urlOf('baseline'), fixtures, contract, 'fail-on': 'warning' });
    expect(check.outputs['exit-code'], check.stderr).toBe('0');
    const sarif = JSON.parse(readFileSync(check.outputs['sarif-file']!, 'utf8'));
    expect(validateSarif(sarif), JSON.stringify(validateSarif.errors)).toBe(true);
    expect(check.summary).toMatch(/PASS|pass/);
    expect(verdict.status).toBe(0);
  });

  it('lint: true lints the workspace checkout in the same report; a path lints that checkout, findings at their file and line', () => {
    const clean = runAction({ probes: 'false', lint: 'true' });
    expect(clean.check.outputs['exit-code'], clean.check.stderr).toBe('0');
    expect(JSON.parse(readFileSync(clean.check.outputs['report-file']!, 'utf8')).evidence.lint).toMatchObject({
      root: REPO_ROOT,
      fixturesDir: 'fixtures/tool-contract',
    });
    const checkout = writeCheckout();
    checkout.edit('skills/cleanup/SKILL.md', '`b2_list_largest_files`', '`b2_largest_files`');
    const { check, verdict } = runAction({ probes: 'false', lint: checkout.root });
    expect(check.outputs['exit-code'], check.stderr).toBe('1');
    const sarif = JSON.parse(readFileSync(check.outputs['sarif-file']!, 'utf8'));
    expect(validateSarif(sarif), JSON.stringify(validateSarif.errors)).toBe(true);
    const result = sarif.runs[0].results.find((entry: { ruleId: string }) => entry.ruleId === 'lint/retired-tool-name');
    expect(result.locations[0].physicalLocation.region.startLine).toBe(3);
    expect(result.locations[0].physicalLocation.artifactLocation.uri).toMatch(/skills\/cleanup\/SKILL\.md$/);
    expect(verdict.status).toBe(1);
  });

  it('the bundled server without probes passes the default profile', () => {
    const { check, verdict } = runAction({ probes: 'false' });
    expect(check.outputs['exit-code'], check.stderr).toBe('0');
    expect(JSON.parse(readFileSync(check.outputs['report-file']!, 'utf8')).evidence).toMatchObject({ profile: 'default' });
    expect(verdict.status).toBe(0);
  });

  it('a usage mistake: exit 2, no SARIF to upload, and the verdict fails', () => {
    const { check, verdict, uploads } = runAction({ env: 'B2_MCP_PROFILE=default\n', url: urlOf('baseline') });
    expect(check.outputs['exit-code']).toBe('2');
    expect(check.stderr).toMatch(/--env needs --server/);
    expect(check.outputs['sarif-file']).toBeUndefined();
    expect(uploads).toBe(false);
    expect(verdict.status).toBe(2);
  });

  it('env lines become --env for the server (a NAME alone comes from the step environment); bad probes input is refused', () => {
    const surface = join(tempDir(), 'surface.json');
    writeFileSync(surface, JSON.stringify(baselineSurface()));
    const server = `"${process.execPath}" tests/support/servers/surface-server.mjs stdio "${surface}"`;
    const { check } = runAction({ server, env: '  # a comment\nB2_MCP_PROFILE=default\n\nHOME\n', fixtures, contract, probes: 'false' });
    expect(check.outputs['exit-code'], check.stderr).toBe('0');
    const report = JSON.parse(readFileSync(check.outputs['report-file']!, 'utf8'));
    expect(report.evidence.target.env).toEqual(['B2_MCP_PROFILE', 'HOME']);
    const refused = runStep(stepNamed(/check$/), { probes: 'sometimes' }, { temp: tempDir() });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/input probes must be auto, true or false/);
  });
});

describe('the GitLab CI recipe in docs/ci.md', () => {
  const block = /```yaml\n# \.gitlab-ci\.yml\n([\s\S]*?)```/.exec(readFileSync(join(REPO_ROOT, 'docs', 'ci.md'), 'utf8'))![1]!;
  const job = (parse(block) as Record<string, { script: string[]; artifacts: { reports: Record<string, string> } }>)['b2-mcp-contract']!;

  it('runs as written (after its npm ci and build): JUnit, and a code-quality report with one issue per SARIF result', () => {
    expect(job.script[0]).toBe('npm ci && npm run build');
    const dir = tempDir();
    symlinkSync(join(REPO_ROOT, 'dist'), join(dir, 'dist'));
    const run = spawnSync('bash', ['-c', job.script.slice(1).join('\n')], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: dir },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(readFileSync(join(dir, job.artifacts.reports.junit!), 'utf8')).toMatch(/^<\?xml/);
    const sarif = JSON.parse(readFileSync(join(dir, 'reports', 'conform.sarif'), 'utf8'));
    const issues = JSON.parse(readFileSync(join(dir, job.artifacts.reports.codequality!), 'utf8')) as Array<{ check_name: string }>;
    expect(issues.map((issue) => issue.check_name)).toEqual(sarif.runs[0].results.map((result: { ruleId: string }) => result.ruleId));
  });

  it('its conversion turns each SARIF result into a Code Climate issue', async () => {
    const server = await startSurfaceHttp({
      baseline: baselineSurface(),
      renamed: mutate(baselineSurface(), (s) => void (s.tools[1]!.name = 'b2_bucket_delete')),
    });
    try {
      const fixtures = await snapshotFixtures(server.target('baseline'));
      const contract = writeContract(fixtures);
      const { check } = runAction({ url: (server.target('renamed') as { url: URL }).url.href, fixtures, contract });
      const sarif = JSON.parse(readFileSync(check.outputs['sarif-file']!, 'utf8'));
      const dir = tempDir();
      mkdirSync(join(dir, 'reports'));
      writeFileSync(join(dir, 'reports', 'conform.sarif'), JSON.stringify(sarif));
      const convert = job.script.find((line) => line.startsWith('node -e'))!;
      const run = spawnSync('bash', ['-c', convert], { cwd: dir, encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      const issues = JSON.parse(readFileSync(join(dir, 'reports', 'gl-code-quality.json'), 'utf8')) as Array<Record<string, any>>;
      expect(issues).toHaveLength(sarif.runs[0].results.length);
      expect(issues.find((issue) => issue.check_name === 'diff/tool-renamed')).toMatchObject({
        type: 'issue',
        severity: 'major',
        location: { path: expect.stringMatching(/\.json$/), lines: { begin: expect.any(Number) } },
      });
      expect(new Set(issues.map((issue) => issue.fingerprint)).size).toBe(issues.length);
    } finally {
      server.stop();
    }
  });
});
