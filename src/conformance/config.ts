import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConformError } from './errors.js';
import type { Finding, Severity } from './findings.js';
import { jsonSchemaValidator } from './json-schema.js';
import type { RuleSet } from './rules/engine.js';
import type { RuleDefinition, SuppressionOutcome } from './rules/types.js';

export const DEFAULT_CONFIG_FILE = 'b2-mcp-conform.config.json';

export interface Suppression {
  rule?: string;
  tool?: string;
  prompt?: string;
  fingerprint?: string;
  reason: string;
  /** Last day (YYYY-MM-DD, inclusive) the suppression applies. */
  expires?: string;
}

export interface ConformConfig {
  /** Per-rule severity overrides; `off` disables the rule. */
  rules: Record<string, Severity | 'off'>;
  suppressions: Suppression[];
  /** Where the config came from, for the evidence block; null when none was found. */
  file: string | null;
}

/** The JSON Schema of b2-mcp-conform.config.json (also printed in docs/conformance.md). */
export const CONFIG_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    rules: { type: 'object', additionalProperties: { enum: ['error', 'warning', 'info', 'off'] } },
    suppressions: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['reason'],
        anyOf: [{ required: ['rule'] }, { required: ['tool'] }, { required: ['prompt'] }, { required: ['fingerprint'] }],
        properties: {
          rule: { type: 'string' },
          tool: { type: 'string' },
          prompt: { type: 'string' },
          fingerprint: { type: 'string', pattern: '^[0-9a-f]{32}$' },
          reason: { type: 'string', minLength: 1, pattern: '\\S' },
          expires: { type: 'string', format: 'date' },
        },
      },
    },
  },
} as const;

export const EMPTY_CONFIG: ConformConfig = { rules: {}, suppressions: [], file: null };

/** Read the explicit config file, else ./b2-mcp-conform.config.json when present, else nothing. */
export function loadConfig(explicit: string | undefined, ruleSet: RuleSet, cwd = process.cwd()): ConformConfig {
  const file = explicit ? resolve(cwd, explicit) : resolve(cwd, DEFAULT_CONFIG_FILE);
  if (!existsSync(file)) {
    if (explicit) throw new ConformError('config', `config file not found: ${file}`);
    return EMPTY_CONFIG;
  }
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConformError('config', `config ${file} is not valid JSON: ${(error as Error).message}`);
  }
  const validate = jsonSchemaValidator().compile(CONFIG_SCHEMA);
  if (!validate(data)) {
    const error = validate.errors?.find((candidate) => candidate.keyword === 'additionalProperties') ?? validate.errors?.[0];
    const where = error?.instancePath || '(top level)';
    const detail =
      error?.keyword === 'additionalProperties'
        ? `unknown key "${(error.params as { additionalProperty: string }).additionalProperty}"`
        : error?.schemaPath.includes('/anyOf')
          ? 'a suppression must name a rule, a tool, a prompt or a fingerprint'
          : (error?.message ?? 'is invalid');
    throw new ConformError('config', `config ${file}: ${where} ${detail}`);
  }
  const config = data as { rules?: Record<string, Severity | 'off'>; suppressions?: Suppression[] };
  for (const id of Object.keys(config.rules ?? {})) {
    if (!ruleSet.byId.has(id)) throw new ConformError('config', `config ${file}: /rules names unknown rule "${id}" (see b2-mcp-conform rules)`);
  }
  (config.suppressions ?? []).forEach((suppression, index) => {
    if (suppression.rule && !ruleSet.byId.has(suppression.rule)) {
      throw new ConformError('config', `config ${file}: /suppressions/${index} names unknown rule "${suppression.rule}"`);
    }
  });
  return { rules: config.rules ?? {}, suppressions: config.suppressions ?? [], file };
}

/** Effective severity: the config's override, else the frozen-contract severity while checking, else the rule's own. */
export function severityResolver(config: ConformConfig, mode: 'check' | 'diff'): (rule: RuleDefinition) => Severity | 'off' {
  return (rule) => config.rules[rule.id] ?? (mode === 'check' ? rule.frozenSeverity : undefined) ?? rule.severity;
}

function describe(suppression: Suppression): string {
  return [suppression.rule && `rule ${suppression.rule}`, suppression.tool && `tool ${suppression.tool}`, suppression.prompt && `prompt ${suppression.prompt}`, suppression.fingerprint && `fingerprint ${suppression.fingerprint}`]
    .filter(Boolean)
    .join(', ');
}

function matches(suppression: Suppression, finding: Finding): boolean {
  return (
    (suppression.rule === undefined || suppression.rule === finding.ruleId) &&
    (suppression.tool === undefined || suppression.tool === finding.tool) &&
    (suppression.prompt === undefined || suppression.prompt === finding.prompt) &&
    (suppression.fingerprint === undefined || suppression.fingerprint === finding.fingerprint)
  );
}

/** Mark suppressed findings; report suppressions that matched nothing (stale) or are past their date (expired). */
export function applySuppressions(findings: Finding[], suppressions: readonly Suppression[], today: string): { findings: Finding[]; outcome: SuppressionOutcome } {
  const outcome: SuppressionOutcome = { stale: [], expired: [] };
  const marked = findings.map((finding) => ({ ...finding }));
  suppressions.forEach((suppression, index) => {
    if (suppression.expires !== undefined && suppression.expires < today) {
      outcome.expired.push({ index, description: describe(suppression), expires: suppression.expires });
      return;
    }
    let used = false;
    for (const finding of marked) {
      if (!matches(suppression, finding)) continue;
      used = true;
      finding.suppressed ??= { reason: suppression.reason, ...(suppression.expires ? { expires: suppression.expires } : {}) };
    }
    if (!used) outcome.stale.push({ index, description: describe(suppression) });
  });
  return { findings: marked, outcome };
}
