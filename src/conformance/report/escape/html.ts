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
