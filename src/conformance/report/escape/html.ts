import { terminalSafe } from './terminal.js';

const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/**
 * Text for HTML element content and quoted attribute values. Controls and invisible characters
 * are shown escaped (as on a terminal, so nothing reorders or hides text), then every character
 * that could open markup, end an attribute or start a script becomes an entity. Server strings
 * never go into URLs, styles or scripts: the page puts them only where this escaping holds.
 */
export function htmlText(text: string): string {
  return terminalSafe(text).replace(/[&<>"'`]/g, (char) => ENTITY[char]!);
}

/** Like htmlText, but line breaks stay line breaks (for an element styled `white-space: pre-wrap`). */
export function htmlLines(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map(htmlText)
    .join('\n');
}

/**
 * A name or JSON path that may wrap after its separators (`.`, `/`, `_`, `[`) rather than at any
 * letter, so a narrow column shows whole segments.
 */
export function htmlBreakable(text: string): string {
  return htmlText(text).replace(/([./_[])/g, '$1<wbr>');
}
