import type { CacheHint, ModernBlock } from '../../contract/fixture.js';
import type { Refusal } from '../connect/connect.js';
import type { ConnectionId } from '../connect/connections.js';
import type { ConformConfig } from '../rules/config.js';
import type { Drift } from '../diff/diff.js';
import type { Finding } from '../rules/findings.js';
import type { ProbeEvidence } from '../probes/types.js';
import type { PromptComparison } from '../snapshot/prompts.js';
import type { Judgement } from '../rules/judge.js';
import type { RuleSet } from '../rules/engine.js';
import type { SuppressionOutcome } from '../rules/types.js';
import type { ScenarioOutcome } from '../probes/scenarios.js';
import { toolVersions } from '../package-root.js';
import type { LiveSurface } from '../snapshot/snapshot.js';
import type { LintEvidence } from '../lint/types.js';

/** The outcome every report renders. */
export interface RunResult {
  findings: Finding[];
  evidence: Evidence;
  rules: RuleSet;
  /** Ids of the rules that ran (enabled and applicable). */
  evaluated: string[];
  /** Set when the run tested nothing (the probes were not applicable with `onlyProbes`): why. The reports are still written; the exit code is 4. */
  nothingTested?: string;
}

export interface ConnectionEvidence {
  client: { package: string; version: string };
  /** The ordinary client the connection presented as: its clientInfo and the capabilities it declared. */
  presentedAs: { name: string; version: string; capabilities: string[] };
  era: string;
  protocolVersion: string | null;
  serverInfo: { name: string; version: string } | null;
  tools: number;
  hash: string;
  /** How many prompts the connection listed; absent when the server does not advertise prompts. */
  prompts?: number;
  timings: { connectMs: number; listToolsMs: number; listPromptsMs?: number };
}

/** Expected versus found, for one era (check) or one fixture file (diff). */
export interface HashComparison {
  expected: { source: string; hash: string };
  found: { source: string; hash: string };
  drift: Drift;
}

/** What every report carries so a reader can trust (or reproduce) the verdict. */
export interface Evidence {
  command: 'check' | 'diff' | 'snapshot' | 'lint';
  /** Versions of the checker, the two client SDKs and Node. */
  versions: Record<string, string>;
  profile: string | null;
  /** How the server was reached; env and header names only, never values. */
  target: Record<string, unknown> | null;
  connections: Partial<Record<ConnectionId, ConnectionEvidence>>;
  /** Check: the looks that are only compared with the judged connections (other protocol versions and clients). */
  comparedConnections?: Partial<Record<ConnectionId, ConnectionEvidence>>;
  /** Check: compared-only looks the server did not accept (it may speak only some protocol versions). */
  refusedConnections?: Refusal[];
  /**
   * The contract artifact in use, the profile under its name, and where the naming policy came
   * from: the contract itself, or (`fallback`) the bundled contract because this one carries none.
   */
  contract?:
    | { file: string; profile: string | null; namingPolicy: 'contract' | 'fallback'; grandfatheredFormerNames?: string[] }
    | undefined;
  /** The contract's frozen profile hash, when one applies. */
  contractHash: string | null;
  /** What the reader should know about how the run was scoped (an era the server does not offer). */
  notes?: string[];
  /** `check --scenarios`: the file, how many cases ran and failed, and how many expectations were judged. */
  scenarios?: { file?: string; cases: number; failedCases: number; expectations: number; calls: number };
  hashes: Record<string, HashComparison>;
  /** Expected versus found prompts per era (check) or per profile (diff); only when prompts were compared. */
  promptHashes?: Record<string, PromptComparison>;
  cacheHints: { approved: CacheHint; modern: ModernBlock | null } | null;
  /**
   * The config in effect and how it was chosen; `applied` lists its overrides (`rule=severity`),
   * `refused` the integrity overrides and suppressions it asked for and did not get.
   */
  config: {
    file: string | null;
    source: 'explicit' | 'git-root' | null;
    overrides: number;
    applied: string[];
    refused: string[];
    suppressed: number;
    stale: number;
    expired: number;
  };
  rulesEvaluated: number;
  /** `lint`, and `check --lint`: the checkout read and the files the lint rules looked at. */
  lint?: LintEvidence;
  /** Check with probes only: what the live probes ran and found applicable. */
  probes?: ProbeEvidence;
  durationMs: number;
}

export function connectionEvidence(surfaces: readonly LiveSurface[]): Partial<Record<ConnectionId, ConnectionEvidence>> {
  const out: Partial<Record<ConnectionId, ConnectionEvidence>> = {};
  for (const surface of surfaces) {
    const { observation } = surface;
    out[surface.connection] = {
      client: observation.client,
      presentedAs: { ...observation.identity.clientInfo, capabilities: Object.keys(observation.identity.capabilities).sort() },
      era: observation.era,
      protocolVersion: observation.protocolVersion,
      serverInfo: observation.serverInfo,
      tools: surface.names.length,
      hash: surface.hash,
      ...(surface.prompts ? { prompts: surface.prompts.names.length } : {}),
      timings: observation.timings,
    };
  }
  return out;
}

function configEvidence(config: ConformConfig, findings: readonly Finding[], outcome: SuppressionOutcome): Evidence['config'] {
  return {
    file: config.file,
    source: config.source,
    overrides: Object.keys(config.rules).length,
    applied: Object.entries(config.rules).map(([rule, severity]) => `${rule}=${severity}`),
    refused: [...config.refused, ...outcome.refused.map(({ index, description }) => `suppressions/${index} (${description})`)],
    suppressed: findings.filter((finding) => finding.suppressed).length,
    stale: outcome.stale.length,
    expired: outcome.expired.length,
  };
}

/** What a command adds to the evidence every command gives; absent parts take their empty values. */
export type EvidenceParts = Partial<Omit<Evidence, 'command' | 'versions' | 'config' | 'rulesEvaluated' | 'durationMs'>>;

/** The order the evidence's fields are written in, in every command's report. */
const EVIDENCE_ORDER = [
  'command',
  'versions',
  'profile',
  'target',
  'connections',
  'comparedConnections',
  'refusedConnections',
  'contract',
  'contractHash',
  'notes',
  'hashes',
  'promptHashes',
  'cacheHints',
  'config',
  'rulesEvaluated',
  'lint',
  'probes',
  'scenarios',
  'durationMs',
] as const satisfies readonly (keyof Evidence)[];

/** The one evidence block of a judged run (check, diff or lint): the command's own parts, then how it was judged. */
export function buildEvidence(
  command: Evidence['command'],
  judged: Judgement,
  config: ConformConfig,
  durationMs: number,
  parts: EvidenceParts,
): Evidence {
  const filled: Evidence = {
    profile: null,
    target: null,
    connections: {},
    contractHash: null,
    hashes: {},
    cacheHints: null,
    ...parts,
    command,
    versions: toolVersions(),
    config: configEvidence(config, judged.findings, judged.outcome),
    rulesEvaluated: judged.evaluated.length,
    durationMs: Math.round(durationMs),
  };
  return Object.fromEntries(
    EVIDENCE_ORDER.filter((key) => filled[key] !== undefined).map((key) => [key, filled[key]]),
  ) as unknown as Evidence;
}

/** `check --scenarios` and `--call-tool`: how many cases ran and failed, and how many expectations were judged. */
export function scenarioEvidence(outcome: ScenarioOutcome): NonNullable<Evidence['scenarios']> {
  const cases = new Set(outcome.observations.map((observation) => observation.scenario));
  const failedCases = new Set(outcome.observations.filter((observation) => !observation.passed).map((observation) => observation.scenario));
  return {
    ...(outcome.file ? { file: outcome.file } : {}),
    cases: cases.size,
    failedCases: failedCases.size,
    expectations: outcome.observations.length,
    calls: outcome.calls,
  };
}
