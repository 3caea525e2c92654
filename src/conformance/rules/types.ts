import type { LoadedContract } from '../../contract/artifact.js';
import type { LintInput } from '../lint/types.js';
import type { Refusal } from '../connect/connect.js';
import type { Change } from '../diff/changes.js';
import type { PolicyInUse } from '../diff/naming-policy.js';
import type { ChangeClass, Scope, Severity } from './findings.js';
import type { ProbeOutcome } from '../probes/types.js';
import type { ScenarioOutcome } from '../probes/scenarios.js';
import type { LiveSurface } from '../snapshot/snapshot.js';
import type { SnapshotManifest } from '../snapshot/manifest.js';

/** A rule as written in rules/*.json. */
export interface RuleDefinition {
  id: string;
  severity: Severity;
  category: string;
  /** The packs the rule belongs to (its file's, unless the rule lists its own). */
  packs: string[];
  title: string;
  /** Template: `{tool}`, `{prompt}`, `{path}`, `{scope}` and any key of the finding's data. */
  message: string;
  rationale: string;
  fix: string;
  doc: string;
  /** Where the rule comes from (contract section, issue), for reviewers. */
  source?: string;
  check: { kind: string } & Record<string, unknown>;
  /** Diff rules: the class of the change they report. */
  class?: ChangeClass;
  /** Severity while checking a live server against the frozen contract (overrides `severity`). */
  frozenSeverity?: Severity;
  /**
   * The rule guards the verdict itself (probe integrity, secret leaks, gate behaviour, tool-set
   * changes): a config file cannot turn it off, lower it or suppress its findings without
   * --allow-integrity-overrides.
   */
  integrity?: boolean;
  /** Drop this rule's finding when one of these rules reports the same tool (or anything, for findings without a tool). */
  subsumedBy?: string[];
  /** Texts the rule reports and texts it does not: shown in its doc, run by a test. */
  examples?: { flagged?: string[]; clean?: string[] };
}

export interface ScopedChange {
  scope: Scope;
  change: Change;
}

/** What the suppression stage learned; input of the config-phase check kinds. */
export interface SuppressionOutcome {
  stale: { index: number; description: string }[];
  expired: { index: number; description: string; expires: string }[];
  /** Suppressions that matched findings of integrity rules only, and so suppressed nothing. */
  refused: { index: number; description: string }[];
}

/** Everything a check kind may look at. Absent parts make kinds that need them skip. */
export interface RuleContext {
  mode: 'check' | 'diff' | 'lint';
  profile: string;
  /** Check mode: one per judged connection (modern, legacy, witness). */
  surfaces: LiveSurface[];
  /** Check mode: every look at the server, the judged connections and the compared-only ones (other protocol versions and clients). */
  looks?: LiveSurface[];
  /** Check mode: looks whose protocol version the server did not accept (refused, or answered with another version). */
  refused?: Refusal[];
  /** Check mode, held to a snapshot: what the snapshot recorded of eras, protocol versions and compared-only looks. */
  snapshot?: SnapshotManifest;
  contract?: LoadedContract | undefined;
  /** Check mode: the naming policy of the contract in use. */
  naming?: PolicyInUse | undefined;
  changes: ScopedChange[];
  suppressions?: SuppressionOutcome;
  /** Check mode with probes: what the live probes observed. */
  probes?: ProbeOutcome;
  /** Check mode with --scenarios: every expectation of the scenario file, met or not. */
  scenarios?: ScenarioOutcome;
  /** `lint`, and `check --lint`: the checkout read without running it. */
  lint?: LintInput;
}

/** A finding before the engine dresses it with the rule's metadata. */
export interface RawFinding {
  tool?: string | undefined;
  prompt?: string | undefined;
  path?: string | undefined;
  /** The era(s) or file(s) it was seen in. */
  scope?: Scope | Scope[];
  /** Extra discriminator for the fingerprint when tool + path are not unique. */
  key?: string | undefined;
  /** How sure the finding is, 0–1, when it is an inference (a rename recognised by similarity). */
  confidence?: number;
  data?: Record<string, unknown>;
  /** Prose that changed, when both sides are known: reports show a word diff. */
  text?: { before?: string | undefined; after?: string | undefined };
  /** The tool's input schema, expected and live: the review page shows them side by side. */
  schemas?: { before: unknown; after: unknown };
  /** Lint findings: the file (relative to the linted checkout) and line the drift is on. */
  location?: { file: string; line: number };
}

export type Need = 'live' | 'contract' | 'naming' | 'changes' | 'suppressions' | 'probes' | 'scenarios' | 'snapshot' | 'lint';

/**
 * A generic check: a pure function of its parameters and the context. `Params` is their type as
 * the schema admits them (rule validation holds the rule files to the schema).
 */
export interface CheckKind<Params = Record<string, unknown>> {
  /** JSON Schema of the parameters a rule passes (next to `kind`). */
  params: Record<string, unknown>;
  needs: Need[];
  run(params: Params, context: RuleContext): RawFinding[];
}
