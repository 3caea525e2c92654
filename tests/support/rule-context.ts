import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContractArtifact } from '../../src/contract/artifact.js';
import type { RuleContext } from '../../src/conformance/rules/types.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** The contract artifact as published: the oracle of the naming and contract kinds. */
export function publishedContract(): ContractArtifact {
  return JSON.parse(readFileSync(join(ROOT, 'docs', 'generated', 'tool-profile-contract.json'), 'utf8')) as ContractArtifact;
}

/** The `check` block of a rule in rules/<file>.json. */
export function ruleCheck(file: string, id: string): { kind: string } & Record<string, unknown> {
  const rules = (
    JSON.parse(readFileSync(join(ROOT, 'rules', `${file}.json`), 'utf8')) as {
      rules: { id: string; check: { kind: string } & Record<string, unknown> }[];
    }
  ).rules;
  const rule = rules.find((candidate) => candidate.id === id);
  if (!rule) throw new Error(`no rule ${id} in rules/${file}.json`);
  return rule.check;
}

export type ToolLike = { name: string } & Record<string, unknown>;

export interface SurfaceLike {
  connection: string;
  hash: string;
  listed: ToolLike[];
  names?: string[];
}

/** A surface listing `tools`; eras with the same hash are judged once, as the engine does. */
export function surface(connection: string, tools: ToolLike[], hash = 'one-surface'): SurfaceLike {
  return { connection, hash, listed: tools, names: tools.map((tool) => tool.name) };
}

/** A check-mode context whose modern, legacy and witness connections list the same tools. */
export function contextOf(tools: ToolLike[], extra: Partial<RuleContext> = {}, surfaces?: SurfaceLike[]): RuleContext {
  return {
    mode: 'check',
    profile: 'full',
    surfaces: surfaces ?? [surface('modern', tools), surface('legacy', tools), surface('witness', tools)],
    changes: [],
    ...extra,
  } as unknown as RuleContext;
}

export const named = (...names: string[]): ToolLike[] => names.map((name) => ({ name }));
