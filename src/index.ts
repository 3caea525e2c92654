/**
 * The public API of the `b2-mcp-conform` package: the checker's commands as functions returning
 * the `--format json` report as data (see docs/conformance.md, "Programmatic API"), and the
 * `b2-mcp` server as a Web-standard fetch handler (see docs/deploy.md).
 */
import { loadRules as loadRuleFiles, type RuleSet } from './conformance/rules/engine.js';

export { check, diff, lint, snapshot } from './conformance/api.js';
export type {
  CheckOptions,
  ConformanceReport,
  DiffOptions,
  JudgeOptions,
  LintOptions,
  SnapshotOptions,
  SnapshotResult,
  TargetOptions,
} from './conformance/api.js';
export { ConformError, EXIT, type FailureCode } from './conformance/errors.js';
export { SEVERITIES, type ChangeClass, type Finding, type Severity } from './conformance/rules/findings.js';
export type { Evidence } from './conformance/report/evidence.js';
export type { ReportFinding } from './conformance/report/json.js';
export type { RuleDefinition } from './conformance/rules/types.js';
export type { RuleSet };
export { createFetchHandler, type FetchHandler, type FetchHandlerOptions } from './server/fetch-handler.js';
export { ConfigError } from './server/config.js';

/** Every rule of a rules directory (default: the bundled `rules/`), each file validated against the rule-file schema. */
export function loadRules(dir?: string): RuleSet {
  return loadRuleFiles(dir, { validate: true });
}
