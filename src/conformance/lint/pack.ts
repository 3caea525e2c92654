import { resolve } from 'node:path';
import { gitRootOf } from '../rules/config.js';
import { ConformError } from '../errors.js';
import { selectPack, type PackDefinition, type RuleSet } from '../rules/engine.js';

/** The checkout `lint` reads: DIR as given (relative to `cwd`), else the git root of `cwd`, else `cwd`. */
export function lintRoot(dir: string | undefined, cwd: string): string {
  return dir === undefined ? (gitRootOf(cwd) ?? resolve(cwd)) : resolve(cwd, dir);
}

/** The pack lint runs: the one named, else the one whose baseline is a repository. */
export function lintPack(ruleSet: RuleSet, name?: string): PackDefinition {
  if (name !== undefined) return selectPack(ruleSet, name, 'repository');
  const pack = ruleSet.packs.find((candidate) => candidate.baseline === 'repository');
  if (!pack) throw new ConformError('config', 'no rule pack has the repository baseline that lint runs; reinstall the checker');
  return pack;
}
