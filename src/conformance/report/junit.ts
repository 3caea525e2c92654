import { atOrAbove } from '../rules/findings.js';
import type { RunResult } from './evidence.js';
import { evidenceLines } from './evidence-lines.js';
import { xmlText as xml } from './escape/xml.js';
import { plainTextLine } from './shown-text.js';
import { verdictLine, type Verdict } from './verdict.js';

/**
 * JUnit XML: one test suite per rule category, one test case per rule. The run's wall time is on
 * <testsuites>; rules are judged from what the run collected, so their own time is 0. A rule fails when it has
 * an unsuppressed finding at or above --fail-on; rules that did not run are skipped.
 */
export function renderJunit(result: RunResult, verdict: Verdict): string {
  const evaluated = new Set(result.evaluated);
  const categories = [...new Set(result.rules.rules.map((rule) => rule.category))];
  const suites: string[] = [];
  let total = 0;
  let failures = 0;
  let skippedTotal = 0;
  for (const category of categories) {
    const rules = result.rules.rules.filter((rule) => rule.category === category);
    const cases: string[] = [];
    let suiteFailures = 0;
    let skipped = 0;
    for (const rule of rules) {
      const findings = result.findings.filter((finding) => finding.ruleId === rule.id);
      const failing = findings.filter((finding) => !finding.suppressed && atOrAbove(finding.severity, verdict.failOn));
      const text = findings
        .map((finding) => {
          const line = xml(
            `${finding.severity}${finding.suppressed ? ' (suppressed)' : ''}: ${finding.message}${finding.path ? ` at ${finding.path}` : ''} [${finding.fingerprint}]`,
          );
          const shown = plainTextLine(finding, (value) => value);
          return shown ? `${line}\n  ${xml(shown)}` : line;
        })
        .join('\n');
      let body = '';
      if (!evaluated.has(rule.id)) {
        body = '<skipped message="not evaluated (turned off or not applicable)"/>';
        skipped++;
      } else if (failing.length > 0) {
        body = `<failure type="${xml(failing[0]!.severity)}" message="${xml(`${failing.length} finding(s): ${failing[0]!.message}`)}">${text}</failure>`;
        suiteFailures++;
      } else if (text) {
        body = `<system-out>${text}</system-out>`;
      }
      cases.push(`    <testcase classname="b2-mcp-conform.${xml(category)}" name="${xml(rule.id)}" time="0">${body}</testcase>`);
    }
    total += rules.length;
    failures += suiteFailures;
    skippedTotal += skipped;
    suites.push(
      `  <testsuite name="${xml(category)}" tests="${rules.length}" failures="${suiteFailures}" skipped="${skipped}" errors="0" time="0">\n${cases.join('\n')}\n  </testsuite>`,
    );
  }
  const properties = [['Verdict', verdictLine(verdict, result.evidence.config)] as const, ...evidenceLines(result.evidence)]
    .map(([name, value]) => `    <property name="${xml(name)}" value="${xml(value)}"/>`)
    .join('\n');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="b2-mcp-conform ${xml(result.evidence.command)}" tests="${total}" failures="${failures}" skipped="${skippedTotal}" errors="0" time="${(result.evidence.durationMs / 1000).toFixed(3)}">`,
    `  <properties>\n${properties}\n  </properties>`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
