import { subjectOf, type Finding, type Severity } from '../findings.js';
import type { RunResult } from '../run.js';
import { evidenceLines } from './evidence-lines.js';
import { markdownCode, markdownText } from './escape/markdown.js';
import { configLine, countsLine, type Verdict } from './verdict.js';

const ICON: Record<Severity, string> = { error: '🔴', warning: '🟡', info: '🔵' };

const code = (text: string) => markdownCode(text, { table: true });

function subjectCell(finding: Finding): string {
  const subject = subjectOf(finding);
  return subject ? code(subject) : '';
}

/** A compact pull-request comment: verdict, a findings table, the evidence in a collapsed block. */
export function renderMarkdown(result: RunResult, verdict: Verdict): string {
  const { evidence } = result;
  const out: string[] = [];
  out.push(`### b2-mcp-conform ${evidence.command}${evidence.profile ? ` · ${markdownCode(evidence.profile)}` : ''}: ${verdict.failed ? '❌ fail' : '✅ pass'}`, '');
  out.push(`${countsLine(verdict)} (fail-on \`${verdict.failOn}\`) · ${markdownText(configLine(evidence.config))}`, '');
  const active = result.findings.filter((finding) => !finding.suppressed);
  if (active.length > 0) {
    out.push('| | Rule | Tool | Path | Finding | Fix |', '| --- | --- | --- | --- | --- | --- |');
    for (const finding of active) {
      out.push(
        `| ${ICON[finding.severity]} | ${code(finding.ruleId)}${finding.class ? ` (${finding.class})` : ''} | ${subjectCell(finding)} | ${finding.path ? code(finding.path) : ''} | ${markdownText(finding.message)} | ${markdownText(finding.fix)} |`,
      );
    }
    out.push('');
  }
  const suppressed = result.findings.filter((finding) => finding.suppressed);
  if (suppressed.length > 0) {
    out.push(`<details><summary>${suppressed.length} suppressed</summary>`, '');
    for (const finding of suppressed) {
      const subject = subjectOf(finding);
      out.push(`- ${markdownCode(finding.ruleId)}${subject ? ` ${markdownCode(subject)}` : ''}: ${markdownText(finding.suppressed!.reason)}`);
    }
    out.push('', '</details>', '');
  }
  out.push('<details><summary>Evidence</summary>', '', '| | |', '| --- | --- |');
  for (const [label, value] of evidenceLines(evidence)) out.push(`| ${markdownText(label)} | ${markdownText(value)} |`);
  out.push('', '</details>', '');
  return out.join('\n');
}
