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
  /** JSON path inside the tool (or the fixture), e.g. `inputSchema.properties.confirm`. */
  path?: string;
  /** Eras (or fixture files) the finding was seen in. */
  scopes: Scope[];
  /** Stable across runs and independent of message wording: sha256 of rule, profile, tool, path, key. */
  fingerprint: string;
  suppressed?: { reason: string; expires?: string };
}

export function severityRank(severity: Severity): number {
  return SEVERITIES.length - SEVERITIES.indexOf(severity);
}

export function atOrAbove(severity: Severity, threshold: Severity): boolean {
  return severityRank(severity) >= severityRank(threshold);
}

export function fingerprintOf(parts: { ruleId: string; profile: string; tool?: string; path?: string; key?: string }): string {
  const text = [parts.ruleId, parts.profile, parts.tool ?? '', parts.path ?? '', parts.key ?? ''].join('\u0000');
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);
}

/** Findings ordered for reading: most severe first, then by rule, tool and path. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      severityRank(b.severity) - severityRank(a.severity) ||
      a.ruleId.localeCompare(b.ruleId) ||
      (a.tool ?? '').localeCompare(b.tool ?? '') ||
      (a.path ?? '').localeCompare(b.path ?? ''),
  );
}
