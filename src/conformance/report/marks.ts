import { severityRank, type ChangeClass, type Finding, type Severity } from '../rules/findings.js';

/** The glyph of each mark, in the terminal report and on the review page. */
export const GLYPH: Record<Severity, string> = { error: '✖', warning: '⚠', info: 'ℹ' };

/** The severity a change of each class has when nothing raises it (`diff` without overrides). */
const SEVERITY_OF_CLASS: Record<ChangeClass, Severity> = { breaking: 'error', 'non-breaking': 'warning', info: 'info' };

/**
 * The mark (glyph, icon) a finding gets: a change by its class, so the same change looks the same
 * in `check`, where the frozen contract makes every change an error, and in `diff`; any other
 * finding by its severity.
 */
export function markOf(finding: Pick<Finding, 'class' | 'severity'>): Severity {
  return finding.class ? SEVERITY_OF_CLASS[finding.class] : finding.severity;
}

/**
 * A change's class, and its severity when the mark does not say it (a change the frozen contract
 * or the config raised or lowered): `non-breaking, counted as error`. Empty for a finding that is no change.
 */
export function classTag(finding: Pick<Finding, 'class' | 'severity'>): string {
  if (!finding.class) return '';
  return markOf(finding) === finding.severity ? finding.class : `${finding.class}, counted as ${finding.severity}`;
}

/** The most severe mark of a group of findings. */
export function worstMark(findings: readonly Pick<Finding, 'class' | 'severity'>[]): Severity {
  return findings.map(markOf).reduce((worst, mark) => (severityRank(mark) > severityRank(worst) ? mark : worst), 'info');
}
