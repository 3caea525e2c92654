/**
 * JSON text that is also inert on a terminal: JSON.stringify escapes C0 controls and lone
 * surrogates (whitespace between tokens stays) but leaves DEL, C1 controls, bidi and other invisible format characters, line
 * separators and noncharacters raw; they become `\uXXXX` escapes, which parse back to the same value.
 */
const RAW_UNSAFE = /(?![\t\n\r])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Noncharacter_Code_Point}\u2060-\u206f\u{e0000}-\u{e007f}]/gu;

const unit = (code: number) => `\\u${code.toString(16).padStart(4, '0')}`;

export function jsonSafe(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(RAW_UNSAFE, (char) =>
    [...Array(char.length).keys()].map((index) => unit(char.charCodeAt(index))).join(''),
  );
}
