import { join } from 'node:path';
import { ConformError } from '../errors.js';
import { explainDrift } from '../diff/diff.js';
import { contractComparison, keyCapabilitiesChange, sdkChanges } from '../diff/contract.js';
import { contractInUse, listFixtureFiles } from '../diff/fixtures.js';
import { pairFixtureFiles, profileSetChanges } from '../diff/fixture-pairs.js';
import { diffPromptFixtures } from '../diff/prompt-changes.js';
import { fixtureChanges } from '../diff/surface-changes.js';
import { unrecordedFields } from '../diff/visible-fields.js';
import { loadConfig } from '../rules/config.js';
import { loadRules, selectPack } from '../rules/engine.js';
import { judge, today, type JudgeSettings } from '../rules/judge.js';
import type { RuleContext, ScopedChange } from '../rules/types.js';
import { buildEvidence, type HashComparison, type RunResult } from '../report/evidence.js';

export interface DiffRequest extends JudgeSettings {
  before: string;
  after: string;
  /** Whose recorded renames apply; default: the contract beside `after`, else beside `before`, else the bundled one. */
  contractFile?: string | undefined;
  /** The rule pack to run; default: the pack marked default. */
  pack?: string | undefined;
}

/** Compare two fixture directories offline, file by file, with the same change classes as `check`, and the contracts beside them. */
export function diffFixtureDirs(request: DiffRequest): RunResult {
  const started = performance.now();
  const ruleSet = loadRules(request.rulesDir);
  const config = loadConfig(request.configFile, ruleSet, request.cwd, { allowIntegrityOverrides: request.allowIntegrityOverrides });
  const { file: contractFile, naming } = contractInUse(request.contractFile, [request.after, request.before]);
  const before = listFixtureFiles(request.before);
  const after = listFixtureFiles(request.after);
  const pairs = pairFixtureFiles([...before.keys()], [...after.keys()]);
  if (pairs.length === 0)
    throw new ConformError(
      'nothing-tested',
      `no fixture file name is present in both ${request.before} and ${request.after}; nothing was compared`,
    );

  const changes: ScopedChange[] = [];
  const hashes: Record<string, HashComparison> = {};
  // The fields one side lacks, grouped: `titles, instructions: not recorded in the older fixtures (a.json, b.json)`.
  const unrecorded = new Map<string, string[]>();
  const noteUnrecorded = (fields: readonly string[], side: string, file: string) => {
    if (fields.length === 0) return;
    const what = `${fields.join(', ')}: not recorded in the ${side}`;
    unrecorded.set(what, [...(unrecorded.get(what) ?? []), file]);
  };
  for (const { before: beforeName, after: afterName, scope } of pairs) {
    const a = before.get(beforeName)!;
    const b = after.get(afterName)!;
    const found = fixtureChanges(a, b, naming.policy.renames, { before: a.descriptions, after: b.descriptions });
    const capabilities = keyCapabilitiesChange(b.profile, a.capabilities ?? null, b.capabilities ?? null);
    if (capabilities) found.push(capabilities);
    found.push(...sdkChanges(a.sdk, b.sdk));
    for (const change of found) changes.push({ scope, change });
    hashes[scope] = {
      expected: { source: join(request.before, beforeName), hash: a.hash },
      found: { source: join(request.after, afterName), hash: b.hash },
      drift: explainDrift(a, b, found),
    };
    const [onlyA, onlyB] = [unrecordedFields(a), unrecordedFields(b)];
    noteUnrecorded(
      onlyA.filter((field) => !onlyB.includes(field)),
      'older fixtures',
      beforeName,
    );
    noteUnrecorded(
      onlyB.filter((field) => !onlyA.includes(field)),
      'newer fixtures',
      afterName,
    );
  }
  const paired = new Set(pairs.flatMap((pair) => [`before/${pair.before}`, `after/${pair.after}`]));
  const onlyBefore = [...before.keys()].filter((name) => !paired.has(`before/${name}`));
  const onlyAfter = [...after.keys()].filter((name) => !paired.has(`after/${name}`));
  for (const change of profileSetChanges(before, after, onlyBefore, onlyAfter)) changes.push(change);
  const renames = new Map(
    changes.filter(({ change }) => change.kind === 'tool-renamed').map(({ change }) => [String(change.before), String(change.after)]),
  );
  const contracts = contractComparison(request.before, request.after, renames);
  for (const change of contracts.changes) changes.push({ scope: 'contract', change });
  const prompts = diffPromptFixtures(request.before, request.after, [...before.keys(), ...after.keys()]);
  for (const change of prompts.changes) changes.push(change);
  const context: RuleContext = { mode: 'diff', profile: '*', surfaces: [], changes };
  const judged = judge(ruleSet, context, config, request.today ?? today(), selectPack(ruleSet, request.pack));
  const notes = [...[...unrecorded].map(([what, files]) => `${what} (${files.join(', ')}), not compared`), ...contracts.notes];
  const evidence = buildEvidence('diff', judged, config, performance.now() - started, {
    target: {
      before: request.before,
      after: request.after,
      compared: pairs.map(({ scope }) => `${scope}.json`),
      unmatched: [...onlyBefore.map((name) => `${name} (before only)`), ...onlyAfter.map((name) => `${name} (after only)`)],
      ...(prompts.compared.length || prompts.unmatched.length
        ? { promptsCompared: prompts.compared, promptsUnmatched: prompts.unmatched }
        : {}),
    },
    contract: { file: contractFile, profile: null, namingPolicy: naming.source },
    ...(notes.length ? { notes } : {}),
    hashes,
    ...(prompts.compared.length ? { promptHashes: prompts.hashes } : {}),
  });
  return { findings: judged.findings, evidence, rules: ruleSet, evaluated: judged.evaluated };
}
