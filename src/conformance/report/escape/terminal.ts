/**
 * Text a server chose, made safe for a terminal (and any log viewer that renders ANSI): every
 * control character (C0, DEL, C1, so ESC and CSI too), every invisible format character (bidi
 * overrides and isolates, zero-width characters, tag characters), line and paragraph separators,
 * lone surrogates and noncharacters are shown as escapes (`\x1b`, `\u202e`). The result is one
 * line that cannot move the cursor, change colours, conceal text or reorder what follows it.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Noncharacter_Code_Point}\u2060-\u206f\u{e0000}-\u{e007f}]/gu;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeCodePoint(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.codePointAt(0)!;
  const hex = code.toString(16);
  if (code < 0x100) return `\\x${hex.padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${hex.padStart(4, '0')}`;
  return `\\u{${hex}}`;
}

export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, escapeCodePoint);
}
