import { subjectOf, type Severity } from '../findings.js';
import type { RunResult } from '../run.js';
import { evidenceLines } from './evidence-lines.js';
import { locate } from './locations.js';
import { countsLine, type Verdict } from './verdict.js';

const COMMAND: Record<Severity, string> = { error: 'error', warning: 'warning', info: 'notice' };

function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

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
    out.push(`::${COMMAND[finding.severity]} ${properties.join(',')}::${escapeData(`${finding.message}${finding.path ? ` (at ${finding.path})` : ''}. Fix: ${finding.fix}`)}`);
  }
  out.push('::group::b2-mcp-conform evidence');
  for (const [label, value] of evidenceLines(result.evidence)) out.push(`${label}: ${value}`);
  out.push('::endgroup::');
  out.push(`b2-mcp-conform ${verdict.failed ? 'FAIL' : 'PASS'}: ${countsLine(verdict)} (fail-on ${verdict.failOn})`);
  return `${out.join('\n')}\n`;
}
