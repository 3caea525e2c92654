import { createHash } from 'node:crypto';

export const SEVERITIES = ['error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const CHANGE_CLASSES = ['breaking', 'non-breaking', 'info'] as const;
export type ChangeClass = (typeof CHANGE_CLASSES)[number];

/** Where a finding was seen: an era of the live server, or a side of an offline diff. */
export type Scope = string;

/** One problem, as every report renders it. */
export interface Finding {
  ruleId: string;
  severity: Severity;
  category: string;
  /** Diff findings only: the class of the change. */
  class?: ChangeClass;
  message: string;
  /** One-line fix hint. */
  fix: string;
  /** Path of the rule's documentation inside the package, with an anchor. */
  doc: string;
  tool?: string;
  /** The prompt the finding is about (prompt diff findings). */
  prompt?: string;
  /** JSON path inside the tool, prompt or fixture, e.g. `inputSchema.properties.confirm`. */
  path?: string;
  /** How sure the finding is, 0–1, when it is an inference (a rename recognised by similarity). */
  confidence?: number;
  /** Eras (or fixture files) the finding was seen in. */
  scopes: Scope[];
  /** Stable across runs and independent of message wording: sha256 of rule, profile, tool, path, key (and prompt). */
  fingerprint: string;
  suppressed?: { reason: string; expires?: string };
  /**
   * Prose a model reads that changed, was added or was removed (a description, a title, a prompt
   * text), as far as each side is known: a missing side is text that was not there, or (for a
   * change of a description whose earlier text the fixture does not record) not known.
   */
  text?: { before?: string | undefined; after?: string | undefined };
  /** The tool's input schema, expected and live, on the first change finding of a changed tool. */
  schemas?: { before: unknown; after: unknown };
  /** Lint findings: the file, relative to the linted checkout, and the line the drift is on. */
  location?: { file: string; line: number };
}

export function severityRank(severity: Severity): number {
  return SEVERITIES.length - SEVERITIES.indexOf(severity);
}

export function atOrAbove(severity: Severity, threshold: Severity): boolean {
  return severityRank(severity) >= severityRank(threshold);
}

export function fingerprintOf(parts: {
  ruleId: string;
  profile: string;
  tool?: string | undefined;
  prompt?: string | undefined;
  path?: string | undefined;
  key?: string | undefined;
}): string {
  // The prompt joins only when present, so the fingerprints of tool findings never changed.
  const text = [
    parts.ruleId,
    parts.profile,
    parts.tool ?? '',
    parts.path ?? '',
    parts.key ?? '',
    ...(parts.prompt === undefined ? [] : [parts.prompt]),
  ].join('\u0000');
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);
}

/** What a finding is about, for reading: `b2_list_buckets`, `prompt b2_audit_public_exposure`, or nothing. */
export function subjectOf(finding: Pick<Finding, 'tool' | 'prompt'>): string | undefined {
  return finding.tool ?? (finding.prompt === undefined ? undefined : `prompt ${finding.prompt}`);
}

/** Findings ordered for reading: most severe first, then by rule, tool (or prompt) and path. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      severityRank(b.severity) - severityRank(a.severity) ||
      a.ruleId.localeCompare(b.ruleId) ||
      (a.tool ?? a.prompt ?? '').localeCompare(b.tool ?? b.prompt ?? '') ||
      (a.path ?? '').localeCompare(b.path ?? ''),
  );
}
