import { Chalk } from 'chalk';
import { SEVERITIES, subjectOf, type Finding, type Severity } from '../findings.js';
import type { RunResult } from '../run.js';
import { evidenceLines } from './evidence-lines.js';
import { terminalSafe as t } from './escape/terminal.js';
import { configLine, countsLine, type Verdict } from './verdict.js';

const MARK: Record<Severity, string> = { error: '✖', warning: '⚠', info: 'ℹ' };

/** Human-readable report: findings grouped by severity, then the evidence block and the verdict. */
export function renderPretty(result: RunResult, verdict: Verdict, options: { color: boolean }): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const paint: Record<Severity, (text: string) => string> = { error: c.red, warning: c.yellow, info: c.blue };
  const out: string[] = [];
  const { evidence } = result;
  out.push(c.bold(`b2-mcp-conform ${evidence.command}${evidence.profile ? ` · profile ${t(evidence.profile)}` : ''}`), '');

  const active = result.findings.filter((finding) => !finding.suppressed);
  if (active.length === 0) out.push(c.green('No findings.'), '');
  for (const severity of SEVERITIES) {
    const group = active.filter((finding) => finding.severity === severity);
    if (group.length === 0) continue;
    out.push(paint[severity](c.bold(`${MARK[severity]} ${group.length} ${severity}${group.length === 1 || severity === 'info' ? '' : 's'}`)));
    for (const finding of group) out.push(...findingLines(finding, c), '');
  }
  const suppressed = result.findings.filter((finding) => finding.suppressed);
  if (suppressed.length > 0) {
    out.push(c.dim(`${suppressed.length} suppressed:`));
    for (const finding of suppressed) out.push(c.dim(`  ${t(finding.ruleId)} ${t(subjectOf(finding) ?? '')} — ${t(finding.suppressed!.reason)}`));
    out.push('');
  }

  out.push(c.bold('Evidence'));
  for (const [label, value] of evidenceLines(evidence)) out.push(`  ${c.dim(`${t(label)}:`)} ${t(value)}`);
  out.push('');
  const status = verdict.failed ? c.red(c.bold('FAIL')) : c.green(c.bold('PASS'));
  out.push(`${status} ${countsLine(verdict)} (fail-on ${verdict.failOn}) · ${t(configLine(evidence.config))}`);
  return `${out.join('\n')}\n`;
}

function findingLines(finding: Finding, c: InstanceType<typeof Chalk>): string[] {
  const where = [subjectOf(finding), finding.scopes.length ? `(${finding.scopes.join(', ')})` : ''].filter(Boolean).join(' ');
  const lines = [`  ${c.bold(t(finding.ruleId))}${finding.class ? c.dim(` [${finding.class}]`) : ''}  ${t(where)}`, `    ${t(finding.message)}`];
  if (finding.path) lines.push(`    ${c.dim('at')} ${t(finding.path)}`);
  lines.push(`    ${c.dim('fix:')} ${t(finding.fix)}`, `    ${c.dim(t(finding.doc))}`);
  return lines;
}
