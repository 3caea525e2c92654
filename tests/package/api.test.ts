/**
 * The programmatic API (the package's main entry) and the toPassContract matcher: the same report
 * as `--format json`, thrown ConformErrors instead of exit codes, nothing printed.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { check, ConformError, diff, EXIT, lint, loadRules, snapshot, type ConformanceReport } from '../../src/index.js';
import { contractMatchers, toPassContract } from '../../src/vitest.js';
import { baselineSurface } from '../support/baseline.js';
import { writeCheckout } from '../support/checkout.js';
import {
  mutate,
  removeTempDirs,
  runCli,
  snapshotFixtures,
  startSurfaceHttp,
  tempDir,
  writeContract,
  type SurfaceHttpServer,
} from '../support/checker-harness.js';
import { reportSchemaValidator } from '../support/report-schema.js';

expect.extend(contractMatchers);
declare module 'vitest' {
  interface Assertion {
    toPassContract(): void;
  }
}

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

/** What differs between two runs of the same check: timings. */
function withoutTimings(report: unknown): unknown {
  return JSON.parse(JSON.stringify(report, (key, value) => (key === 'durationMs' || key === 'timings' ? undefined : value)));
}

describe('check', () => {
  it('returns the report --format json prints, valid against the documented schema', async () => {
    const report = await check({ url: urlOf('renamed'), fixtures, contract });
    const cli = await runCli(['check', '--url', urlOf('renamed'), '--fixtures', fixtures, '--contract', contract, '--format', 'json']);
    expect(cli.code).toBe(EXIT.findings);
    expect(withoutTimings(report)).toEqual(withoutTimings(JSON.parse(cli.stdout)));
    expect(report.verdict).toBe('fail');
    expect(report.findings.map((finding) => finding.ruleId)).toContain('diff/tool-renamed');
    const validate = reportSchemaValidator();
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
  });

  it('prints nothing and leaves the exit code alone, even for a failing server', async () => {
    const stdout = vi.spyOn(process.stdout, 'write');
    const stderr = vi.spyOn(process.stderr, 'write');
    const exit = vi.spyOn(process, 'exit');
    try {
      const report = await check({ url: urlOf('renamed'), fixtures, contract, failOn: 'error' });
      expect(report.verdict).toBe('fail');
      expect(stdout).not.toHaveBeenCalled();
      expect(stderr).not.toHaveBeenCalled();
      expect(exit).not.toHaveBeenCalled();
      expect(process.exitCode ?? 0).toBe(0);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('a conforming server passes at the default failOn', async () => {
    const pass = await check({ url: urlOf('baseline'), fixtures, contract });
    expect(pass).toMatchObject({ verdict: 'pass', failOn: 'error', command: 'check' });
    expect(pass.summary.error).toBe(0);
  });

  it('throws a ConformError with the CLI exit code instead of exiting', async () => {
    await expect(check({ server: 'x', url: urlOf('baseline') })).rejects.toMatchObject({
      name: 'ConformError',
      code: 'usage',
      exitCode: EXIT.usage,
    });
    await expect(check({ url: urlOf('baseline'), fixtures: '/nonexistent/fixtures', contract })).rejects.toBeInstanceOf(ConformError);
    await expect(check({ url: 'http://127.0.0.1:1/mcp', fixtures, contract, timeoutMs: 2000 })).rejects.toMatchObject({
      code: 'connect',
      exitCode: EXIT.connect,
    });
    await expect(check({ profile: 'everything' })).rejects.toMatchObject({
      code: 'usage',
      message: expect.stringContaining('unknown profile'),
    });
    await expect(check({ url: urlOf('baseline'), failOn: 'fatal' as never })).rejects.toMatchObject({ code: 'usage' });
  });
});

describe('diff, snapshot, loadRules', () => {
  it('snapshot writes the fixtures; diff compares them like the CLI', async () => {
    const out = tempDir();
    const { written } = await snapshot({ url: urlOf('renamed'), out });
    expect(written.map((entry) => entry.file).sort()).toEqual([join(out, 'default.legacy.json'), join(out, 'default.modern.json')]);
    expect(written.every((entry) => existsSync(entry.file))).toBe(true);

    const report = await diff({ before: fixtures, after: out });
    const cli = await runCli(['diff', fixtures, out, '--format', 'json']);
    expect(withoutTimings(report)).toEqual(withoutTimings(JSON.parse(cli.stdout)));
    expect(report).toMatchObject({ command: 'diff', verdict: 'fail' });
    expect((await diff({ before: fixtures, after: fixtures })).verdict).toBe('pass');
  });

  it('loadRules gives every bundled rule, validated; a bad directory is a ConformError', () => {
    const { rules } = loadRules();
    expect(rules.length).toBeGreaterThan(20);
    expect(new Set(rules.map((rule) => rule.id)).size).toBe(rules.length);
    expect(rules.every((rule) => rule.id && rule.severity && rule.doc)).toBe(true);
    expect(() => loadRules('/nonexistent/rules')).toThrow();
  });
});

describe('lint', () => {
  it('returns the report lint --format json prints; a directory that is not a checkout is a ConformError', async () => {
    const checkout = writeCheckout();
    checkout.edit('README.md', 'the `read-only` (4) profile', 'the `read-only` (3) profile');
    const report = await lint({ dir: checkout.root, config: false });
    const cli = await runCli(['lint', checkout.root, '--no-config', '--format', 'json']);
    expect(cli.code).toBe(EXIT.findings);
    expect(withoutTimings(report)).toEqual(withoutTimings(JSON.parse(cli.stdout)));
    expect(report.findings.map((finding) => [finding.ruleId, finding.location])).toEqual([
      ['lint/prose-tool-count', { file: 'README.md', line: 3 }],
    ]);
    await expect(lint({ dir: tempDir() })).rejects.toMatchObject({ name: 'ConformError', code: 'usage', exitCode: EXIT.usage });
    await expect(check({ lint: checkout.root, onlyProbes: true })).rejects.toMatchObject({
      code: 'usage',
      message: expect.stringContaining('onlyProbes or lint'),
    });
  });
});

describe('toPassContract', () => {
  let failing: ConformanceReport;
  beforeAll(async () => {
    failing = await check({ url: urlOf('renamed'), fixtures, contract });
  });

  it('passes a passing report and fails a failing one, naming the findings', async () => {
    expect(await check({ url: urlOf('baseline'), fixtures, contract })).toPassContract();
    expect(failing).not.toPassContract();
    const result = toPassContract(failing);
    expect(result.pass).toBe(false);
    expect(result.message()).toMatch(/^expected the server to pass the contract \(fail on error\): \d+ errors/);
    expect(result.message()).toContain('diff/tool-renamed');
  });

  it('runs the check itself when given check options', async () => {
    await expect(toPassContract({ url: urlOf('baseline'), fixtures, contract })).resolves.toMatchObject({ pass: true });
    await expect(toPassContract({ url: urlOf('renamed'), fixtures, contract })).resolves.toMatchObject({ pass: false });
  });

  it('keeps server-chosen control characters out of the message', () => {
    const hostile: ConformanceReport = {
      ...failing,
      findings: [{ ...failing.findings[0]!, tool: 'evil\u001b[2J', message: 'line\nbreak \u202e' }],
    };
    const message = toPassContract(hostile).message();
    expect(message).not.toMatch(/[\u001b\u202e]/);
    expect(message).toContain('evil\\x1b[2J');
    expect(message.split('\n')).toHaveLength(2);
  });
});
