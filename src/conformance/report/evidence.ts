import type { CacheHint, ModernBlock } from '../../contract/fixture.js';
import type { Refusal } from '../connect/connect.js';
import type { ConnectionId } from '../connect/connections.js';
import type { ConformConfig } from '../rules/config.js';
import type { Drift } from '../diff/diff.js';
import type { Finding } from '../rules/findings.js';
import type { ProbeEvidence } from '../probes/types.js';
import type { PromptComparison } from '../snapshot/prompts.js';
import type { SuppressionOutcome } from '../rules/types.js';
import type { LiveSurface } from '../snapshot/snapshot.js';
import type { LintEvidence } from '../lint/types.js';

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
  contract?: { file: string; profile: string | null; namingPolicy: 'contract' | 'fallback'; grandfatheredFormerNames?: string[] };
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
  config: { file: string | null; source: 'explicit' | 'git-root' | null; overrides: number; applied: string[]; refused: string[]; suppressed: number; stale: number; expired: number };
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

export function configEvidence(config: ConformConfig, findings: readonly Finding[], outcome: SuppressionOutcome): Evidence['config'] {
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
