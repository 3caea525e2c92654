import type { Finding } from '../rules/findings.js';
import { compactDiff, wordDiff, type DiffPart } from './word-diff.js';

/**
 * The model-visible text of a finding as every report shows it: the whole text when only one side
 * has it (a new or removed tool, a text added or dropped, or a change whose earlier text was not
 * recorded), a word diff when both sides do.
 */
export type ShownText = { kind: 'added' | 'removed'; text: string } | { kind: 'diff'; parts: DiffPart[] };

/** How each report marks kept, removed and added runs of text (escaping included). */
export type TextStyle = Record<DiffPart['kind'], (text: string) => string>;

/** Characters of text one finding shows in the formats that have no --verbose (SARIF, JUnit, GitHub). */
const TEXT_LIMIT = 1000;

/**
 * What a finding's text shows, bounded to `limit` characters with an ellipsis (none: in full); a
 * diff is first cut to a few words of context around each change.
 */
export function shownText(finding: Pick<Finding, 'text'>, limit?: number): ShownText | undefined {
  const { before, after } = finding.text ?? {};
  if (before === undefined && after === undefined) return undefined;
  if (before === undefined) return { kind: 'added', text: clipText(after!, limit) };
  if (after === undefined) return { kind: 'removed', text: clipText(before, limit) };
  const parts = diffOf(finding.text!, before, after) ?? [
    { kind: 'removed', text: before },
    { kind: 'added', text: after },
  ];
  return { kind: 'diff', parts: limit === undefined ? parts : clipParts(compactDiff(parts), limit) };
}

/** Each finding's word diff, computed once however many reports of the run show it. */
const diffs = new WeakMap<object, DiffPart[] | null>();

function diffOf(key: object, before: string, after: string): DiffPart[] | null {
  if (!diffs.has(key)) diffs.set(key, wordDiff(before, after));
  return diffs.get(key)!;
}

function clipText(text: string, limit: number | undefined): string {
  return limit === undefined || text.length <= limit ? text : `${text.slice(0, limit)}…`;
}

/** The parts of a diff cut to `limit` visible characters in all, the last one ending in an ellipsis. */
function clipParts(parts: readonly DiffPart[], limit: number): DiffPart[] {
  const out: DiffPart[] = [];
  let left = limit;
  for (const part of parts) {
    if (part.text.length > left) {
      out.push({ ...part, text: `${part.text.slice(0, left)}…` });
      break;
    }
    out.push(part);
    left -= part.text.length;
  }
  return out;
}

/** What the text is, as a label before it. */
export function textLabel(shown: ShownText): string {
  return shown.kind === 'diff' ? 'diff' : shown.kind === 'added' ? 'new text' : 'removed text';
}

/** The text in a report's own marks; an empty text is shown as `""`, never as nothing. */
export function styledText(shown: ShownText, style: TextStyle): string {
  if (shown.kind !== 'diff') return style[shown.kind](shown.text === '' ? '""' : shown.text);
  return shown.parts.map((part) => style[part.kind](part.text)).join('');
}

/** Plain-text marks, as `git diff --word-diff` writes them: `[-removed-]{+added+}`; a whole text is left bare. */
export function plainStyle(escapeText: (text: string) => string): TextStyle {
  return { same: escapeText, removed: (text) => `[-${escapeText(text)}-]`, added: (text) => `{+${escapeText(text)}+}` };
}

/** No marks at all: a whole new or removed text is plain text after its label. */
export function bareStyle(escapeText: (text: string) => string): TextStyle {
  return { same: escapeText, removed: escapeText, added: escapeText };
}

/** `label: text` in plain marks, for the formats that show one line of text per finding. */
export function plainTextLine(
  finding: Pick<Finding, 'text'>,
  escapeText: (text: string) => string,
  limit = TEXT_LIMIT,
): string | undefined {
  const shown = shownText(finding, limit);
  if (!shown) return undefined;
  return `${textLabel(shown)}: ${styledText(shown, shown.kind === 'diff' ? plainStyle(escapeText) : bareStyle(escapeText))}`;
}
