import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderBenchmarksDoc } from '../../scripts/benchmarks-doc.js';
import { TARGETS, verdictOf, type Target } from '../../scripts/benchmark-targets.js';

const ROOT = join(import.meta.dirname, '..', '..');
const results = JSON.parse(readFileSync(join(ROOT, 'bench', 'results', 'latest.json'), 'utf8')) as {
  sections: Record<string, Record<string, unknown>>;
};

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name.startsWith('.') || name === 'dist' ? [] : markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

const bounded = (op: '<=' | '>=' | '=', limit: number | boolean): Target => ({
  figure: 'x',
  section: 'x',
  shown: () => '',
  value: (s) => s.v as number,
  bound: { op, limit, text: '' },
});

describe('benchmark page', () => {
  it('is exactly the rendering of bench/results/latest.json', () => {
    expect(readFileSync(join(ROOT, 'docs', 'benchmarks.md'), 'utf8')).toBe(renderBenchmarksDoc(results));
  });

  it('marks every target row met or missed from the figure in the results file', () => {
    const doc = renderBenchmarksDoc(results);
    for (const target of TARGETS.filter((t) => t.bound)) {
      const line = doc.split('\n').find((l) => l.startsWith(`| ${target.figure} |`));
      expect(line, target.figure).toBeDefined();
      const verdict = verdictOf(target, results.sections[target.section]);
      expect(line).toContain(verdict === 'met' ? '✅ met' : verdict === 'missed' ? '❌ missed' : 'not measured');
    }
  });

  it('names the static check as measured without probes', () => {
    expect(TARGETS.filter((t) => t.section === 'conform').every((t) => /--no-probes|same run/.test(t.figure))).toBe(true);
    expect(renderBenchmarksDoc(results)).toContain('`check --profile default --no-probes --format json`');
  });

  it('judges bounds at the limit and one step past it', () => {
    expect(verdictOf(bounded('<=', 10), { v: 10 })).toBe('met');
    expect(verdictOf(bounded('<=', 10), { v: 10.01 })).toBe('missed');
    expect(verdictOf(bounded('>=', 200), { v: 200 })).toBe('met');
    expect(verdictOf(bounded('>=', 200), { v: 199 })).toBe('missed');
    expect(verdictOf(bounded('=', 0), { v: 0 })).toBe('met');
    expect(verdictOf(bounded('=', 0), { v: 1 })).toBe('missed');
    expect(verdictOf(bounded('=', true), { v: false as unknown as number })).toBe('missed');
    expect(verdictOf(bounded('<=', 10), {})).toBe('not measured');
    expect(verdictOf(bounded('<=', 10), undefined)).toBe('not measured');
    expect(verdictOf({ ...bounded('<=', 1), bound: undefined } as Target, { v: 1 })).toBe('no target');
  });
});

describe('docs carry no hand-typed measurements', () => {
  // A measured figure: a number with a time, size or rate unit in a sentence that says it was measured.
  const MEASURED = /(median|measured|~\d|took|about \d)[^.\n|]{0,80}\b\d[\d,.]*\s?(ms|s|MB|MB\/s|req\/s|files\/s)\b/i;
  const files = markdownFiles(ROOT).filter((file) => !file.endsWith(join('docs', 'benchmarks.md')) && !file.includes(`${join('tests')}`));

  it.each(files.map((file) => [relative(ROOT, file), file]))('%s quotes benchmark figures only from docs/benchmarks.md', (_name, file) => {
    const hits = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => MEASURED.test(line));
    expect(hits).toEqual([]);
  });

  it('the pattern catches a hand-typed figure', () => {
    expect(MEASURED.test('Measured on this machine: `check` median 1.03 s')).toBe(true);
    expect(MEASURED.test('The default timeout is 10,000 ms.')).toBe(false);
  });
});
