import type { ProbeAspect } from './aspects.js';
import type { CanaryScanner } from './secrets.js';

/**
 * What the live probes observed. Each observation names an aspect (e.g. `gate.unconfirmed`);
 * rules in rules/*.json pick the aspects they judge, so the probes never name a rule id.
 */
export interface ProbeObservation {
  /** Dotted aspect a rule selects, e.g. `gate.declined`, `format.toon`, `secret.leak` (see aspects.ts). */
  aspect: ProbeAspect;
  passed: boolean;
  tool?: string;
  /** What was tried, e.g. `decline`, `confirm: true`, `toon`; part of the finding's fingerprint. */
  variant?: string;
  /** One line on what happened; never contains server output verbatim or a secret. */
  detail: string;
}

/** Where the probes stand, for the evidence block of every report (names only, never values). */
export interface ProbeEvidence {
  /** False when the server never reached the sandbox (it ignores B2_API_URL). */
  applicable: boolean;
  /** Drew the clients, configurations and call order; `--seed` replays the run. */
  seed: number;
  /** Each session's era, client, policy, output format, elicitation and sampling: what the run covered. */
  combinations: string[];
  sandbox: 'in-process' | 'external';
  /** One per server session: which policy and output format it ran with, and which client. */
  sessions: { name: string; client: string; policy: string | null; outputFormat: string | null; env: string[] }[];
  gate: { tools: number; calls: number; elicitations: number };
  /** Ungated write tools called once each, judged by their declared effect. */
  writes: { tools: number; calls: number };
  /** Tools called once with an undeclared argument. */
  arguments: { tools: number; calls: number };
  format: { calls: number; modes: string[] };
  /** Canaries: the keys' secrets and every token the sandbox issued to them. */
  secrets: { canaries: number; places: string[] };
  /** The time budget, and whether the run stopped before the end (budget spent, or the server stalled). */
  budget: { maxDuration: string; stoppedEarly: boolean };
  /** Parts that could not run, with the reason (e.g. no restart for a server started by hand). */
  skipped: string[];
  passed: number;
  failed: number;
  durationMs: number;
}

export interface ProbeOutcome {
  observations: ProbeObservation[];
  evidence: ProbeEvidence;
  /** Finds the run's canaries in text (for the checker's own report); never serialized. */
  scanner: CanaryScanner;
}

/** Reports which probe step runs now: `done` of `total` finished. */
export type ProgressListener = (done: number, total: number, label: string) => void;
