import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConformError } from '../errors.js';
import { severityRank, type Finding, type Severity } from './findings.js';
import { jsonSchemaValidator } from '../connect/json-schema.js';
import type { RuleSet } from './engine.js';
import type { RuleDefinition, SuppressionOutcome } from './types.js';

export const DEFAULT_CONFIG_FILE = 'b2-mcp-conform.config.json';

export interface Suppression {
  rule?: string;
  tool?: string;
  prompt?: string;
  fingerprint?: string;
  /** Lint findings in this file, or in this folder (relative to the linted checkout). */
  file?: string;
  reason: string;
  /** Last day (YYYY-MM-DD, inclusive) the suppression applies. */
  expires?: string;
}

/** How the config file was chosen: named with --config, or found at the git root of the working directory. */
export type ConfigSource = 'explicit' | 'git-root';

export interface ConformConfig {
  /** Per-rule severity overrides in effect; `off` disables the rule. */
  rules: Record<string, Severity | 'off'>;
  suppressions: Suppression[];
  /** Where the config came from, for the evidence block; null when none was used. */
  file: string | null;
  source: ConfigSource | null;
  /** Overrides of integrity rules the file asked for and did not get (`rule=severity`). */
  refused: string[];
  /** Integrity rules whose findings no suppression hides (empty with --allow-integrity-overrides). */
  unsuppressible: ReadonlySet<string>;
}

/** The JSON Schema of b2-mcp-conform.config.json (also printed in docs/conformance.md). */
const CONFIG_SCHEMA = {
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
        anyOf: [
          { required: ['rule'] },
          { required: ['tool'] },
          { required: ['prompt'] },
          { required: ['fingerprint'] },
          { required: ['file'] },
        ],
        properties: {
          rule: { type: 'string' },
          tool: { type: 'string' },
          prompt: { type: 'string' },
          fingerprint: { type: 'string', pattern: '^[0-9a-f]{32}$' },
          file: { type: 'string', minLength: 1 },
          reason: { type: 'string', minLength: 1, pattern: '\\S' },
          expires: { type: 'string', format: 'date' },
        },
      },
    },
  },
} as const;

const EMPTY_CONFIG: ConformConfig = {
  rules: {},
  suppressions: [],
  file: null,
  source: null,
  refused: [],
  unsuppressible: new Set(),
};

/** The nearest directory at or above `cwd` that holds `.git` (a directory, or a file in a worktree). */
export function gitRootOf(cwd: string): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

export interface ConfigOptions {
  /** Let a config file turn off, downgrade or suppress integrity rules. */
  allowIntegrityOverrides?: boolean | undefined;
}

/**
 * The config in effect. `explicit` is --config's file, or false for --no-config (no file at all).
 * Without either, only b2-mcp-conform.config.json at the git root of `cwd` is read: never one in
 * a parent of the repository or in a subdirectory a fork's checkout may occupy. Integrity rules
 * keep at least their own severity and their findings cannot be suppressed unless the caller
 * allows it; what was refused is recorded, so every report can say so.
 */
export function loadConfig(
  explicit: string | false | undefined,
  ruleSet: RuleSet,
  cwd = process.cwd(),
  options: ConfigOptions = {},
): ConformConfig {
  if (explicit === false) return EMPTY_CONFIG;
  const root = explicit ? undefined : gitRootOf(cwd);
  if (!explicit && !root) return EMPTY_CONFIG;
  const file = explicit ? resolve(cwd, explicit) : join(root!, DEFAULT_CONFIG_FILE);
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
          ? 'a suppression must name a rule, a tool, a prompt, a fingerprint or a file'
          : (error?.message ?? 'is invalid');
    throw new ConformError('config', `config ${file}: ${where} ${detail}`);
  }
  const config = data as { rules?: Record<string, Severity | 'off'>; suppressions?: Suppression[] };
  for (const id of Object.keys(config.rules ?? {})) {
    if (!ruleSet.byId.has(id))
      throw new ConformError('config', `config ${file}: /rules names unknown rule "${id}" (see b2-mcp-conform rules)`);
  }
  (config.suppressions ?? []).forEach((suppression, index) => {
    if (suppression.rule && !ruleSet.byId.has(suppression.rule)) {
      throw new ConformError('config', `config ${file}: /suppressions/${index} names unknown rule "${suppression.rule}"`);
    }
  });
  const integrity = ruleSet.rules.filter((rule) => rule.integrity);
  const rules: Record<string, Severity | 'off'> = {};
  const refused: string[] = [];
  for (const [id, severity] of Object.entries(config.rules ?? {})) {
    const rule = ruleSet.byId.get(id)!;
    if (rule.integrity && !options.allowIntegrityOverrides && lowers(rule, severity)) refused.push(`${id}=${severity}`);
    else rules[id] = severity;
  }
  return {
    rules,
    suppressions: config.suppressions ?? [],
    file,
    source: explicit ? 'explicit' : 'git-root',
    refused,
    unsuppressible: new Set(options.allowIntegrityOverrides ? [] : integrity.map((rule) => rule.id)),
  };
}

/** Whether an override turns a rule off or below the stricter of its own and its frozen severity. */
function lowers(rule: RuleDefinition, severity: Severity | 'off'): boolean {
  if (severity === 'off') return true;
  const floor = Math.max(severityRank(rule.severity), rule.frozenSeverity ? severityRank(rule.frozenSeverity) : 0);
  return severityRank(severity) < floor;
}

/** Effective severity: the config's override, else the frozen-contract severity while checking, else the rule's own. */
export function severityResolver(config: ConformConfig, mode: 'check' | 'diff' | 'lint'): (rule: RuleDefinition) => Severity | 'off' {
  return (rule) => config.rules[rule.id] ?? (mode === 'check' ? rule.frozenSeverity : undefined) ?? rule.severity;
}

function describe(suppression: Suppression): string {
  return [
    suppression.rule && `rule ${suppression.rule}`,
    suppression.tool && `tool ${suppression.tool}`,
    suppression.prompt && `prompt ${suppression.prompt}`,
    suppression.fingerprint && `fingerprint ${suppression.fingerprint}`,
    suppression.file && `file ${suppression.file}`,
  ]
    .filter(Boolean)
    .join(', ');
}

function matches(suppression: Suppression, finding: Finding): boolean {
  return (
    (suppression.rule === undefined || suppression.rule === finding.ruleId) &&
    (suppression.tool === undefined || suppression.tool === finding.tool) &&
    (suppression.prompt === undefined || suppression.prompt === finding.prompt) &&
    (suppression.fingerprint === undefined || suppression.fingerprint === finding.fingerprint) &&
    (suppression.file === undefined || inFile(suppression.file, finding.location?.file))
  );
}

/** Whether a finding's file is the suppression's file, or lies in its folder. */
function inFile(suppressed: string, file: string | undefined): boolean {
  if (file === undefined) return false;
  const folder = suppressed.replace(/\/+$/, '');
  return file === folder || file.startsWith(`${folder}/`);
}

/**
 * Mark suppressed findings; report suppressions that matched nothing (stale) or are past their
 * date (expired). Findings of `unsuppressible` rules stay active; a suppression that matched only
 * such findings is refused rather than stale.
 */
export function applySuppressions(
  findings: Finding[],
  suppressions: readonly Suppression[],
  today: string,
  unsuppressible: ReadonlySet<string> = new Set(),
): { findings: Finding[]; outcome: SuppressionOutcome } {
  const outcome: SuppressionOutcome = { stale: [], expired: [], refused: [] };
  const marked = findings.map((finding) => ({ ...finding }));
  suppressions.forEach((suppression, index) => {
    if (suppression.expires !== undefined && suppression.expires < today) {
      outcome.expired.push({ index, description: describe(suppression), expires: suppression.expires });
      return;
    }
    let used = false;
    let refused = false;
    for (const finding of marked) {
      if (!matches(suppression, finding)) continue;
      if (unsuppressible.has(finding.ruleId)) {
        refused = true;
        continue;
      }
      used = true;
      finding.suppressed ??= { reason: suppression.reason, ...(suppression.expires ? { expires: suppression.expires } : {}) };
    }
    if (refused) outcome.refused.push({ index, description: describe(suppression) });
    else if (!used) outcome.stale.push({ index, description: describe(suppression) });
  });
  return { findings: marked, outcome };
}
