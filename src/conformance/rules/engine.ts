import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConformError } from '../errors.js';
import { jsonSchemaValidator } from '../connect/json-schema.js';
import { fingerprintOf, type Finding, type Severity } from './findings.js';
import { BUNDLED } from '../package-root.js';
import { CHECK_KINDS } from './kinds/index.js';
import type { CheckKind, RawFinding, RuleContext, RuleDefinition } from './types.js';

export interface RuleSet {
  rules: RuleDefinition[];
  byId: Map<string, RuleDefinition>;
  /** One per rules file, in file order. */
  categories: { name: string; description: string }[];
  /** Every pack of rules/packs/*.json, by name order. */
  packs: PackDefinition[];
}

/** A named group of rules (rules/packs/*.json); rule files say which packs their rules are in. */
export interface PackDefinition {
  name: string;
  description: string;
  /** What the server is held to: a contract artifact and its fixtures, or a snapshot of itself; or, for lint, what a checkout's files are held to: each other. */
  baseline: 'contract' | 'snapshot' | 'repository';
  default?: boolean;
}

const RULE_FILE_SCHEMA = 'rule-file.schema.json';
const PACKS_DIR = 'packs';
const PACK_SCHEMA = 'pack.schema.json';

function loadPacks(dir: string, ajv: ReturnType<typeof jsonSchemaValidator> | undefined): PackDefinition[] {
  const packsDir = join(dir, PACKS_DIR);
  const validate = ajv?.compile(JSON.parse(readFileSync(join(packsDir, PACK_SCHEMA), 'utf8')));
  const packs = readdirSync(packsDir)
    .filter((name) => name.endsWith('.json') && !name.endsWith('.schema.json'))
    .sort()
    .map((name) => {
      const data = JSON.parse(readFileSync(join(packsDir, name), 'utf8')) as PackDefinition & { $schema?: string };
      if (validate && !validate(data)) {
        const error = validate.errors?.[0];
        throw new ConformError('config', `pack file ${name}: ${error?.instancePath || '/'} ${error?.message ?? 'is invalid'}`);
      }
      if (`${data.name}.json` !== name)
        throw new ConformError('config', `pack file ${name}: its name must be "${name.replace(/\.json$/, '')}"`);
      const { $schema: _schema, ...pack } = data;
      return pack;
    });
  if (packs.filter((pack) => pack.default).length !== 1)
    throw new ConformError('config', `exactly one pack in ${packsDir} must be the default`);
  return packs;
}

/**
 * The pack named (or the default one) among those for what is judged: a server and its fixtures
 * (check, diff, snapshot), or a checkout's files (lint). An unknown name is a usage error listing them.
 */
export function selectPack(ruleSet: RuleSet, name?: string, judged: 'server' | 'repository' = 'server'): PackDefinition {
  const candidates = ruleSet.packs.filter((candidate) => (candidate.baseline === 'repository') === (judged === 'repository'));
  const pack =
    name === undefined ? candidates.find((candidate) => candidate.default) : candidates.find((candidate) => candidate.name === name);
  if (!pack)
    throw new ConformError('usage', `unknown pack "${name}" (available: ${candidates.map((candidate) => candidate.name).join(', ')})`);
  return pack;
}

/**
 * Load every rules/*.json file. With `validate`, each file is checked against the rule-file schema
 * and each check's parameters against its kind's schema (the test suite and `rules` do this; a
 * check run skips it, since the bundled rules are validated before they ship).
 */
export function loadRules(dir: string = BUNDLED.rulesDir, options: { validate?: boolean } = {}): RuleSet {
  const ajv = options.validate ? jsonSchemaValidator() : undefined;
  const validateFile = ajv?.compile(JSON.parse(readFileSync(join(dir, RULE_FILE_SCHEMA), 'utf8')));
  const packs = loadPacks(dir, ajv);
  const packNames = new Set(packs.map((pack) => pack.name));
  const paramValidators = new Map<CheckKind, NonNullable<typeof validateFile>>();
  const rules: RuleDefinition[] = [];
  const categories: RuleSet['categories'] = [];
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.json') && !name.endsWith('.schema.json'))
    .sort();
  for (const name of files) {
    const file = join(dir, name);
    const data = JSON.parse(readFileSync(file, 'utf8')) as {
      category: string;
      description: string;
      packs: string[];
      rules: (Omit<RuleDefinition, 'category' | 'packs'> & { packs?: string[] })[];
    };
    if (validateFile && !validateFile(data)) {
      const error = validateFile.errors?.[0];
      throw new ConformError('config', `rules file ${name}: ${error?.instancePath || '/'} ${error?.message ?? 'is invalid'}`);
    }
    categories.push({ name: data.category, description: data.description });
    for (const rule of data.rules) {
      const kind = CHECK_KINDS[rule.check.kind];
      if (!kind) throw new ConformError('config', `rule ${rule.id} (${name}): unknown check kind "${rule.check.kind}"`);
      const { kind: _kind, ...params } = rule.check;
      const validateParams = ajv ? (paramValidators.get(kind) ?? ajv.compile(kind.params)) : undefined;
      if (validateParams) paramValidators.set(kind, validateParams);
      if (validateParams && !validateParams(params)) {
        const error = validateParams.errors?.[0];
        throw new ConformError(
          'config',
          `rule ${rule.id} (${name}): check parameters ${error?.instancePath || ''} ${error?.message ?? 'are invalid'}`.replace(
            /\s+/g,
            ' ',
          ),
        );
      }
      if (!rule.id.startsWith(`${data.category}/`))
        throw new ConformError('config', `rule ${rule.id} (${name}): id must start with "${data.category}/"`);
      const rulePacks = rule.packs ?? data.packs;
      const unknownPack = rulePacks.find((pack) => !packNames.has(pack));
      if (unknownPack !== undefined) throw new ConformError('config', `rule ${rule.id} (${name}): unknown pack "${unknownPack}"`);
      rules.push({ ...rule, category: data.category, packs: rulePacks });
    }
  }
  const byId = new Map<string, RuleDefinition>();
  for (const rule of rules) {
    if (byId.has(rule.id)) throw new ConformError('config', `rule id ${rule.id} is defined twice`);
    byId.set(rule.id, rule);
  }
  for (const rule of rules) {
    for (const other of rule.subsumedBy ?? []) {
      if (!byId.has(other)) throw new ConformError('config', `rule ${rule.id}: subsumedBy names unknown rule ${other}`);
    }
  }
  return { rules, byId, categories, packs };
}

function kindOf(rule: RuleDefinition): CheckKind {
  return CHECK_KINDS[rule.check.kind]!;
}

/** Whether a rule judges the live probes (rather than the listed surface or a diff). */
export function judgesProbes(rule: RuleDefinition): boolean {
  return kindOf(rule).needs.includes('probes');
}

/** Whether the context holds everything the rule's check kind needs. */
function applicable(rule: RuleDefinition, context: RuleContext): boolean {
  return kindOf(rule).needs.every((need) => {
    if (need === 'live') return context.mode === 'check' && context.surfaces.length > 0;
    if (need === 'contract') return context.contract !== undefined;
    if (need === 'naming') return context.naming !== undefined;
    if (need === 'changes') return true;
    if (need === 'probes') return context.probes !== undefined;
    if (need === 'scenarios') return context.scenarios !== undefined;
    if (need === 'snapshot') return context.snapshot !== undefined;
    if (need === 'lint') return context.lint !== undefined;
    return context.suppressions !== undefined;
  });
}

function formatValue(value: unknown): string {
  if (Array.isArray(value)) return value.map(formatValue).join(', ');
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function renderMessage(template: string, values: Record<string, unknown>): string {
  return template.replace(/\{([A-Za-z][A-Za-z0-9]*)\}/g, (token, name: string) =>
    values[name] === undefined ? token : formatValue(values[name]),
  );
}

export interface Evaluation {
  findings: Finding[];
  /** Rules that were enabled and applicable in this context (zero means nothing was tested). */
  evaluated: string[];
}

/**
 * Run every enabled, applicable rule of a phase and dress its raw findings: severity, message,
 * fingerprint, and one finding per fingerprint with the union of the scopes it was seen in.
 */
export function evaluate(
  ruleSet: RuleSet,
  context: RuleContext,
  severityOf: (rule: RuleDefinition) => Severity | 'off',
  phase: 'findings' | 'suppressions',
): Evaluation {
  const byFingerprint = new Map<string, Finding>();
  const evaluated: string[] = [];
  for (const rule of ruleSet.rules) {
    const isSuppressionRule = kindOf(rule).needs.includes('suppressions');
    if (isSuppressionRule !== (phase === 'suppressions')) continue;
    const severity = severityOf(rule);
    if (severity === 'off' || !applicable(rule, context)) continue;
    evaluated.push(rule.id);
    const { kind: _kind, ...params } = rule.check;
    for (const raw of kindOf(rule).run(params, context)) addFinding(byFingerprint, rule, severity, raw, context.profile);
  }
  return { findings: phase === 'findings' ? dropSubsumed([...byFingerprint.values()], ruleSet) : [...byFingerprint.values()], evaluated };
}

function addFinding(into: Map<string, Finding>, rule: RuleDefinition, severity: Severity, raw: RawFinding, profile: string): void {
  // A finding at a file of a checkout is about no profile: `lint` and `check --lint` give it one fingerprint.
  const fingerprint = fingerprintOf({
    ruleId: rule.id,
    profile: raw.location ? '*' : profile,
    tool: raw.tool,
    prompt: raw.prompt,
    path: raw.path,
    key: raw.key,
  });
  const scopes = raw.scope === undefined ? [] : Array.isArray(raw.scope) ? raw.scope : [raw.scope];
  const existing = into.get(fingerprint);
  if (existing) {
    for (const scope of scopes) if (!existing.scopes.includes(scope)) existing.scopes.push(scope);
    return;
  }
  const values = { ...raw.data, tool: raw.tool, prompt: raw.prompt, path: raw.path, scope: scopes.join(', '), profile };
  into.set(fingerprint, {
    ruleId: rule.id,
    severity,
    category: rule.category,
    ...(rule.class ? { class: rule.class } : {}),
    message: renderMessage(rule.message, values),
    fix: renderMessage(rule.fix, values),
    doc: rule.doc,
    ...(raw.tool !== undefined ? { tool: raw.tool } : {}),
    ...(raw.prompt !== undefined ? { prompt: raw.prompt } : {}),
    ...(raw.path !== undefined ? { path: raw.path } : {}),
    ...(raw.text ? { text: raw.text } : {}),
    ...(raw.schemas ? { schemas: raw.schemas } : {}),
    ...(raw.confidence !== undefined ? { confidence: raw.confidence } : {}),
    ...(raw.location ? { location: raw.location } : {}),
    scopes: [...scopes],
    fingerprint,
  });
}

/** A rule that only restates a root cause steps back when the root cause is reported. */
function dropSubsumed(findings: Finding[], ruleSet: RuleSet): Finding[] {
  return findings.filter((finding) => {
    const by = ruleSet.byId.get(finding.ruleId)?.subsumedBy;
    if (!by?.length) return true;
    return !findings.some((other) => by.includes(other.ruleId) && (finding.tool === undefined || other.tool === finding.tool));
  });
}
