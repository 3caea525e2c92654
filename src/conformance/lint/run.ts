import { loadConfig } from '../rules/config.js';
import { buildEvidence, type RunResult } from '../report/evidence.js';
import { judge, today, type JudgeSettings } from '../rules/judge.js';
import { loadRules } from '../rules/engine.js';
import type { RuleContext } from '../rules/types.js';
import { lintPack, lintRoot } from './pack.js';
import { lintEvidence, readRepository } from './repository.js';

export interface LintRequest extends JudgeSettings {
  /** The checkout to lint (default: the git root of `cwd`, else `cwd`). */
  dir?: string | undefined;
  /** The rule pack; default: the pack whose baseline is a repository. */
  pack?: string | undefined;
}

/** Lint a checkout: its contract artifacts must agree with each other, read without running the server. */
export function lintCheckout(request: LintRequest): RunResult {
  const started = performance.now();
  const cwd = request.cwd ?? process.cwd();
  const ruleSet = loadRules(request.rulesDir);
  const pack = lintPack(ruleSet, request.pack);
  const config = loadConfig(request.configFile, ruleSet, cwd, { allowIntegrityOverrides: request.allowIntegrityOverrides });
  const input = readRepository(lintRoot(request.dir, cwd));
  const context: RuleContext = { mode: 'lint', profile: '*', surfaces: [], changes: [], lint: input };
  const judged = judge(ruleSet, context, config, request.today ?? today(), pack);
  const evidence = buildEvidence('lint', judged, config, performance.now() - started, {
    target: { dir: input.root },
    lint: lintEvidence(input),
  });
  return { findings: judged.findings, evidence, rules: ruleSet, evaluated: judged.evaluated };
}
