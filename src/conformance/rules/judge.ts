import { applySuppressions, severityResolver, type ConformConfig } from './config.js';
import { ConformError } from '../errors.js';
import { sortFindings } from './findings.js';
import { evaluate, judgesProbes, type PackDefinition, type RuleSet } from './engine.js';
import type { Finding } from './findings.js';
import type { RuleContext, SuppressionOutcome } from './types.js';

/** What every judging command (check, diff, lint) reads its rules and config from. */
export interface JudgeSettings {
  /** --config's file; false ignores every config file (--no-config). */
  configFile?: string | false | undefined;
  /** Let a config file turn off, lower or suppress integrity rules. */
  allowIntegrityOverrides?: boolean | undefined;
  rulesDir?: string | undefined;
  cwd?: string | undefined;
  /** YYYY-MM-DD; suppressions expire after it. Defaults to today (UTC). */
  today?: string | undefined;
}

/** The findings of a run, what the config's suppressions did, and the ids of the rules that ran. */
export interface Judgement {
  findings: Finding[];
  outcome: SuppressionOutcome;
  evaluated: string[];
}

/** Today (UTC) as YYYY-MM-DD: the day suppressions expire against. */
export function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/**
 * Evaluate the rules of the pack (and of `alsoPacks`: `check --lint` runs the lockstep pack too),
 * apply the config's suppressions, then the rules about suppressions. With `onlyProbes`, the
 * rules that judge the listed surface are left out. A suppression of a rule that did not run
 * (another command's rule) is not stale: it had nothing to hide.
 */
export function judge(
  ruleSet: RuleSet,
  context: RuleContext,
  config: ConformConfig,
  day: string,
  pack: PackDefinition,
  onlyProbes = false,
  alsoPacks: readonly PackDefinition[] = [],
): Judgement {
  const configured = severityResolver(config, context.mode);
  const packs = [pack, ...alsoPacks].map((candidate) => candidate.name);
  const severityOf: typeof configured = (rule) =>
    !rule.packs.some((name) => packs.includes(name)) || (onlyProbes && !judgesProbes(rule)) ? 'off' : configured(rule);
  const main = evaluate(ruleSet, context, severityOf, 'findings');
  const { findings, outcome } = applySuppressions(main.findings, config.suppressions, day, config.unsuppressible);
  const ran = new Set(main.evaluated);
  outcome.stale = outcome.stale.filter(({ index }) => {
    const rule = config.suppressions[index]!.rule;
    return rule === undefined || ran.has(rule);
  });
  const meta = evaluate(ruleSet, { ...context, suppressions: outcome }, severityOf, 'suppressions');
  const evaluated = [...main.evaluated, ...meta.evaluated];
  if (evaluated.length === 0) throw new ConformError('nothing-tested', 'every rule that applies is turned off; nothing was tested');
  return { findings: sortFindings([...findings, ...meta.findings]), outcome, evaluated };
}
