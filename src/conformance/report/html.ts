import { createHash } from 'node:crypto';
import { joinPath } from '../diff/schema.js';
import { subjectOf, type Finding } from '../rules/findings.js';
import type { RunResult } from './evidence.js';
import { evidenceLines } from './evidence-lines.js';
import { htmlBreakable, htmlLines, htmlText as h } from './escape/html.js';
import { GLYPH, markOf } from './marks.js';
import { bareStyle, shownText, styledText, textLabel } from './shown-text.js';
import { classLine, groupBySubject, summarize } from './summary.js';
import { verdictLine, type Verdict } from './verdict.js';

const STYLE = `
:root { color-scheme: light dark; --bg: #fff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --error: #cf222e; --warning: #9a6700; --info: #0969da; --del: #ffebe9; --ins: #dafbe1; --mark: #fff8c5; }
@media (prefers-color-scheme: dark) { :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --error: #ff7b72; --warning: #d29922; --info: #58a6ff; --del: #5d1a1d; --ins: #1a4d2a; --mark: #4d3800; } }
body { background: var(--bg); color: var(--fg); font: 14px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; overflow-wrap: anywhere; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 2rem; } h3 { font-size: 1rem; margin: 1.5rem 0 .5rem; }
.verdict { font-weight: 600; padding: .5rem .75rem; border: 1px solid var(--line); border-radius: 6px; }
.fail { color: var(--error); } .pass { color: #1a7f37; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; } th, td { border: 1px solid var(--line); padding: .25rem .5rem; text-align: left; vertical-align: top; }
col.mark { width: 6rem; } col.rule { width: 14rem; } col.path { width: 15rem; } col.status { width: 7rem; } col.count { width: 6rem; } #evidence th { width: 11rem; }
code { font: 12px ui-monospace, monospace; }
.message, .text { white-space: pre-wrap; }
.error { color: var(--error); } .warning { color: var(--warning); } .info { color: var(--info); }
del { background: var(--del); } ins { background: var(--ins); text-decoration: none; }
.muted { color: var(--muted); } fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 1rem 0; } label { margin-right: 1rem; }
[hidden] { display: none !important; }
.sides { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: .5rem; margin-bottom: .5rem; }
.sides pre { font: 12px/1.4 ui-monospace, monospace; border: 1px solid var(--line); border-radius: 6px; padding: .5rem; margin: 0; overflow-y: auto; max-height: 32rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.sides .changed { background: var(--mark); display: inline-block; min-width: 100%; }
`;

// Each checkbox names a data attribute and a value; a row shows when every attribute it has is checked.
const SCRIPT = `
const boxes = [...document.querySelectorAll('input[data-filter]')];
function apply() {
  const off = boxes.filter((box) => !box.checked).map((box) => [box.dataset.filter, box.value]);
  for (const row of document.querySelectorAll('tr[data-severity]')) row.hidden = off.some(([key, value]) => row.dataset[key] === value);
  for (const section of document.querySelectorAll('section[data-tool]')) section.hidden = !section.querySelector('tr[data-severity]:not([hidden])');
  document.getElementById('shown').textContent = String(document.querySelectorAll('tr[data-severity]:not([hidden])').length);
}
for (const box of boxes) box.addEventListener('change', apply);
apply();
`;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** What happened to a tool, from its findings. */
function statusOf(findings: readonly Finding[]): string {
  const ids = new Set(findings.map((finding) => finding.ruleId.split('/')[1]));
  if (ids.has('tool-renamed')) return 'renamed';
  if (ids.has('tool-added')) return 'added';
  if (ids.has('tool-removed')) return 'removed';
  return 'changed';
}

/** Characters of text one finding shows (a hostile server cannot make the page huge). */
const TEXT_LIMIT = 4000;

const MARKED = {
  same: htmlLines,
  removed: (text: string) => `<del>${htmlLines(text)}</del>`,
  added: (text: string) => `<ins>${htmlLines(text)}</ins>`,
};

/** The text a model reads: the whole text when only one side has it, else a word diff; line breaks kept. */
function textHtml(finding: Finding): string {
  const shown = shownText(finding, TEXT_LIMIT);
  if (!shown) return '';
  return `<div class="text muted">${shown.kind === 'diff' ? styledText(shown, MARKED) : `${textLabel(shown)}: ${styledText(shown, bareStyle(htmlLines))}`}</div>`;
}

/** Lines one side of the side-by-side view shows at most; a hostile schema cannot make the page huge. */
const SCHEMA_LINES = 400;
const SCHEMA_DEPTH = 32;

interface SchemaLine {
  text: string;
  path: string;
}

/** A JSON value pretty-printed line by line, each line with the JSON path of the value it shows. */
function schemaLines(value: unknown, path: string, out: SchemaLine[], indent = '', label = '', comma = ''): void {
  if (out.length > SCHEMA_LINES) return;
  const entries: [string | number, unknown][] | null = Array.isArray(value)
    ? value.map((item, index) => [index, item])
    : value !== null && typeof value === 'object'
      ? Object.entries(value)
      : null;
  if (entries === null || entries.length === 0 || indent.length >= SCHEMA_DEPTH * 2) {
    const shown =
      entries === null ? (JSON.stringify(value) ?? 'undefined') : entries.length === 0 ? (Array.isArray(value) ? '[]' : '{}') : '…';
    out.push({ text: `${indent}${label}${shown}${comma}`, path });
    return;
  }
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  out.push({ text: `${indent}${label}${open}`, path });
  for (const [index, [key, item]] of entries.entries()) {
    const label = typeof key === 'number' ? '' : `${JSON.stringify(key)}: `;
    schemaLines(item, joinPath(path, key), out, `${indent}  `, label, index < entries.length - 1 ? ',' : '');
  }
  out.push({ text: `${indent}${close}${comma}`, path });
}

/** One side of a schema, with the lines at or under a changed path marked. */
function schemaSide(schema: unknown, changed: readonly string[]): string {
  const lines: SchemaLine[] = [];
  schemaLines(schema, 'inputSchema', lines);
  const isChanged = (path: string) => changed.some((at) => path === at || path.startsWith(`${at}.`) || path.startsWith(`${at}[`));
  const shown = lines
    .slice(0, SCHEMA_LINES)
    .map((line) => (isChanged(line.path) ? `<span class="changed">${h(line.text)}</span>` : h(line.text)));
  if (lines.length > SCHEMA_LINES) shown.push(h(`… (first ${SCHEMA_LINES} lines shown)`));
  return shown.join('\n');
}

/** The fixture's and the live input schema of a changed tool, side by side, changed paths marked. */
function schemasHtml(findings: readonly Finding[]): string {
  const schemas = findings.find((finding) => finding.schemas)?.schemas;
  if (!schemas) return '';
  const changed = findings.map((finding) => finding.path).filter((path): path is string => path?.startsWith('inputSchema') ?? false);
  return `<div class="sides"><div><div class="muted">Fixture</div><pre data-schema="before">${schemaSide(schemas.before, changed)}</pre></div><div><div class="muted">Live</div><pre data-schema="after">${schemaSide(schemas.after, changed)}</pre></div></div>`;
}

function checkboxes(name: string, key: string, values: readonly string[]): string {
  return `<span>${name}: ${values.map((value) => `<label><input type="checkbox" data-filter="${key}" value="${h(value)}" checked> ${h(value)}</label>`).join('')}</span>`;
}

/**
 * One self-contained page for a reviewer: verdict and summary, filters (severity, class,
 * category), the findings per tool with word diffs and, for a changed tool, its fixture and live
 * input schema side by side with the changed paths marked, the evidence. No network: inline style and
 * script only, pinned by hash in a Content-Security-Policy that forbids every other source and
 * inline event handlers; every server-derived string is HTML-escaped text.
 */
export function renderHtml(result: RunResult, verdict: Verdict): string {
  const { evidence } = result;
  const active = result.findings.filter((finding) => !finding.suppressed);
  const summary = summarize(active);
  const csp = `default-src 'none'; style-src ${sha256(STYLE)}; script-src ${sha256(SCRIPT)}; img-src data:; base-uri 'none'; form-action 'none'`;
  const categories = [...new Set(active.map((finding) => finding.category))].sort();
  const classes = [...new Set(active.map((finding) => finding.class ?? 'other'))].sort();
  const out: string[] = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>b2-mcp-conform ${h(evidence.command)}${evidence.profile ? ` · ${h(evidence.profile)}` : ''}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>b2-mcp-conform ${h(evidence.command)}${evidence.profile ? ` · profile <code>${h(evidence.profile)}</code>` : ''}</h1>`,
    `<p class="verdict ${verdict.failed ? 'fail' : 'pass'}" id="verdict">${h(verdictLine(verdict, evidence.config))}</p>`,
  ];
  out.push('<h2>Summary</h2>', `<p id="summary">${summary.total} findings: ${h(classLine(summary))}.</p>`);
  if (summary.byRule.length)
    out.push(`<p><strong>By rule:</strong> ${summary.byRule.map(([rule, count]) => `<code>${h(rule)}</code> ${count}`).join(' · ')}</p>`);
  const groups = groupBySubject(active);
  if (groups.length) {
    out.push(
      '<table id="tools"><colgroup><col><col class="status"><col class="count"></colgroup><thead><tr><th>Tool</th><th>Status</th><th>Findings</th></tr></thead><tbody>',
    );
    for (const group of groups)
      out.push(
        `<tr><td><code>${htmlBreakable(group.subject ?? 'the server as a whole')}</code></td><td>${group.subject === null ? '' : statusOf(group.findings)}</td><td>${group.findings.length}</td></tr>`,
      );
    out.push('</tbody></table>');
    out.push(
      '<fieldset><legend>Show</legend>',
      checkboxes('Severity', 'severity', ['error', 'warning', 'info']),
      '<br>',
      checkboxes('Class', 'class', classes),
      '<br>',
      checkboxes('Category', 'category', categories),
      `<p class="muted"><span id="shown">${active.length}</span> of ${active.length} findings shown</p>`,
      '</fieldset>',
    );
  }
  out.push('<h2>Findings</h2>');
  if (active.length === 0) out.push('<p>No findings.</p>');
  for (const group of groups) {
    out.push(
      `<section data-tool="${h(group.subject ?? '')}"><h3><code>${h(group.subject ?? 'the server as a whole')}</code> <span class="muted">(${group.findings.length})</span></h3>`,
      schemasHtml(group.findings),
    );
    out.push(
      '<table><colgroup><col class="mark"><col class="rule"><col class="path"><col></colgroup><thead><tr><th></th><th>Rule</th><th>Path</th><th>Finding</th></tr></thead><tbody>',
    );
    for (const finding of group.findings) {
      const mark = markOf(finding);
      out.push(
        `<tr data-severity="${finding.severity}" data-class="${h(finding.class ?? 'other')}" data-category="${h(finding.category)}"><td class="${mark}">${GLYPH[mark]} ${finding.severity}</td><td><code>${htmlBreakable(finding.ruleId)}</code>${finding.class ? ` <span class="muted">${finding.class}</span>` : ''}</td><td>${finding.path ? `<code>${htmlBreakable(finding.path)}</code>` : ''}</td><td><div class="message">${htmlLines(finding.message)}</div>${textHtml(finding)}<div class="muted">Fix: ${h(finding.fix)} (<code>${htmlBreakable(finding.doc)}</code>)</div></td></tr>`,
      );
    }
    out.push('</tbody></table></section>');
  }
  const suppressed = result.findings.filter((finding) => finding.suppressed);
  if (suppressed.length) {
    out.push(`<h2>Suppressed (${suppressed.length})</h2><ul>`);
    for (const finding of suppressed)
      out.push(`<li><code>${h(finding.ruleId)}</code> ${h(subjectOf(finding) ?? '')}: ${h(finding.suppressed!.reason)}</li>`);
    out.push('</ul>');
  }
  out.push('<h2>Evidence</h2><table id="evidence"><tbody>');
  for (const [label, value] of evidenceLines(evidence)) out.push(`<tr><th>${h(label)}</th><td>${h(value)}</td></tr>`);
  out.push('</tbody></table>', `<script>${SCRIPT}</script>`, '</body>', '</html>', '');
  return out.join('\n');
}
