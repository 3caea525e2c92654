import { CHANGE_CLASSES, subjectOf, type ChangeClass, type Finding } from '../rules/findings.js';

export interface Summary {
  /** Unsuppressed findings. */
  total: number;
  /** Most frequent first. */
  byRule: [string, number][];
  byTool: [string, number][];
  /** Change classes of diff findings; `other` counts findings that are not changes. */
  byClass: Record<ChangeClass | 'other', number>;
}

function counted(keys: readonly string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** Counts a reviewer reads first: by rule, by tool, by class. */
export function summarize(findings: readonly Finding[]): Summary {
  const active = findings.filter((finding) => !finding.suppressed);
  const byClass = Object.fromEntries([...CHANGE_CLASSES, 'other'].map((name) => [name, 0])) as Summary['byClass'];
  for (const finding of active) byClass[finding.class ?? 'other']++;
  return {
    total: active.length,
    byRule: counted(active.map((finding) => finding.ruleId)),
    byTool: counted(active.flatMap((finding) => subjectOf(finding) ?? [])),
    byClass,
  };
}

export function classLine(summary: Summary): string {
  return `${summary.byClass.breaking} breaking, ${summary.byClass['non-breaking']} non-breaking, ${summary.byClass.info} info changes; ${summary.byClass.other} other findings`;
}

export interface FindingGroup {
  /** The tool or prompt, or null for findings about the server as a whole. */
  subject: string | null;
  findings: Finding[];
}

/** Findings per tool (or prompt), in the order of their most severe finding; general findings first. */
export function groupBySubject(findings: readonly Finding[]): FindingGroup[] {
  const groups = new Map<string | null, Finding[]>();
  for (const finding of findings) {
    const subject = subjectOf(finding) ?? null;
    const group = groups.get(subject) ?? [];
    group.push(finding);
    groups.set(subject, group);
  }
  return [...groups]
    .map(([subject, list]) => ({ subject, findings: list }))
    .sort((a, b) => Number(a.subject !== null) - Number(b.subject !== null));
}
