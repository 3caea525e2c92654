import { deepEqual } from '../diff/schema.js';
import type { Finding } from '../rules/findings.js';
import { CHECKER_NAME, CHECKER_VERSION } from '../package-root.js';
import type { RunResult } from './evidence.js';
import { jsonSafe } from './escape/json.js';
import { verdictLine, type Verdict } from './verdict.js';

/** Version of the JSON report shape documented in docs/report.schema.json. */
const REPORT_SCHEMA_VERSION = 2;

type SchemaPair = NonNullable<Finding['schemas']>;

/** A finding as the JSON report holds it: its tool's schemas are named (`schemasRef`), not copied. */
export type ReportFinding = Omit<Finding, 'schemas'> & { schemasRef?: string };

/**
 * Each changed tool's two input schemas (fixture and live) once, under the tool's name (`name#2`
 * when one run saw two different pairs for one tool); every finding of that tool names its pair.
 * A finding that carried a pair names that one; the others, the pair of their tool seen in one of
 * their scopes, else the tool's first.
 */
function sharedSchemas(findings: readonly Finding[]): { findings: ReportFinding[]; schemas: Record<string, SchemaPair> } {
  const schemas: Record<string, SchemaPair> = {};
  const pairsOf = new Map<string, { key: string; pair: SchemaPair; scopes: string[] }[]>();
  const keyOf = (tool: string, pair: SchemaPair, scopes: readonly string[]): string => {
    const pairs = pairsOf.get(tool) ?? [];
    const same = pairs.find((entry) => entry.pair === pair || deepEqual(entry.pair, pair));
    if (same) return same.key;
    const key = pairs.length === 0 ? tool : `${tool}#${pairs.length + 1}`;
    pairs.push({ key, pair, scopes: [...scopes] });
    pairsOf.set(tool, pairs);
    schemas[key] = pair;
    return key;
  };
  const carried = findings.map((finding) =>
    finding.schemas && finding.tool !== undefined ? keyOf(finding.tool, finding.schemas, finding.scopes) : undefined,
  );
  const shared = findings.map((finding, index) => {
    const { schemas: _copy, ...rest } = finding;
    const pairs = finding.tool === undefined ? undefined : pairsOf.get(finding.tool);
    const key = carried[index] ?? (pairs?.find((entry) => entry.scopes.some((scope) => finding.scopes.includes(scope))) ?? pairs?.[0])?.key;
    return key === undefined ? rest : { ...rest, schemasRef: key };
  });
  return { findings: shared, schemas };
}

function jsonReport(result: RunResult, verdict: Verdict): Record<string, unknown> {
  const { findings, schemas } = sharedSchemas(result.findings);
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    tool: { name: CHECKER_NAME, version: CHECKER_VERSION },
    command: result.evidence.command,
    verdict: verdict.failed ? 'fail' : 'pass',
    verdictLine: verdictLine(verdict, result.evidence.config),
    failOn: verdict.failOn,
    summary: { ...verdict.counts, suppressed: verdict.suppressed },
    findings,
    schemas,
    evidence: result.evidence,
  };
}

export function renderJson(result: RunResult, verdict: Verdict): string {
  return `${jsonSafe(jsonReport(result, verdict), 2)}\n`;
}
