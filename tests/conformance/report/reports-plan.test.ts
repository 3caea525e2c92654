import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ConformError } from '../../../src/conformance/errors.js';
import { reportPlan } from '../../../src/conformance/report/plan.js';
import { runCli, tempDir, removeTempDirs } from '../../support/checker-harness.js';

afterAll(() => removeTempDirs());

function usageError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConformError);
    expect((error as ConformError).exitCode).toBe(2);
    return (error as Error).message;
  }
  throw new Error('expected a usage error');
}

describe('each report names its file', () => {
  test('NAME=FILE pairs explicitly, a bare NAME goes to stdout, the default is pretty on stdout', () => {
    expect(reportPlan(['github', 'sarif=r/c.sarif', 'markdown=r/c.md', 'junit=r/c.xml'])).toEqual([
      { format: 'github', file: null },
      { format: 'sarif', file: 'r/c.sarif' },
      { format: 'markdown', file: 'r/c.md' },
      { format: 'junit', file: 'r/c.xml' },
    ]);
    expect(reportPlan([])).toEqual([{ format: 'pretty', file: null }]);
    expect(reportPlan(['sarif=a.sarif.json', 'json=b.json', 'pretty=c.txt'])).toEqual([
      { format: 'sarif', file: 'a.sarif.json' },
      { format: 'json', file: 'b.json' },
      { format: 'pretty', file: 'c.txt' },
    ]);
  });

  test('--output goes only with one single bare --format (or the default pretty)', () => {
    expect(reportPlan(['sarif'], ['c.sarif'])).toEqual([{ format: 'sarif', file: 'c.sarif' }]);
    expect(reportPlan([], ['report.txt'])).toEqual([{ format: 'pretty', file: 'report.txt' }]);
  });

  test('the positional trap is refused: --output beside several formats', () => {
    // The old recipe: github to the log, then three formats paired by position.
    expect(usageError(() => reportPlan(['github', 'sarif', 'markdown', 'junit'], ['c.sarif', 'c.md', 'c.xml']))).toMatch(
      /--output is ambiguous.*--format sarif=conform\.sarif/,
    );
    expect(usageError(() => reportPlan(['sarif', 'pretty'], ['c.sarif']))).toMatch(/--output is ambiguous/);
    expect(usageError(() => reportPlan(['sarif=c.sarif'], ['d.sarif']))).toMatch(/--output is ambiguous/);
    expect(usageError(() => reportPlan(['sarif'], ['a.sarif', 'b.sarif']))).toMatch(/--output is ambiguous/);
  });

  test('a file whose extension names another format is refused', () => {
    expect(usageError(() => reportPlan(['github=c.sarif']))).toMatch(
      /c\.sarif looks like a sarif file but would receive the github report/,
    );
    expect(usageError(() => reportPlan(['sarif=c.md']))).toMatch(/looks like a markdown file/);
    expect(usageError(() => reportPlan(['markdown=c.xml']))).toMatch(/looks like a junit file/);
    expect(usageError(() => reportPlan(['json=c.sarif.json']))).toMatch(/looks like a sarif file/);
    expect(usageError(() => reportPlan(['sarif'], ['c.xml']))).toMatch(/looks like a junit file/);
    expect(usageError(() => reportPlan(['markdown=review.html']))).toMatch(/looks like a html file/);
    expect(reportPlan(['html=review.html'])).toEqual([{ format: 'html', file: 'review.html' }]);
  });

  test('two reports into one file, two to stdout, unknown or empty names are refused', () => {
    expect(usageError(() => reportPlan(['json=r.json', 'sarif=./r.json'], [], '/x'))).toMatch(
      /r\.json would receive both the json and the sarif report/,
    );
    expect(usageError(() => reportPlan(['json', 'sarif']))).toMatch(/only one --format can go to stdout/);
    expect(usageError(() => reportPlan(['yaml=r.yaml']))).toMatch(/unknown --format "yaml"/);
    expect(usageError(() => reportPlan(['sarif=']))).toMatch(/names no file/);
  });
});

test('the CLI refuses an ambiguous plan with exit 2 before it starts anything, and writes nothing', async () => {
  const dir = tempDir();
  const outcome = await runCli([
    'check',
    '--server',
    'never-started-binary',
    '--format',
    'github',
    '--format',
    'sarif',
    '--output',
    join(dir, 'c.sarif'),
    '--format',
    'markdown',
    '--output',
    join(dir, 'c.md'),
  ]);
  expect(outcome.code).toBe(2);
  expect(outcome.stderr).toMatch(/^b2-mcp-conform: error: --output is ambiguous/);
  expect(existsSync(join(dir, 'c.sarif'))).toBe(false);
  // The error line is JSON only when the JSON report goes to stdout, where a machine reads it.
  const toFile = await runCli(['diff', dir, dir, '--format', `json=${join(dir, 'r.json')}`, '--format', 'pretty', '--format', 'github']);
  expect(toFile.stderr).toMatch(/^b2-mcp-conform: error: only one --format can go to stdout/);
  const toStdout = await runCli(['diff', dir, dir, '--format', 'json', '--format', 'pretty']);
  expect(JSON.parse(toStdout.stderr).error.code).toBe('usage');
  const diff = await runCli(['diff', dir, dir, '--format', 'sarif=report.md']);
  expect(diff.code).toBe(2);
  expect(diff.stderr).toMatch(/report\.md looks like a markdown file/);
});
