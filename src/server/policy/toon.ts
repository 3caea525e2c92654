/**
 * Repository-owned TOON encoder (TOON spec 4.1, comma delimiter, 2-space indent) for tool
 * result text. Rules: docs/contract.md §10.2. Production code never loads the npm TOON package;
 * tests round-trip this output through the official decoder.
 *
 * Output is built by appending `\n<indent><content>` to one string and dropping the leading
 * newline at the end. The input is assumed to be JSON-normalized already (plain objects,
 * arrays, finite numbers, strings, booleans, null).
 *
 * Compatibility with the official TOON decoder (npm release 4.4, checked by round-trip tests):
 * it reads nested field groups and the keyed object table `key[N:]{…}:`, including keyless at
 * the document root, but rejects a keyless keyed header or field list on a list item
 * (`- [N:]…`, `- [N]{…}:`); such list items therefore use the plain list/field forms. The
 * decoder also strips a byte-order mark at the start of the document, so a top-level string
 * starting with U+FEFF is quoted (a case the §10.2 rule text does not mention).
 */

export const TOON_SPEC_VERSION = '4.1';

export const TOON_BOUNDS = { maxJsonChars: 200_000, maxDepth: 64, maxNodes: 50_000 } as const;

type JsonObject = Record<string, unknown>;

/** One column of a table header; `children` makes it a nested field group (`name{a,b}`). */
interface TableField {
  key: string;
  children: TableField[] | undefined;
}

/**
 * How an array is introduced, which decides its empty form and whether a table may be used:
 * `field` = `key[N]…` (object field, or first field of a list-item object), `root` = keyless at
 * the document root, `listItem` = keyless `- [N]…` (the decoder reads no field list there).
 */
type ArrayPlace = 'field' | 'root' | 'listItem';

let out = '';
const indents: string[] = [''];

function indent(depth: number): string {
  let cached = indents[depth];
  if (cached === undefined) {
    cached = '  '.repeat(depth);
    indents[depth] = cached;
  }
  return cached;
}

function line(depth: number, content: string): void {
  out += `\n${indent(depth)}${content}`;
}

/**
 * TOON text for a JSON-normalized value. An empty top-level object yields `""` (the caller
 * substitutes `{}`). Throws an `Error` on a lone surrogate so the caller can fall back to JSON.
 */
export function encodeToon(value: unknown): string {
  if (value === null || typeof value !== 'object') return encodeRootPrimitive(value);
  out = '';
  try {
    if (Array.isArray(value)) {
      writeArray('', value, 1, 'root');
    } else {
      const keys = Object.keys(value);
      const keyed = keyedTableFields(value as JsonObject, keys);
      if (keyed) writeKeyedTable('', value as JsonObject, keys, keyed, 1);
      else writeObjectFields(value as JsonObject, keys, 0, 0);
    }
    return out.length === 0 ? '' : out.slice(1);
  } finally {
    out = '';
  }
}

/** Writes `key: value` lines at `depth` for `keys[from…]`. */
function writeObjectFields(obj: JsonObject, keys: readonly string[], from: number, depth: number): void {
  const head = indent(depth);
  for (let i = from; i < keys.length; i++) writeField(head, keys[i]!, obj[keys[i]!], depth + 1);
}

/**
 * Writes one field whose line starts with `lineStart` (indent, or indent + `- ` for the first
 * field of a list-item object); nested content goes to `childDepth`.
 */
function writeField(lineStart: string, key: string, value: unknown, childDepth: number): void {
  const head = lineStart + encodeKey(key);
  if (value === null || typeof value !== 'object') {
    out += `\n${head}: ${encodePrimitive(value)}`;
  } else if (Array.isArray(value)) {
    writeArray(head, value, childDepth, 'field');
  } else {
    const keys = Object.keys(value);
    const keyed = keyedTableFields(value as JsonObject, keys);
    if (keyed) {
      writeKeyedTable(head, value as JsonObject, keys, keyed, childDepth);
    } else {
      out += `\n${head}:`;
      writeObjectFields(value as JsonObject, keys, 0, childDepth);
    }
  }
}

function writeArray(head: string, items: readonly unknown[], childDepth: number, place: ArrayPlace): void {
  const count = items.length;
  if (count === 0) {
    out += `\n${place === 'field' ? `${head}: []` : place === 'root' ? '[]' : `${head}[0]:`}`;
    return;
  }
  let allPrimitive = true;
  let allObjects = true;
  for (let i = 0; i < count; i++) {
    const item = items[i];
    if (item !== null && typeof item === 'object') {
      allPrimitive = false;
      if (Array.isArray(item)) allObjects = false;
    } else {
      allObjects = false;
    }
    if (!allPrimitive && !allObjects) break;
  }
  if (allPrimitive) {
    out += `\n${head}[${count}]: ${joinPrimitives(items)}`;
    return;
  }
  if (allObjects && place !== 'listItem') {
    const fields = tableFields(items as readonly JsonObject[]);
    if (fields) {
      out += `\n${head}[${count}]{${fieldHeader(fields)}}:`;
      const rowIndent = indent(childDepth);
      for (let i = 0; i < count; i++) {
        out += `\n${rowIndent}`;
        writeRowCells(items[i] as JsonObject, fields, true);
      }
      return;
    }
  }
  out += `\n${head}[${count}]:`;
  for (let i = 0; i < count; i++) writeListItem(items[i], childDepth);
}

function writeListItem(item: unknown, depth: number): void {
  if (item === null || typeof item !== 'object') {
    line(depth, `- ${encodePrimitive(item)}`);
  } else if (Array.isArray(item)) {
    writeArray(`${indent(depth)}- `, item, depth + 1, 'listItem');
  } else {
    const keys = Object.keys(item);
    if (keys.length === 0) {
      line(depth, '-');
      return;
    }
    // First field on the dash line, its nested content two levels deeper; the rest one level deeper.
    writeField(`${indent(depth)}- `, keys[0]!, (item as JsonObject)[keys[0]!], depth + 2);
    writeObjectFields(item as JsonObject, keys, 1, depth + 1);
  }
}

/** Keyed object table extension: `key[N:]{fields}:` then `entryKey: cells` rows. */
function writeKeyedTable(head: string, obj: JsonObject, keys: readonly string[], fields: TableField[], childDepth: number): void {
  out += `\n${head}[${keys.length}:]{${fieldHeader(fields)}}:`;
  const rowIndent = indent(childDepth);
  for (const key of keys) {
    out += `\n${rowIndent}${encodeKey(key)}: `;
    writeRowCells(obj[key] as JsonObject, fields, true);
  }
}

function writeRowCells(row: JsonObject, fields: readonly TableField[], firstCell: boolean): boolean {
  for (const field of fields) {
    const value = row[field.key];
    if (field.children) {
      firstCell = writeRowCells(value as JsonObject, field.children, firstCell);
    } else {
      out += firstCell ? encodePrimitive(value) : `,${encodePrimitive(value)}`;
      firstCell = false;
    }
  }
  return firstCell;
}

function fieldHeader(fields: readonly TableField[]): string {
  let header = '';
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (i > 0) header += ',';
    header += encodeKey(field.key);
    if (field.children) header += `{${fieldHeader(field.children)}}`;
  }
  return header;
}

/**
 * Column layout shared by every row, or undefined. Eligible iff there is at least one row, the
 * first row is non-empty, every row has exactly the first row's key set (so none is empty), and
 * every column is all primitives or all objects that are themselves eligible (a nested field group).
 */
function tableFields(rows: readonly JsonObject[]): TableField[] | undefined {
  const rowCount = rows.length;
  if (rowCount === 0) return undefined;
  const keys = Object.keys(rows[0]!);
  const width = keys.length;
  if (width === 0) return undefined;
  for (let r = 1; r < rowCount; r++) {
    const rowKeys = Object.keys(rows[r]!);
    if (rowKeys.length !== width) return undefined;
    for (let c = 0; c < width; c++) {
      // Same order is the common case; otherwise compare as sets (equal sizes, all present).
      if (rowKeys[c] !== keys[c] && !Object.hasOwn(rows[r]!, keys[c]!)) return undefined;
    }
  }
  const fields: TableField[] = [];
  for (const key of keys) {
    let primitives = true;
    let objects = true;
    for (let r = 0; r < rowCount; r++) {
      const value = rows[r]![key];
      if (value === null || typeof value !== 'object') objects = false;
      else if (Array.isArray(value)) return undefined;
      else primitives = false;
      if (!primitives && !objects) return undefined;
    }
    if (primitives) {
      fields.push({ key, children: undefined });
      continue;
    }
    const children = tableFields(rows.map((row) => row[key] as JsonObject));
    if (!children) return undefined;
    fields.push({ key, children });
  }
  return fields;
}

/** Field layout when an object qualifies for the keyed table extension (≥2 entries, all table rows). */
function keyedTableFields(obj: JsonObject, keys: readonly string[]): TableField[] | undefined {
  if (keys.length < 2) return undefined;
  const rows: JsonObject[] = [];
  for (const key of keys) {
    const value = obj[key];
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    rows.push(value as JsonObject);
  }
  return tableFields(rows);
}

function joinPrimitives(items: readonly unknown[]): string {
  let joined = encodePrimitive(items[0]);
  for (let i = 1; i < items.length; i++) joined += `,${encodePrimitive(items[i])}`;
  return joined;
}

function encodePrimitive(value: unknown): string {
  if (typeof value === 'string') return encodeString(value);
  // Non-finite numbers cannot occur after JSON normalization; map them as JSON would.
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  return 'null';
}

function encodeRootPrimitive(value: unknown): string {
  // The decoder strips a byte-order mark at the start of the document, so keep one quoted.
  if (typeof value === 'string' && value.charCodeAt(0) === 0xfeff) return quoteString(value);
  return encodePrimitive(value);
}

// Character classes for ASCII: 1 = forces quotes, 2 = needs an escape (and so quotes).
const QUOTE = 1;
const ESCAPE = 2;
const ASCII_CLASS = new Uint8Array(128);
ASCII_CLASS.fill(ESCAPE, 0, 0x20);
for (const ch of ':,[]{}') ASCII_CLASS[ch.charCodeAt(0)] = QUOTE;
ASCII_CLASS[0x22] = ESCAPE; // "
ASCII_CLASS[0x5c] = ESCAPE; // \

const ESCAPED_CONTROL: string[] = [];
for (let code = 0; code < 0x20; code++) ESCAPED_CONTROL.push(`\\u${code.toString(16).padStart(4, '0')}`);
ESCAPED_CONTROL[0x0a] = '\\n';
ESCAPED_CONTROL[0x0d] = '\\r';
ESCAPED_CONTROL[0x09] = '\\t';

function encodeString(text: string): string {
  const length = text.length;
  if (length === 0) return '""';
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(length - 1);
  // Leading `-`/`#`, or leading/trailing space or tab.
  let quote = first === 0x2d || first === 0x23 || first === 0x20 || first === 0x09 || last === 0x20 || last === 0x09;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code < 128) {
      const cls = ASCII_CLASS[code]!;
      if (cls === ESCAPE) return quoteString(text);
      if (cls === QUOTE) quote = true;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      i = checkSurrogatePair(text, i);
    }
  }
  if (quote || looksLikeLiteral(text, first)) return `"${text}"`;
  return text;
}

/** True for `true`/`false`/`null` and numeric-like text `^[+-]?\d+(\.\d+)?(e[+-]?\d+)?$` (case-insensitive). */
function looksLikeLiteral(text: string, first: number): boolean {
  if (first === 0x74) return text === 'true';
  if (first === 0x66) return text === 'false';
  if (first === 0x6e) return text === 'null';
  if (first !== 0x2b && first !== 0x2d && !isDigit(first)) return false;
  const length = text.length;
  let i = first === 0x2b || first === 0x2d ? 1 : 0;
  let start = i;
  while (i < length && isDigit(text.charCodeAt(i))) i++;
  if (i === start) return false;
  if (i < length && text.charCodeAt(i) === 0x2e) {
    start = ++i;
    while (i < length && isDigit(text.charCodeAt(i))) i++;
    if (i === start) return false;
  }
  if (i < length && (text.charCodeAt(i) | 0x20) === 0x65) {
    i++;
    const sign = text.charCodeAt(i);
    if (sign === 0x2b || sign === 0x2d) i++;
    start = i;
    while (i < length && isDigit(text.charCodeAt(i))) i++;
    if (i === start) return false;
  }
  return i === length;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** Bare keys match `^[A-Za-z_][A-Za-z0-9_.]*$`; anything else is quoted and escaped. */
function encodeKey(key: string): string {
  const length = key.length;
  if (length === 0) return '""';
  for (let i = 0; i < length; i++) {
    const code = key.charCodeAt(i);
    const letter = (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f;
    if (!letter && (i === 0 || !(isDigit(code) || code === 0x2e))) return quoteString(key);
  }
  return key;
}

/** Double-quoted form with `\\ \" \n \r \t` and `\u00xx` escapes; rejects lone surrogates. */
function quoteString(text: string): string {
  let quoted = '"';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    let escaped: string | undefined;
    if (code < 0x20) escaped = ESCAPED_CONTROL[code];
    else if (code === 0x22) escaped = '\\"';
    else if (code === 0x5c) escaped = '\\\\';
    else if (code >= 0xd800 && code <= 0xdfff) i = checkSurrogatePair(text, i);
    if (escaped !== undefined) {
      quoted += text.slice(from, i) + escaped;
      from = i + 1;
    }
  }
  return `${quoted}${text.slice(from)}"`;
}

/** Validates the surrogate at `index`; returns the index of the pair's last code unit. */
function checkSurrogatePair(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (code <= 0xdbff) {
    const next = text.charCodeAt(index + 1);
    if (next >= 0xdc00 && next <= 0xdfff) return index + 1;
  }
  throw new Error(`TOON encoding failed: lone surrogate U+${code.toString(16).toUpperCase()} at index ${index}`);
}

/**
 * True when the value should not be TOON-encoded: compact JSON longer than
 * `maxJsonChars`, container nesting deeper than `maxDepth` (the root container is depth 1), or
 * more than `maxNodes` values (every container and primitive, root included). Stops early.
 */
export function exceedsToonBounds(value: unknown, compactJsonLength: number): boolean {
  if (compactJsonLength > TOON_BOUNDS.maxJsonChars) return true;
  let nodes = 0;
  const exceeds = (node: unknown, depth: number): boolean => {
    if (++nodes > TOON_BOUNDS.maxNodes) return true;
    if (node === null || typeof node !== 'object') return false;
    if (depth > TOON_BOUNDS.maxDepth) return true;
    if (Array.isArray(node)) {
      for (const item of node) if (exceeds(item, depth + 1)) return true;
    } else {
      for (const key of Object.keys(node)) if (exceeds((node as JsonObject)[key], depth + 1)) return true;
    }
    return false;
  };
  return exceeds(value, 1);
}
