import { loadConfig } from '../rules/config.js';
import type { Evidence } from '../report/evidence.js';
import { configEvidence } from '../report/evidence.js';
import { judge, today, type JudgeSettings } from '../rules/judge.js';
import { toolVersions } from '../package-root.js';
import { loadRules } from '../rules/engine.js';
import type { RuleContext } from '../rules/types.js';
import type { RunResult } from '../commands/run.js';
import { lintPack, lintRoot } from './pack.js';
import { lintEvidence, readRepository } from './repository.js';

export interface LintRequest extends JudgeSettings {
  /** The checkout to lint (default: the git root of `cwd`, else `cwd`). */
  dir?: string;
  /** The rule pack; default: the pack whose baseline is a repository. */
  pack?: string;
}

/** Lint a checkout: its contract artifacts must agree with each other, read without running the server. */
export function runLint(request: LintRequest): RunResult {
  const started = performance.now();
  const cwd = request.cwd ?? process.cwd();
  const ruleSet = loadRules(request.rulesDir);
  const pack = lintPack(ruleSet, request.pack);
  const config = loadConfig(request.configFile, ruleSet, cwd, { allowIntegrityOverrides: request.allowIntegrityOverrides });
  const input = readRepository(lintRoot(request.dir, cwd));
  const context: RuleContext = { mode: 'lint', profile: '*', surfaces: [], changes: [], lint: input };
  const { findings, outcome, evaluated } = judge(ruleSet, context, config, request.today ?? today(), pack);
  const evidence: Evidence = {
    command: 'lint',
    versions: toolVersions(),
    profile: null,
    target: { dir: input.root },
    connections: {},
    contractHash: null,
    hashes: {},
    cacheHints: null,
    config: configEvidence(config, findings, outcome),
    rulesEvaluated: evaluated.length,
    lint: lintEvidence(input),
    durationMs: Math.round(performance.now() - started),
  };
  return { findings, evidence, rules: ruleSet, evaluated };
}
