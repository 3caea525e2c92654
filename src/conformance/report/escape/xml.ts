import { terminalSafe } from './terminal.js';

/**
 * Text for XML 1.0 element content and attribute values. Controls and invisible characters are
 * shown escaped (as on a terminal); what XML 1.0 still cannot hold (lone surrogates, U+FFFE,
 * U+FFFF) is dropped; the five markup characters become entities.
 */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;
const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

export function xmlText(text: string): string {
  return terminalSafe(text)
    .replace(NOT_XML_CHAR, '')
    .replace(/[&<>"']/g, (char) => ENTITY[char]!);
}
