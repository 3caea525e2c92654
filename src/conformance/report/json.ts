import { CHECKER_NAME, CHECKER_VERSION } from '../package-root.js';
import type { RunResult } from '../run.js';
import { jsonSafe } from './escape/json.js';
import { verdictLine, type Verdict } from './verdict.js';

/** Version of the JSON report shape documented in docs/report.schema.json. */
export const REPORT_SCHEMA_VERSION = 1;

export function jsonReport(result: RunResult, verdict: Verdict): Record<string, unknown> {
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    tool: { name: CHECKER_NAME, version: CHECKER_VERSION },
    command: result.evidence.command,
    verdict: verdict.failed ? 'fail' : 'pass',
    verdictLine: verdictLine(verdict, result.evidence.config),
    failOn: verdict.failOn,
    summary: { ...verdict.counts, suppressed: verdict.suppressed },
    findings: result.findings,
    evidence: result.evidence,
  };
}

export function renderJson(result: RunResult, verdict: Verdict): string {
  return `${jsonSafe(jsonReport(result, verdict), 2)}\n`;
}
