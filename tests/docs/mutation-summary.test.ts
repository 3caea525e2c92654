import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const REPORT = join(ROOT, 'reports', 'mutation', 'mutation.json');

interface Report {
  files: Record<string, { mutants: { status: string }[] }>;
}

/** Stryker's score: detected (killed or timed out) over every valid mutant, uncovered ones included. */
function summaryRows(report: Report): string[] {
  return Object.entries(report.files)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([file, { mutants }]) => {
      const count = (status: string) => mutants.filter((mutant) => mutant.status === status).length;
      const detected = count('Killed') + count('Timeout');
      const valid = detected + count('Survived') + count('NoCoverage');
      const score = valid === 0 ? 'n/a' : `${((100 * detected) / valid).toFixed(1)}%`;
      return `| \`${file}\` | ${count('Killed')} | ${count('Timeout')} | ${count('Survived')} | ${count('NoCoverage')} | ${score} |`;
    });
}

it.runIf(existsSync(REPORT))('docs/testing.md shows the committed mutation report, per module', () => {
  const report = JSON.parse(readFileSync(REPORT, 'utf8')) as Report;
  const doc = readFileSync(join(ROOT, 'docs', 'testing.md'), 'utf8');
  const rows = doc.split('\n').filter((line) => line.startsWith('| `src/'));
  expect(rows).toEqual(summaryRows(report));
});
