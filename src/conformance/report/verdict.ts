import type { Evidence } from './evidence.js';
import { SEVERITIES, atOrAbove, type Finding, type Severity } from '../rules/findings.js';

export interface Verdict {
  failOn: Severity;
  /** Unsuppressed findings per severity. */
  counts: Record<Severity, number>;
  suppressed: number;
  failed: boolean;
}

export function verdictOf(findings: readonly Finding[], failOn: Severity): Verdict {
  const active = findings.filter((finding) => !finding.suppressed);
  const counts = Object.fromEntries(
    SEVERITIES.map((severity) => [severity, active.filter((finding) => finding.severity === severity).length]),
  ) as Record<Severity, number>;
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

/**
 * The config in effect, for the verdict line of every format: which file (and how it was
 * chosen), the overrides it applied, and what it asked for on integrity rules and did not get.
 */
export function configLine(config: Evidence['config']): string {
  if (!config.file) return 'no config';
  const parts = [
    `config ${config.file} (${config.source === 'explicit' ? '--config' : 'git root'})`,
    config.applied.length ? `overrides ${config.applied.join(', ')}` : 'no overrides',
  ];
  if (config.refused.length) parts.push(`refused on integrity rules: ${config.refused.join(', ')}`);
  return parts.join('; ');
}

/** The last line of the terminal report, and the verdict every other format states. */
export function verdictLine(verdict: Verdict, config: Evidence['config']): string {
  return `${verdict.failed ? 'FAIL' : 'PASS'} ${countsLine(verdict)} (fail-on ${verdict.failOn}) · ${configLine(config)}`;
}
