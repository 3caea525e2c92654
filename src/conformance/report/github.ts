import { subjectOf, type Severity } from '../rules/findings.js';
import type { RunResult } from './evidence.js';
import { evidenceLines } from './evidence-lines.js';
import { githubData as escapeData, githubProperty as escapeProperty, withoutCommands } from './escape/github.js';
import { locate } from './locations.js';
import { plainTextLine } from './shown-text.js';
import { verdictLine, type Verdict } from './verdict.js';

const COMMAND: Record<Severity, string> = { error: 'error', warning: 'warning', info: 'notice' };

/** GitHub Actions workflow commands: one annotation per unsuppressed finding, then a grouped evidence block. */
export function renderGithub(result: RunResult, verdict: Verdict): string {
  const out: string[] = [];
  for (const finding of result.findings) {
    if (finding.suppressed) continue;
    const location = locate(finding, result);
    const properties = [
      ...(location && !location.uri.startsWith('file:') ? [`file=${escapeProperty(location.uri)}`, `line=${location.line}`] : []),
      `title=${escapeProperty(`${finding.ruleId}${subjectOf(finding) ? ` ${subjectOf(finding)}` : ''}`)}`,
    ];
    const text = plainTextLine(finding, (value) => value);
    out.push(
      `::${COMMAND[finding.severity]} ${properties.join(',')}::${escapeData(`${finding.message}${finding.path ? ` (at ${finding.path})` : ''}.${text ? ` ${text}.` : ''} Fix: ${finding.fix}`)}`,
    );
  }
  out.push('::group::b2-mcp-conform evidence');
  out.push(...withoutCommands(evidenceLines(result.evidence).map(([label, value]) => `${escapeData(label)}: ${escapeData(value)}`)));
  out.push('::endgroup::');
  out.push(`b2-mcp-conform ${escapeData(verdictLine(verdict, result.evidence.config))}`);
  return `${out.join('\n')}\n`;
}
