/**
 * A test-runner matcher for a server's own test suite: `expect(report).toPassContract()` (or
 * `await expect(options).toPassContract()`, which runs the check first). It works with
 * `expect.extend` of vitest and jest alike and imports neither.
 */
import { check, type CheckOptions, type ConformanceReport } from './api.js';
import { terminalSafe } from './report/escape/terminal.js';

export interface MatcherResult {
  pass: boolean;
  message: () => string;
}

const LISTED_FINDINGS = 20;

function isReport(value: unknown): value is ConformanceReport {
  return typeof value === 'object' && value !== null && 'schemaVersion' in value && 'findings' in value && 'verdict' in value;
}

/** Pass or fail as the report's verdict says; the message lists the unsuppressed findings. */
function judgeReport(report: ConformanceReport): MatcherResult {
  const pass = report.verdict === 'pass';
  const active = report.findings.filter((finding) => !finding.suppressed);
  const lines = active.slice(0, LISTED_FINDINGS).map((finding) => {
    const subject = finding.tool ?? finding.prompt;
    // Server-sent text ends up in a terminal: each line made safe the way the pretty report does it.
    return `  ${finding.severity} ${terminalSafe(finding.ruleId)}${subject ? ` (${terminalSafe(subject)})` : ''}: ${terminalSafe(finding.message)}`;
  });
  if (active.length > LISTED_FINDINGS) lines.push(`  … and ${active.length - LISTED_FINDINGS} more`);
  const counts = `${report.summary.error} errors, ${report.summary.warning} warnings, ${report.summary.info} info`;
  return {
    pass,
    message: () =>
      pass
        ? `expected the server not to pass the contract (fail on ${report.failOn}), but it did: ${counts}`
        : `expected the server to pass the contract (fail on ${report.failOn}): ${counts}\n${lines.join('\n')}`,
  };
}

export function toPassContract(received: ConformanceReport): MatcherResult;
export function toPassContract(received: CheckOptions): Promise<MatcherResult>;
export function toPassContract(received: ConformanceReport | CheckOptions): MatcherResult | Promise<MatcherResult>;
export function toPassContract(received: ConformanceReport | CheckOptions): MatcherResult | Promise<MatcherResult> {
  if (isReport(received)) return judgeReport(received);
  return check(received).then(judgeReport);
}

/** Pass to `expect.extend(...)`. */
export const contractMatchers = { toPassContract };
