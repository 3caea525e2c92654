import { Chalk } from 'chalk';
import { subjectOf, type Finding, type Severity } from '../rules/findings.js';
import type { RunResult } from './evidence.js';
import { evidenceLines } from './evidence-lines.js';
import { terminalSafe as t } from './escape/terminal.js';
import { classLine, groupBySubject, summarize } from './summary.js';
import { classTag, GLYPH as MARK, markOf, worstMark } from './marks.js';
import { plainStyle, shownText, styledText, textLabel } from './shown-text.js';
import { configLine, countsLine, type Verdict } from './verdict.js';

/** Without --verbose: at most about this many finding lines in all, shared by the tools. */
const FINDING_LINES = 240;
/** …but each tool gets at least this many lines (and always its most severe finding). */
const MIN_PER_TOOL = 3;
/** Summary rows by rule and by tool. */
const TOP = 8;
/** Longest server-derived text on one line without --verbose. */
const CLIP = 200;
/** Longest message without --verbose: room for a long path and both values of a change. */
const MESSAGE_CLIP = CLIP * 2;

type Paint = InstanceType<typeof Chalk>;

function clip(text: string, verbose: boolean, limit = CLIP): string {
  return verbose || text.length <= limit ? text : `${text.slice(0, limit)}…`;
}

/**
 * Human-readable report: the summary (by rule, tool and class), then the findings grouped per
 * tool, then the fix of each rule seen, the evidence and the verdict, always the last line.
 * Without `verbose` each tool shows a share of a fixed budget of lines and long texts are clipped,
 * so the report stays a few hundred lines whatever the server lists.
 */
export function renderPretty(result: RunResult, verdict: Verdict, options: { color: boolean; verbose?: boolean }): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const verbose = options.verbose ?? false;
  const paint: Record<Severity, (text: string) => string> = { error: c.red, warning: c.yellow, info: c.blue };
  const out: string[] = [];
  const { evidence } = result;
  out.push(c.bold(`b2-mcp-conform ${evidence.command}${evidence.profile ? ` · profile ${t(evidence.profile)}` : ''}`), '');

  const active = result.findings.filter((finding) => !finding.suppressed);
  if (active.length === 0) out.push(c.green('No findings.'), '');
  else out.push(...summaryLines(active, c, verbose), '');

  const groups = groupBySubject(active);
  const share = Math.max(MIN_PER_TOOL, Math.floor(FINDING_LINES / Math.max(1, groups.length)));
  let hidden = 0;
  for (const group of groups) {
    const worst = worstMark(group.findings);
    out.push(
      paint[worst](c.bold(`${MARK[worst]} ${group.subject === null ? 'the server as a whole' : t(clip(group.subject, verbose))}`)) +
        c.dim(` (${group.findings.length})`),
    );
    let used = 0;
    let shown = 0;
    for (const finding of textFirst(group.findings)) {
      const lines = findingLines(finding, c, paint, verbose);
      if (!verbose && shown > 0 && used + lines.length > share) break;
      out.push(...lines);
      used += lines.length;
      shown++;
    }
    if (group.findings.length > shown) {
      hidden += group.findings.length - shown;
      out.push(c.dim(`    … ${group.findings.length - shown} more (--verbose shows all)`));
    }
  }
  if (groups.length) out.push('');

  const suppressed = result.findings.filter((finding) => finding.suppressed);
  if (suppressed.length > 0) {
    out.push(c.dim(`${suppressed.length} suppressed:`));
    for (const finding of verbose ? suppressed : suppressed.slice(0, TOP))
      out.push(
        c.dim(`  ${t(finding.ruleId)} ${t(clip(subjectOf(finding) ?? '', verbose))} — ${t(clip(finding.suppressed!.reason, verbose))}`),
      );
    if (!verbose && suppressed.length > TOP) out.push(c.dim(`  … ${suppressed.length - TOP} more`));
    out.push('');
  }

  if (!verbose && active.length) out.push(...fixLines(active, result, c), '');

  out.push(c.bold('Evidence'));
  for (const [label, value] of evidenceLines(evidence)) out.push(`  ${c.dim(`${t(clip(label, verbose))}:`)} ${t(clip(value, verbose))}`);
  out.push('');
  if (hidden) out.push(c.dim(`${hidden} findings not shown; --verbose lists every one, --format json or sarif carries them all.`));
  const status = verdict.failed ? c.red(c.bold('FAIL')) : c.green(c.bold('PASS'));
  out.push(`${status} ${countsLine(verdict)} (fail-on ${verdict.failOn}) · ${t(configLine(evidence.config))}`);
  return `${out.join('\n')}\n`;
}

/** A tool's findings with the text a model reads first, so a tool's share of lines never leaves a text change out for a bound. */
function textFirst(findings: readonly Finding[]): Finding[] {
  return [...findings.filter((finding) => finding.text), ...findings.filter((finding) => !finding.text)];
}

function summaryLines(active: readonly Finding[], c: Paint, verbose: boolean): string[] {
  const summary = summarize(active);
  const top = (rows: [string, number][]) => {
    const shown = verbose ? rows : rows.slice(0, TOP);
    const more = rows.length - shown.length;
    return `${shown.map(([key, count]) => `${t(clip(key, verbose))} ${count}`).join(' · ')}${more ? c.dim(` · +${more} more`) : ''}`;
  };
  const lines = [
    c.bold(`Summary: ${summary.total} finding${summary.total === 1 ? '' : 's'}`),
    `  ${c.dim('by class:')} ${classLine(summary)}`,
    `  ${c.dim('by rule:')}  ${top(summary.byRule)}`,
  ];
  if (summary.byTool.length) lines.push(`  ${c.dim('by tool:')}  ${top(summary.byTool)}${c.dim(` (${summary.byTool.length} tools)`)}`);
  return lines;
}

function findingLines(finding: Finding, c: Paint, paint: Record<Severity, (text: string) => string>, verbose: boolean): string[] {
  const mark = markOf(finding);
  const tag = classTag(finding);
  const head = [
    paint[mark](MARK[mark]),
    c.bold(t(finding.ruleId)),
    tag ? c.dim(`[${tag}]`) : '',
    finding.path ? t(clip(finding.path, verbose)) : '',
    verbose && finding.scopes.length ? c.dim(`(${t(finding.scopes.join(', '))})`) : '',
  ]
    .filter(Boolean)
    .join(' ');
  // Compact: one line per finding; verbose: the message on its own line, then fix and doc.
  const lines = verbose
    ? [`    ${head}`, `      ${t(finding.message)}`]
    : [`    ${head} ${c.dim('—')} ${t(clip(finding.message, false, MESSAGE_CLIP))}`];
  const shown = shownText(finding, verbose ? undefined : CLIP * 2);
  if (shown) {
    const marks = plainStyle(t);
    const style =
      shown.kind === 'diff'
        ? { same: t, removed: (text: string) => c.red(marks.removed(text)), added: (text: string) => c.green(marks.added(text)) }
        : { same: t, removed: (text: string) => c.red(t(text)), added: (text: string) => c.green(t(text)) };
    lines.push(`      ${c.dim(`${textLabel(shown)}:`)} ${styledText(shown, style)}`);
  }
  if (verbose) lines.push(`      ${c.dim('fix:')} ${t(finding.fix)}`, `      ${c.dim(t(finding.doc))}`);
  return lines;
}

/** Each rule seen, once: its fix and documentation. */
function fixLines(active: readonly Finding[], result: RunResult, c: Paint): string[] {
  const lines = [c.bold('How to fix')];
  for (const ruleId of [...new Set(active.map((finding) => finding.ruleId))]) {
    const rule = result.rules.byId.get(ruleId);
    const example = active.find((finding) => finding.ruleId === ruleId)!;
    lines.push(
      `  ${c.bold(t(ruleId))}: ${t(clip(rule?.fix.includes('{') ? example.fix : (rule?.fix ?? example.fix), false))} ${c.dim(t(example.doc))}`,
    );
  }
  return lines;
}
