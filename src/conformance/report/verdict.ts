import { SEVERITIES, atOrAbove, type Finding, type Severity } from '../findings.js';

export interface Verdict {
  failOn: Severity;
  /** Unsuppressed findings per severity. */
  counts: Record<Severity, number>;
  suppressed: number;
  failed: boolean;
}

export function verdictOf(findings: readonly Finding[], failOn: Severity): Verdict {
  const active = findings.filter((finding) => !finding.suppressed);
  const counts = Object.fromEntries(SEVERITIES.map((severity) => [severity, active.filter((finding) => finding.severity === severity).length])) as Record<Severity, number>;
  return {
    failOn,
    counts,
    suppressed: findings.length - active.length,
    failed: active.some((finding) => atOrAbove(finding.severity, failOn)),
  };
}

export function countsLine(verdict: Verdict): string {
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  const parts = [plural(verdict.counts.error, 'error'), plural(verdict.counts.warning, 'warning'), `${verdict.counts.info} info`];
  if (verdict.suppressed) parts.push(`${verdict.suppressed} suppressed`);
  return parts.join(', ');
}
