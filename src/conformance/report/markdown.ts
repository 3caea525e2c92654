import { subjectOf, type Finding, type Severity } from '../rules/findings.js';
import type { RunResult } from './evidence.js';
import { evidenceLines } from './evidence-lines.js';
import { markdownCode, markdownText } from './escape/markdown.js';
import { classLine, groupBySubject, summarize } from './summary.js';
import { classTag, markOf } from './marks.js';
import { bareStyle, shownText, styledText, textLabel } from './shown-text.js';
import { configLine, countsLine, type Verdict } from './verdict.js';

const ICON: Record<Severity, string> = { error: '🔴', warning: '🟡', info: '🔵' };

/** GitHub refuses comments over 65,536 characters; the report stays below this. */
export const MARKDOWN_LIMIT = 60_000;
/** Rows by rule and by tool in the summary. */
const TOP = 10;
/** Longest server-derived text in one cell without --verbose (names and evidence always). */
const CLIP = 300;
/** Suppressed findings listed. */
const LIST = 50;

const code = (text: string) => markdownCode(text, { table: true });
const clip = (text: string, verbose: boolean, limit = CLIP) => (verbose || text.length <= limit ? text : `${text.slice(0, limit)}…`);
/** Longest message without --verbose: room for a long path and both values of a change. */
const MESSAGE_CLIP = CLIP * 2;

export interface MarkdownOptions {
  verbose?: boolean;
  /** Where the complete report is (a JSON or SARIF file of the same run), for the overflow note. */
  fullReport?: string;
}

/**
 * A pull-request comment: the verdict, a summary (by class, rule and tool), the findings grouped
 * per tool with word diffs of changed descriptions, how to fix each rule, and the evidence
 * collapsed. Findings that would push it past MARKDOWN_LIMIT are left out with a note that says
 * how many and where the full report is.
 */
export function renderMarkdown(result: RunResult, verdict: Verdict, options: MarkdownOptions = {}): string {
  const verbose = options.verbose ?? false;
  const { evidence } = result;
  const head: string[] = [];
  head.push(
    `### b2-mcp-conform ${evidence.command}${evidence.profile ? ` · ${markdownCode(evidence.profile)}` : ''}: ${verdict.failed ? '❌ fail' : '✅ pass'}`,
    '',
  );
  head.push(`${countsLine(verdict)} (fail-on \`${verdict.failOn}\`) · ${markdownText(configLine(evidence.config))}`, '');
  const active = result.findings.filter((finding) => !finding.suppressed);
  if (active.length > 0) {
    const summary = summarize(active);
    const top = (rows: [string, number][]) =>
      `${rows
        .slice(0, TOP)
        .map(([key, count]) => `${markdownCode(clip(key, false))} ${count}`)
        .join(' · ')}${rows.length > TOP ? ` · +${rows.length - TOP} more` : ''}`;
    head.push(`**Summary:** ${summary.total} findings: ${classLine(summary)}.`, '');
    head.push(`- **By rule:** ${top(summary.byRule)}`);
    if (summary.byTool.length) head.push(`- **By tool** (${summary.byTool.length}): ${top(summary.byTool)}`);
    head.push('');
  }

  const tail: string[] = [];
  if (active.length > 0) {
    tail.push('<details><summary>How to fix</summary>', '');
    for (const ruleId of new Set(active.map((finding) => finding.ruleId))) {
      const example = active.find((finding) => finding.ruleId === ruleId)!;
      const rule = result.rules.byId.get(ruleId);
      tail.push(
        `- ${markdownCode(ruleId)}: ${markdownText(rule && !rule.fix.includes('{') ? rule.fix : example.fix)} (${markdownCode(example.doc)})`,
      );
    }
    tail.push('', '</details>', '');
  }
  const suppressed = result.findings.filter((finding) => finding.suppressed);
  if (suppressed.length > 0) {
    tail.push(`<details><summary>${suppressed.length} suppressed</summary>`, '');
    for (const finding of suppressed.slice(0, LIST)) {
      const subject = subjectOf(finding);
      tail.push(
        `- ${markdownCode(finding.ruleId)}${subject ? ` ${markdownCode(clip(subject, false))}` : ''}: ${markdownText(clip(finding.suppressed!.reason, false))}`,
      );
    }
    if (suppressed.length > LIST) tail.push(`- … ${suppressed.length - LIST} more`);
    tail.push('', '</details>', '');
  }
  tail.push('<details><summary>Evidence</summary>', '', '| | |', '| --- | --- |');
  for (const [label, value] of evidenceLines(evidence))
    tail.push(`| ${markdownText(clip(label, false))} | ${markdownText(clip(value, false))} |`);
  tail.push('', '</details>', '');

  const size = (lines: readonly string[]) => lines.reduce((sum, line) => sum + line.length + 1, 0);
  const reserve = 600; // the overflow note
  let budget = MARKDOWN_LIMIT - size(head) - size(tail) - reserve;
  const body: string[] = [];
  let left = active.length;
  for (const group of groupBySubject(active)) {
    const title = [
      `#### ${group.subject === null ? 'The server as a whole' : markdownCode(clip(group.subject, false))} (${group.findings.length})`,
      '',
      '| | Rule | Path | Finding |',
      '| --- | --- | --- | --- |',
    ];
    const rows = group.findings.map((finding) => findingRow(finding, verbose));
    if (size(title) + size(rows.slice(0, 1)) > budget) break;
    body.push(...title);
    budget -= size(title);
    for (const row of rows) {
      if (row.length + 1 > budget) break;
      body.push(row);
      budget -= row.length + 1;
      left--;
    }
    body.push('');
    budget -= 1;
  }
  if (left > 0) {
    const where = options.fullReport
      ? `the full report in ${markdownCode(options.fullReport)}`
      : `the full report (run with ${markdownCode('--format json=FILE')} or ${markdownCode('--format sarif=FILE')})`;
    body.push(
      `> **${left} more finding${left === 1 ? '' : 's'} not shown** to keep this comment under ${MARKDOWN_LIMIT.toLocaleString('en-US')} characters: see ${where}.`,
      '',
    );
  }
  return [...head, ...body, ...tail].join('\n');
}

/** Text inserted or deleted, as GitHub shows it (the text itself escaped). */
const MARKED = {
  same: markdownText,
  removed: (text: string) => `<del>${markdownText(text)}</del>`,
  added: (text: string) => `<ins>${markdownText(text)}</ins>`,
};

function findingRow(finding: Finding, verbose: boolean): string {
  let text = markdownText(clip(finding.message, verbose, MESSAGE_CLIP));
  const shown = shownText(finding, verbose ? undefined : CLIP * 2);
  if (shown)
    text += `<br>${shown.kind === 'diff' ? styledText(shown, MARKED) : `${textLabel(shown)}: ${styledText(shown, bareStyle(markdownText))}`}`;
  const tag = classTag(finding);
  return `| ${ICON[markOf(finding)]} | ${code(finding.ruleId)}${tag ? ` (${tag})` : ''} | ${finding.path ? code(clip(finding.path, verbose)) : ''} | ${text} |`;
}
