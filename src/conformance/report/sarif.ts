import type { Finding, Severity } from '../rules/findings.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHECKER_NAME, CHECKER_VERSION, PACKAGE_ROOT } from '../package-root.js';
import type { RunResult } from './evidence.js';
import { jsonSafe } from './escape/json.js';
import { locate } from './locations.js';
import { plainTextLine } from './shown-text.js';
import { verdictLine, type Verdict } from './verdict.js';

const LEVEL: Record<Severity, string> = { error: 'error', warning: 'warning', info: 'note' };
/** Key under which each result's fingerprint is published (versioned, as SARIF recommends). */
const FINGERPRINT_KEY = 'b2McpConform/v1';

/**
 * Where a rule's page is: under the package's `homepage` when package.json names one (the
 * published documentation), else the page inside the installed package, as a file URI.
 */
let homepage: unknown;

function helpUri(doc: string): string {
  homepage ??= (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { homepage?: unknown }).homepage ?? null;
  if (typeof homepage === 'string' && /^https?:\/\//.test(homepage))
    return new URL(doc, homepage.endsWith('/') ? homepage : `${homepage}/`).href;
  const [path, anchor] = doc.split('#');
  return `${pathToFileURL(join(PACKAGE_ROOT, path!)).href}${anchor ? `#${anchor}` : ''}`;
}

/** SARIF 2.1.0, loadable by GitHub code scanning (every result carries a physical location). */
function sarifReport(result: RunResult, verdict: Verdict, cwd = process.cwd()): Record<string, unknown> {
  const rules = result.rules.rules;
  const index = new Map(rules.map((rule, position) => [rule.id, position]));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: CHECKER_NAME,
            version: CHECKER_VERSION,
            semanticVersion: CHECKER_VERSION,
            rules: rules.map((rule) => ({
              id: rule.id,
              name: rule.id.replace(/[/-](.)/g, (_match, letter: string) => letter.toUpperCase()),
              shortDescription: { text: rule.title },
              helpUri: helpUri(rule.doc),
              fullDescription: { text: rule.rationale },
              help: {
                text: `${rule.rationale}\nFix: ${rule.fix}\nDocs: ${rule.doc}`,
                markdown: `${rule.rationale}\n\n**Fix:** ${rule.fix}\n\nDocs: \`${rule.doc}\``,
              },
              defaultConfiguration: { level: LEVEL[rule.severity] },
              properties: {
                category: rule.category,
                tags: ['mcp', 'b2-mcp-conform', rule.category],
                ...(rule.class ? { class: rule.class } : {}),
              },
            })),
          },
        },
        results: result.findings.map((finding) => {
          const location = locate(finding, result, cwd);
          const member = finding.tool ?? finding.prompt;
          const logical = member
            ? [{ name: member, fullyQualifiedName: finding.path ? `${member}.${finding.path}` : member, kind: 'member' }]
            : [];
          return {
            ruleId: finding.ruleId,
            ruleIndex: index.get(finding.ruleId),
            level: LEVEL[finding.severity],
            message: { text: messageText(finding) },
            locations: [
              {
                ...(location
                  ? { physicalLocation: { artifactLocation: { uri: location.uri }, region: { startLine: location.line } } }
                  : {}),
                ...(logical.length ? { logicalLocations: logical } : {}),
              },
            ],
            partialFingerprints: { [FINGERPRINT_KEY]: finding.fingerprint },
            ...(finding.suppressed ? { suppressions: [{ kind: 'external', justification: finding.suppressed.reason }] } : {}),
            properties: {
              scopes: finding.scopes,
              ...(finding.class ? { class: finding.class } : {}),
              ...(finding.path ? { path: finding.path } : {}),
              ...(finding.text ? { text: finding.text } : {}),
            },
          };
        }),
        invocations: [{ executionSuccessful: true, exitCode: verdict.failed ? 1 : 0 }],
        properties: {
          evidence: result.evidence,
          verdict: verdict.failed ? 'fail' : 'pass',
          verdictLine: verdictLine(verdict, result.evidence.config),
          failOn: verdict.failOn,
        },
      },
    ],
  };
}

/** The message, the text a model reads (bounded; the whole text is in the result's properties), then the fix. */
function messageText(finding: Finding): string {
  const text = plainTextLine(finding, (value) => value);
  return `${finding.message}.${text ? `\n${text}` : ''}\nFix: ${finding.fix}`;
}

export function renderSarif(result: RunResult, verdict: Verdict): string {
  return `${jsonSafe(sarifReport(result, verdict), 2)}\n`;
}
