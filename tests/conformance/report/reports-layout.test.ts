import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Evidence } from '../../../src/conformance/report/evidence.js';
import { sortFindings, type Finding } from '../../../src/conformance/rules/findings.js';
import { render } from '../../../src/conformance/report/index.js';
import { MARKDOWN_LIMIT } from '../../../src/conformance/report/markdown.js';
import { summarize } from '../../../src/conformance/report/summary.js';
import { compactDiff, wordDiff } from '../../../src/conformance/report/word-diff.js';
import { loadRules } from '../../../src/conformance/rules/engine.js';
import type { RunResult } from '../../../src/conformance/report/evidence.js';
import { emptyEvidence, findingOf } from '../../support/report-input.js';

const rules = loadRules();

const EVIDENCE: Evidence = emptyEvidence({
  command: 'check',
  versions: { 'b2-mcp-conform': '0.0.0', node: 'v20' },
  profile: 'full',
  rulesEvaluated: rules.rules.length,
  durationMs: 1500,
});

const LONG =
  'Lists the objects of a bucket page by page, with prefix and delimiter filters, returning keys, sizes, timestamps and storage classes for each entry it finds. '.repeat(
    3,
  );

/** As `check` reports it: a frozen-surface change at its frozen severity. */
function finding(ruleId: string, tool: string, path: string, extra: Partial<Finding> = {}): Finding {
  const rule = rules.byId.get(ruleId)!;
  return findingOf(rules, ruleId, tool, {
    severity: rule.frozenSeverity ?? rule.severity,
    message: `${ruleId} on ${tool} at ${path}: ${LONG.slice(0, 180)}`,
    path,
    scopes: ['modern', 'legacy'],
    profile: 'full',
    ...extra,
  });
}

/** A fork's report the size of a real one: 43 tools, 10 findings each, a description change in each. */
function forkResult(): RunResult {
  const findings: Finding[] = [];
  for (let index = 0; index < 43; index++) {
    const tool = `b2_tool_number_${String(index).padStart(2, '0')}`;
    findings.push(
      finding('diff/description-changed', tool, 'description', {
        text: { before: LONG, after: LONG.replace('page by page', 'in one go').replace('storage classes', 'owners') },
      }),
    );
    for (let property = 0; property < 6; property++)
      findings.push(finding('diff/bounds-loosened', tool, `inputSchema.properties.p${property}.maximum`));
    findings.push(finding('diff/property-added', tool, 'inputSchema.properties.extra'));
    findings.push(finding('description/length', tool, 'description'));
    findings.push(finding('diff/default-changed', tool, 'inputSchema.properties.p0.default'));
  }
  return { findings: sortFindings(findings), evidence: EVIDENCE, rules, evaluated: rules.rules.map((rule) => rule.id) };
}

describe('a fork with 430 findings', () => {
  const result = forkResult();
  const pretty = render('pretty', result, { failOn: 'error', color: false });
  const verbose = render('pretty', result, { failOn: 'error', color: false, verbose: true });

  test('the summary counts by class, rule and tool', () => {
    const summary = summarize(result.findings);
    expect(summary.total).toBe(430);
    expect(summary.byClass).toEqual({ breaking: 0, 'non-breaking': 344, info: 43, other: 43 });
    expect(summary.byRule[0]).toEqual(['diff/bounds-loosened', 258]);
    expect(summary.byTool).toHaveLength(43);
    expect(pretty).toMatch(
      /^Summary: 430 findings\n {2}by class: 0 breaking, 344 non-breaking, 43 info changes; 43 other findings\n {2}by rule: {2}diff\/bounds-loosened 258 · /m,
    );
  });

  test('pretty fits in 400 lines, shows every tool, says what it left out; --verbose shows all of it', () => {
    const lines = pretty.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(400);
    for (let index = 0; index < 43; index++) expect(pretty).toContain(`b2_tool_number_${String(index).padStart(2, '0')} (10)`);
    expect(pretty).toMatch(/… \d+ more \(--verbose shows all\)/);
    expect(lines.at(-1)).toMatch(/^FAIL /);
    expect(lines.at(-2)).toMatch(/^\d+ findings not shown; --verbose lists every one/);
    const headers = (text: string) => text.split('\n').filter((line) => /^ {4}[✖⚠ℹ] [a-z-]+\/[a-z-]+/.test(line)).length;
    expect(headers(verbose)).toBe(430);
    expect(headers(pretty)).toBeLessThan(300);
    expect(verbose).toContain(LONG.slice(0, 180));
  });

  test('a description change is a word diff', () => {
    const changed: RunResult = { ...result, findings: result.findings.filter((entry) => entry.ruleId === 'diff/description-changed') };
    const compact = render('pretty', changed, { failOn: 'error', color: false });
    // Compact: a few words of context around each change; verbose: the whole text.
    expect(compact).toMatch(
      /^ {6}diff: Lists the objects of a bucket \[-page by page,-\]\{\+in one go,\+\} with prefix and delimiter filters, returning keys, sizes, timestamps and \[-storage classes-\]\{\+owners\+\} for each entry it finds\. Lists…$/m,
    );
    expect(compact.length).toBeLessThan(render('pretty', changed, { failOn: 'error', color: false, verbose: true }).length);
    expect(verbose).toMatch(/\[-storage classes-\]\{\+owners\+\}/);
    expect(render('pretty', changed, { failOn: 'error', color: true })).toMatch(
      /\x1b\[31m\[-page by page,-\]\x1b\[39m\x1b\[32m\{\+in one go,\+\}/,
    );
  });

  test('Markdown stays under the comment limit and points at the full report', () => {
    const markdown = render('markdown', result, { failOn: 'error', color: false, fullReport: 'reports/conform.sarif' });
    expect(markdown.length).toBeLessThan(MARKDOWN_LIMIT);
    expect(markdown).toMatch(
      /^> \*\*\d+ more findings not shown\*\* to keep this comment under 60,000 characters: see the full report in `reports\/conform\.sarif`\.$/m,
    );
    expect(markdown).toContain('<del>page by page,</del><ins>in one go,</ins>');
    const unnamed = render('markdown', result, { failOn: 'error', color: false, verbose: true });
    expect(unnamed.length).toBeLessThan(MARKDOWN_LIMIT);
    expect(unnamed).toMatch(/run with `--format json=FILE` or `--format sarif=FILE`/);
    const small: RunResult = { ...result, findings: result.findings.slice(0, 5) };
    expect(render('markdown', small, { failOn: 'error', color: false })).not.toMatch(/not shown/);
  });
});

test('a server that sends megabytes of name, description and serverInfo still gets a bounded report', () => {
  const huge = 'x'.repeat(1_000_000);
  const result: RunResult = {
    findings: [
      finding('description/length', `b2_${huge}`, 'description', { message: `Tool b2_${huge} is long` }),
      ...Array.from({ length: 200 }, (_, index) => finding('naming/sorted', `b2_t${index}`, '', { suppressed: { reason: huge } })),
    ],
    evidence: { ...EVIDENCE, target: { transport: 'stdio', server: huge } },
    rules,
    evaluated: [],
  };
  for (const verbose of [false, true]) {
    const markdown = render('markdown', result, { failOn: 'error', color: false, verbose });
    expect(markdown.length, `verbose ${verbose}`).toBeLessThan(MARKDOWN_LIMIT);
  }
  const pretty = render('pretty', result, { failOn: 'error', color: false });
  expect(Math.max(...pretty.split('\n').map((line) => line.length))).toBeLessThan(2_000);
  expect(render('pretty', result, { failOn: 'error', color: false, verbose: true }).length).toBeGreaterThan(1_000_000);
});

describe('word diff', () => {
  test('joining the kept and added parts gives the after text; kept and removed, the before text', () => {
    const words = fc.array(fc.constantFrom('a', 'b', 'c', 'bucket', 'key', 'ä'), { maxLength: 25 }).map((list) => list.join(' '));
    fc.assert(
      fc.property(words, words, (before, after) => {
        const parts = wordDiff(before, after)!;
        const side = (kind: string) =>
          parts
            .filter((part) => part.kind === 'same' || part.kind === kind)
            .map((part) => part.text)
            .join('');
        return side('added').trim() === after.trim() && side('removed').trim() === before.trim();
      }),
      { numRuns: 300 },
    );
  });

  test('only the changed words are marked, and long unchanged runs are cut to context', () => {
    expect(wordDiff('list the buckets now', 'list all buckets now')).toEqual([
      { kind: 'same', text: 'list ' },
      { kind: 'removed', text: 'the' },
      { kind: 'added', text: 'all' },
      { kind: 'same', text: ' buckets now' },
    ]);
    const long = `${'word '.repeat(40)}end`;
    const parts = compactDiff(wordDiff(`${long} old`, `${long} new`)!);
    expect(parts[0]!.text).toBe(`… ${'word '.repeat(5)}end `);
    expect(parts.slice(1)).toEqual([
      { kind: 'removed', text: 'old' },
      { kind: 'added', text: 'new' },
    ]);
    expect(wordDiff('x '.repeat(4000), 'y')).toBeNull();
  });
});
