/**
 * The central secret sanitizer (contract §8.2). The tool registry runs every
 * result, error text and log record through one of these; handlers never call
 * it themselves.
 *
 * Two layers:
 * - key-based (K1–K6): a property whose normalized key names a secret has its
 *   value replaced wholesale by `[redacted]`, whatever its type;
 * - string-based (S1–S5): every string is scrubbed of configured secret values (and of any
 *   12 characters of one), canaries, HTTP auth credentials and `label: value` secrets, in that
 *   order, and then of the same found inside base64 or hex runs (S5), whose bytes are read as
 *   one-byte text and as UTF-16 and re-encoded redacted.
 *
 * `window` serves ranged reads: it redacts every secret that overlaps a slice of bytes, however
 * little of it the slice holds. `withSecrets` adds one request's own credentials.
 *
 * Both modes render Dates as ISO strings and binary data as `{type, byteLength}`
 * (bytes cannot be scanned for secrets); log mode adds K6, `[function]` and
 * Error records. Getters are never run: accessors become `[accessor]`.
 */
import { types as nodeTypes } from 'node:util';

export const REDACTED = '[redacted]';
const CIRCULAR = '[circular]';
const ACCESSOR = '[accessor]';
const FUNCTION = '[function]';
const INVALID_DATE = '[invalid_date]';

/** Configured values shorter than this are too likely to collide with ordinary text. */
const MIN_SECRET_LENGTH = 8;

/** K1: structured secret field names (21). */
export const STRUCTURED_SECRET_KEYS: readonly string[] = [
  'applicationKey',
  'appKey',
  'authorization',
  'authorizationToken',
  'authToken',
  'bearerToken',
  'customerKey',
  'customerKeyMd5',
  'downloadAuthorizationToken',
  'hmacSha256SigningSecret',
  'masterApplicationKey',
  'masterKey',
  'password',
  'privateKey',
  'secret',
  'secretAccessKey',
  'sessionToken',
  'uploadAuthToken',
  'uploadAuthorizationToken',
  'uploadToken',
  'uploadUrl',
];

/** K5: header names whose values are secrets (lower-case, 9). */
export const SECRET_HEADER_NAMES: readonly string[] = [
  'authorization',
  'cookie',
  'set-cookie',
  'x-b2-app-key',
  'x-b2-key',
  'x-b2-master-key',
  'x-b2-mcp-app-key',
  'x-b2-mcp-key',
  'x-b2-mcp-master-key',
];

/** K6: credential handles redacted from logs only; results keep them (b2_list_keys returns key ids). */
export const LOG_ONLY_SECRET_KEYS: readonly string[] = ['accessKeyId', 'appKeyId', 'applicationKeyId', 'masterKeyId'];

/** S1 env names holding secret values (also S4 labels). */
const SECRET_ENV_NAMES: readonly string[] = ['AWS_SECRET_ACCESS_KEY', 'B2_APP_KEY', 'B2_APPLICATION_KEY', 'B2_MASTER_KEY'];
const SECRET_ENV_NAME = new RegExp(
  `^(?:${SECRET_ENV_NAMES.join('|')}|B2_CREDENTIAL_[A-Z0-9_]+_(?:APP_KEY|APPLICATION_KEY|MASTER_KEY))$`,
  'i',
);

/** K3 exceptions: pagination cursors are not secrets. (K2's `secretName` ends in "name", so needs no exception.) */
const NON_SECRET_TOKEN_SUFFIX_KEYS = new Set(['continuationtoken', 'nextcontinuationtoken', 'nexttoken']);

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, '');
}

const RESULT_SECRET_KEYS = new Set([...STRUCTURED_SECRET_KEYS, ...SECRET_HEADER_NAMES].map(normalizeKey));
const LOG_SECRET_KEYS = new Set([...RESULT_SECRET_KEYS, ...LOG_ONLY_SECRET_KEYS.map(normalizeKey)]);
const CUSTOM_HEADERS_KEY = 'customheaders';
const HEADER_VALUE_KEY = 'value';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

function isUsableSecret(value: unknown): value is string {
  return typeof value === 'string' && value.length >= MIN_SECRET_LENGTH && value.trim() !== '' && value !== REDACTED;
}

/**
 * S1, env part: values of the secret-bearing env variables (names matched
 * case-insensitively), plus `extra` values the caller takes from config
 * (applicationKey, appKey, masterKey, secretAccessKey, authorizationToken).
 * Keeps values of length ≥ 8 that are not blank; de-duplicated.
 */
export function collectSecretValues(env: NodeJS.ProcessEnv, extra: ReadonlyArray<string | undefined> = []): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (SECRET_ENV_NAME.test(name) && isUsableSecret(value)) values.add(value);
  }
  for (const value of extra) {
    if (isUsableSecret(value)) values.add(value);
  }
  return [...values];
}

// S2: test canary planted by fixtures and conformance probes.
const CANARY_MARKER = 'B2_MCP_CANARY_SECRET_';
const CANARY = /B2_MCP_CANARY_SECRET_[A-Za-z0-9_-]+/g;

// S3: keep the scheme, drop the credential.
const AUTH_SCHEME = /(Bearer|Basic)(\s+)[A-Za-z0-9._~+/=-]{8,}/g;

// S4: `label: value` / `"label"="value"`; labels longest first so `applicationKey`
// wins over `appKey`; values already redacted are left alone. The
// `B2_CREDENTIAL_<REF>_…` env form is also accepted as a label, as S1 treats it.
const TEXT_SECRET_LABELS = [
  ...new Map(
    [...STRUCTURED_SECRET_KEYS, ...SECRET_HEADER_NAMES, ...SECRET_ENV_NAMES].map((label) => [label.toLowerCase(), label]),
  ).values(),
].sort((a, b) => b.length - a.length);
const LABELLED_SECRET = new RegExp(
  `(["']?(?:B2_CREDENTIAL_[A-Z0-9_]{1,64}?_(?:APP_KEY|APPLICATION_KEY|MASTER_KEY)|${TEXT_SECRET_LABELS.map(escapeRegExp).join('|')})["']?\\s*[:=]\\s*["']?)(?!${escapeRegExp(REDACTED)})[^"',\\s}\\]]+`,
  'gi',
);

/** Shortest string any S rule can change: an 8-char secret, or `cookie:x`-like labels. */
const MIN_REDACTABLE_LENGTH = 8;

// S5: secrets inside base64 (either alphabet) or hex runs, such as an object's base64 content.
// A run's decoded bytes are read as text in each layout a secret can have (see BYTE_VIEWS), and a
// run found inside them is decoded once more; 11 characters (unpadded) encode 8 bytes, the
// shortest thing S1–S4 can change.
const MIN_ENCODED_RUN = 11;
const ENCODED_RUN = /[A-Za-z0-9+/_-]{11,}={0,2}/g;
const HEX_RUN = /^(?:0[xX])?([0-9A-Fa-f]+)$/;

/** The hex a run may carry (after a `0x`; with an odd digit count, at either alignment), each with where it starts in the run. */
function hexReadings(run: string): Array<{ offset: number; hex: string }> {
  const digits = HEX_RUN.exec(run)?.[1];
  if (digits === undefined) return [];
  const start = run.length - digits.length;
  if (digits.length % 2 === 0) return [{ offset: start, hex: digits }];
  return [
    { offset: start, hex: digits.slice(0, -1) },
    { offset: start + 1, hex: digits.slice(1) },
  ];
}
const URL_SAFE_BASE64 = /[-_]/;

/**
 * S1: a configured secret is also found by any run of this many of its characters, so a value
 * cut into halves (two ranged reads, two fields) is redacted too. Shorter secrets match whole.
 */
const SECRET_FRAGMENT_LENGTH = 12;

/** How text can sit in bytes: a byte a character (ASCII, UTF-8, Latin-1), or UTF-16 of either order from an even or odd byte. */
interface ByteView {
  encoding: 'latin1' | 'utf16le' | 'utf16be';
  offset: 0 | 1;
}
const BYTE_VIEWS: readonly ByteView[] = [
  { encoding: 'latin1', offset: 0 },
  { encoding: 'utf16le', offset: 0 },
  { encoding: 'utf16le', offset: 1 },
  { encoding: 'utf16be', offset: 0 },
  { encoding: 'utf16be', offset: 1 },
];

/** Bytes [start, end) hold (part of) a secret, read in `view`. */
interface ByteSpan {
  start: number;
  end: number;
  view: ByteView;
}

function decodeView(bytes: Buffer, view: ByteView): string {
  if (view.encoding === 'latin1') return bytes.toString('latin1');
  const units = bytes.subarray(view.offset, view.offset + ((bytes.length - view.offset) & ~1));
  return (view.encoding === 'utf16le' ? units : Buffer.from(units).swap16()).toString('utf16le');
}

function encodeView(text: string, view: ByteView): Buffer {
  if (view.encoding === 'latin1') return Buffer.from(text, 'latin1');
  const units = Buffer.from(text, 'utf16le');
  return view.encoding === 'utf16le' ? units : units.swap16();
}

/** Whatever S1–S4 can change holds 8 printable ASCII characters (or whitespace) in a row; random bytes rarely do. */
function hasPrintableRun(text: string): boolean {
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    run = (code >= 0x20 && code < 0x7f) || (code >= 0x09 && code <= 0x0d) ? run + 1 : 0;
    if (run >= MIN_REDACTABLE_LENGTH) return true;
  }
  return false;
}

/** ASCII text in UTF-16 has a zero byte in every pair: without 8 such pairs in a row, only the one-byte view can hold a secret. */
function hasUtf16AsciiRun(bytes: Buffer): boolean {
  for (let zero = bytes.indexOf(0); zero !== -1; zero = bytes.indexOf(0, zero + 1)) {
    let pairs = 1;
    while (pairs < MIN_REDACTABLE_LENGTH && bytes[zero + 2 * pairs] === 0) pairs++;
    if (pairs === MIN_REDACTABLE_LENGTH) return true;
  }
  return false;
}

/** Spans that touch or overlap become one, so each secret is redacted once. */
function mergeSpans(spans: ByteSpan[]): ByteSpan[] {
  const merged: ByteSpan[] = [];
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    const last = merged[merged.length - 1];
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

/** Bytes [start, end) of `bytes`, each span's part in them replaced by the marker in the span's own encoding. */
function redactSpans(bytes: Buffer, spans: readonly ByteSpan[], start: number, end: number): Buffer {
  const parts: Buffer[] = [];
  let copied = start;
  for (const span of spans) {
    if (span.end <= copied || span.start >= end) continue;
    parts.push(bytes.subarray(copied, Math.max(copied, span.start)), encodeView(REDACTED, span.view));
    copied = Math.min(span.end, end);
  }
  parts.push(bytes.subarray(copied, end));
  return Buffer.concat(parts);
}

/** A base64 run's characters that carry decoded bytes [start, end), the run decoded from its character `skip`. */
function base64Chars(skip: number, start: number, end: number): [number, number] {
  return [skip + Math.floor((start * 4) / 3), skip + Math.ceil((end * 4) / 3)];
}

export type SanitizerMode = 'result' | 'log';

export interface SanitizerOptions {
  /** `log` adds K6, renders functions as `[function]` and rebuilds Errors as plain records. Default `result`. */
  mode?: SanitizerMode;
}

export interface Sanitizer {
  readonly mode: SanitizerMode;
  /** A sanitized deep copy: key-based then string-based redaction; never invokes getters; never mutates `v`. */
  value<T>(v: T): unknown;
  /** S1–S5 applied to one string. */
  text(s: string): string;
  /**
   * Bytes [start, end) of `bytes` as the model may see them: every secret that overlaps them is
   * redacted in the encoding it was found in, even when only part of it falls inside. `bytes`
   * must reach `scanMargin` bytes past both ends, where the source has them (a ranged read).
   */
  window(bytes: Buffer, start: number, end: number): Buffer;
  /** How far past a window `window` must see to find whole any secret overlapping it. */
  readonly scanMargin: number;
  /** The same sanitizer, also redacting `extra` values (one request's own credentials). */
  withSecrets(extra: ReadonlyArray<string | undefined>): Sanitizer;
}

// Key classes, cached per sanitizer (results repeat the same few keys thousands of times).
const PLAIN_KEY = 0;
const SECRET_KEY = 1;
const CUSTOM_HEADERS = 2;
const HEADER_VALUE = 3;
type KeyClass = typeof PLAIN_KEY | typeof SECRET_KEY | typeof CUSTOM_HEADERS | typeof HEADER_VALUE;
const KEY_CACHE_LIMIT = 4096;
const ERROR_FIELDS: ReadonlySet<string> = new Set(['name', 'message', 'stack', 'cause']);

function classifyKey(key: string, secretKeys: ReadonlySet<string>): KeyClass {
  const normalized = normalizeKey(key);
  if (secretKeys.has(normalized)) return SECRET_KEY;
  if (normalized.endsWith('secret')) return SECRET_KEY;
  if (normalized.endsWith('token') && !NON_SECRET_TOKEN_SUFFIX_KEYS.has(normalized)) return SECRET_KEY;
  if (normalized === CUSTOM_HEADERS_KEY) return CUSTOM_HEADERS;
  if (normalized === HEADER_VALUE_KEY) return HEADER_VALUE;
  return PLAIN_KEY;
}

// Intrinsic getters, so a hostile own `byteLength` accessor is never consulted.
const typedArrayByteLength = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), 'byteLength')!.get!;
const dataViewByteLength = Object.getOwnPropertyDescriptor(DataView.prototype, 'byteLength')!.get!;

function binarySummary(view: ArrayBufferView): { type: string; byteLength: number } {
  const byteLength = nodeTypes.isDataView(view) ? dataViewByteLength.call(view) : typedArrayByteLength.call(view);
  return { type: Buffer.isBuffer(view) ? 'Buffer' : 'ArrayBufferView', byteLength: byteLength as number };
}

function dateText(date: Date): string {
  try {
    return Date.prototype.toISOString.call(date);
  } catch {
    return INVALID_DATE;
  }
}

/** The first descriptor for `key` along the prototype chain (reading it runs no accessor). */
function findDescriptor(target: object, key: string): PropertyDescriptor | undefined {
  for (let current: object | null = target; current !== null; current = Object.getPrototypeOf(current)) {
    const descriptor = Object.getOwnPropertyDescriptor(current, key);
    if (descriptor !== undefined) return descriptor;
  }
  return undefined;
}

/** Assigns without letting a `__proto__` key rewrite the copy's prototype. */
function assign(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** Key classes depend on the mode only, so sanitizers of one mode share a cache. */
const KEY_CACHES: Record<SanitizerMode, Map<string, KeyClass>> = { result: new Map(), log: new Map() };

/** What S1 looks for: each secret whole if short, else every run of SECRET_FRAGMENT_LENGTH of its characters. */
function secretPieces(secrets: readonly string[]): string[] {
  const pieces = new Set<string>();
  for (const secret of secrets) {
    if (secret.length <= SECRET_FRAGMENT_LENGTH) pieces.add(secret);
    else for (let i = 0; i + SECRET_FRAGMENT_LENGTH <= secret.length; i++) pieces.add(secret.slice(i, i + SECRET_FRAGMENT_LENGTH));
  }
  return [...pieces];
}

/** Redactions are replaced by the marker; spans are found by masking them character for character. */
type Mark = (length: number) => string;
const REDACT: Mark = () => REDACTED;
const MASK_CHAR = '\uE000';
const MASK: Mark = (length) => MASK_CHAR.repeat(length);

/** The [start, end) character ranges that `masked` (same length as `original`) masked. */
function maskedRanges(original: string, masked: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let from = masked.indexOf(MASK_CHAR);
  while (from !== -1) {
    let to = from;
    while (to < masked.length && masked[to] === MASK_CHAR) to++;
    if (original.slice(from, to) !== masked.slice(from, to)) ranges.push([from, to]);
    from = masked.indexOf(MASK_CHAR, to);
  }
  return ranges;
}

export function createSanitizer(secretValues: readonly string[], options: SanitizerOptions = {}): Sanitizer {
  const mode: SanitizerMode = options.mode ?? 'result';
  const logMode = mode === 'log';
  const secretKeys = logMode ? LOG_SECRET_KEYS : RESULT_SECRET_KEYS;

  // S1: one alternation; overlapping matches are merged, so a whole secret is redacted as one.
  const secrets = [...new Set(secretValues.filter(isUsableSecret))];
  const pieces = secretPieces(secrets);
  const configuredSecret = pieces.length > 0 ? new RegExp(pieces.map(escapeRegExp).join('|'), 'g') : undefined;
  const minSecretLength = pieces.length > 0 ? Math.min(...pieces.map((piece) => piece.length)) : Infinity;
  // A secret overlapping a window lies within this many bytes of it in any encoding S5 reads (hex of UTF-16 is 4x).
  const scanMargin = Math.max(4096, 8 * Math.max(0, ...secrets.map((secret) => secret.length)));

  const keyCache = KEY_CACHES[mode];
  function keyClass(key: string): KeyClass {
    let cls = keyCache.get(key);
    if (cls === undefined) {
      cls = classifyKey(key, secretKeys);
      if (keyCache.size < KEY_CACHE_LIMIT) keyCache.set(key, cls);
    }
    return cls;
  }

  /** S1 with overlapping occurrences merged, so no fragment of a secret survives. */
  function redactConfigured(s: string, pattern: RegExp, mark: Mark): string {
    pattern.lastIndex = 0;
    let match = pattern.exec(s);
    if (match === null) return s;
    let out = '';
    let copied = 0;
    let spanStart = match.index;
    let spanEnd = match.index + match[0].length;
    pattern.lastIndex = match.index + 1;
    while ((match = pattern.exec(s)) !== null) {
      const end = match.index + match[0].length;
      if (match.index <= spanEnd) {
        if (end > spanEnd) spanEnd = end;
      } else {
        out += s.slice(copied, spanStart) + mark(spanEnd - spanStart);
        copied = spanEnd;
        spanStart = match.index;
        spanEnd = end;
      }
      pattern.lastIndex = match.index + 1;
    }
    return out + s.slice(copied, spanStart) + mark(spanEnd - spanStart) + s.slice(spanEnd);
  }

  /** S1–S4. */
  function plainText(s: string, mark: Mark = REDACT): string {
    if (s.length < MIN_REDACTABLE_LENGTH) return s;
    let out = s;
    if (configuredSecret !== undefined && out.length >= minSecretLength) out = redactConfigured(out, configuredSecret, mark);
    if (out.includes(CANARY_MARKER)) out = out.replace(CANARY, (found) => mark(found.length));
    if (out.includes('Bearer') || out.includes('Basic')) {
      out = out.replace(
        AUTH_SCHEME,
        (found, scheme: string, space: string) => scheme + space + mark(found.length - scheme.length - space.length),
      );
    }
    if (out.includes(':') || out.includes('='))
      out = out.replace(LABELLED_SECRET, (found, label: string) => label + mark(found.length - label.length));
    return out;
  }

  /** Character ranges of `s` S1–S4 would redact, and, with `nested`, encoded runs in it whose decoded bytes hold a secret. */
  function textRanges(s: string, nested: boolean): Array<[number, number]> {
    const ranges = maskedRanges(s, plainText(s, MASK));
    if (nested && s.length >= MIN_ENCODED_RUN) {
      for (const run of s.matchAll(ENCODED_RUN)) ranges.push(...runRanges(run[0], run.index));
    }
    return ranges;
  }

  /** Characters of an encoded run (at `at` in its text) that carry a secret; a run cut off at a window's edge is tried at each alignment. */
  function runRanges(run: string, at: number): Array<[number, number]> {
    for (const { offset, hex } of hexReadings(run)) {
      const spans = byteSpans(Buffer.from(hex, 'hex'), false);
      if (spans.length > 0) return spans.map((span) => [at + offset + 2 * span.start, at + offset + 2 * span.end]);
    }
    for (let skip = 0; skip < 4; skip++) {
      const spans = byteSpans(Buffer.from(run.slice(skip), 'base64'), false);
      if (spans.length > 0) return spans.map((span) => base64Chars(at + skip, span.start, span.end));
    }
    return [];
  }

  /** Byte spans of `bytes` holding a secret, in every view; with `nested`, also inside encoded runs they hold. */
  function byteSpans(bytes: Buffer, nested: boolean): ByteSpan[] {
    const spans: ByteSpan[] = [];
    const views = hasUtf16AsciiRun(bytes) ? BYTE_VIEWS : BYTE_VIEWS.slice(0, 1);
    for (const view of views) {
      const decoded = decodeView(bytes, view);
      if (!hasPrintableRun(decoded)) continue;
      const width = view.encoding === 'latin1' ? 1 : 2;
      const found = textRanges(decoded, nested).map(([start, end]) => ({
        start: view.offset + start * width,
        end: view.offset + end * width,
        view,
      }));
      // UTF-16 read from the other byte in the other order sees the same text a byte off: keep the first view's span.
      spans.push(...found.filter((span) => !spans.some((seen) => seen.start < span.end && span.start < seen.end)));
    }
    return mergeSpans(spans);
  }

  /** The bytes with every secret redacted in its own encoding, or undefined when there is none. */
  function redactedBytes(bytes: Buffer): Buffer | undefined {
    const spans = byteSpans(bytes, true);
    return spans.length === 0 ? undefined : redactSpans(bytes, spans, 0, bytes.length);
  }

  /** S5: a base64 or hex run whose decoded bytes hold a secret, re-encoded from the redacted bytes. */
  function encodedRun(run: string): string {
    for (const { offset, hex } of hexReadings(run)) {
      const redacted = redactedBytes(Buffer.from(hex, 'hex'));
      if (!redacted) continue;
      const encoded = hex === hex.toUpperCase() ? redacted.toString('hex').toUpperCase() : redacted.toString('hex');
      return run.slice(0, offset) + encoded + run.slice(offset + hex.length);
    }
    const redacted = redactedBytes(Buffer.from(run, 'base64'));
    if (!redacted) return run;
    return URL_SAFE_BASE64.test(run) ? redacted.toString('base64url') : redacted.toString('base64');
  }

  function text(s: string): string {
    let out = plainText(s);
    // NUL characters mean UTF-16 that happened to decode as UTF-8: read its bytes in every view.
    if (out.includes('\u0000')) out = redactedBytes(Buffer.from(out, 'utf8'))?.toString('utf8') ?? out;
    return out.length < MIN_ENCODED_RUN ? out : out.replace(ENCODED_RUN, encodedRun);
  }

  function window(bytes: Buffer, start: number, end: number): Buffer {
    return redactSpans(bytes, byteSpans(bytes, true), start, end);
  }

  function copyProperties(
    source: object,
    target: Record<string, unknown>,
    underCustomHeaders: boolean,
    ancestors: Set<object>,
    skip?: ReadonlySet<string>,
  ): void {
    for (const key of Object.keys(source)) {
      if (skip?.has(key)) continue;
      const cls = keyClass(key);
      if (cls === SECRET_KEY || (cls === HEADER_VALUE && underCustomHeaders)) {
        assign(target, key, REDACTED);
        continue;
      }
      const descriptor = Object.getOwnPropertyDescriptor(source, key);
      if (descriptor === undefined) continue;
      if (!('value' in descriptor)) {
        assign(target, key, ACCESSOR);
        continue;
      }
      // Results drop functions as JSON would, so no copied `toJSON` can run on unsanitized data.
      if (!logMode && typeof descriptor.value === 'function') continue;
      assign(target, key, walk(descriptor.value, underCustomHeaders || cls === CUSTOM_HEADERS, ancestors));
    }
  }

  function errorRecord(error: object, ancestors: Set<object>): Record<string, unknown> {
    const field = (key: string): string | undefined => {
      const descriptor = findDescriptor(error, key);
      if (descriptor === undefined) return undefined;
      if (!('value' in descriptor)) return ACCESSOR;
      const value: unknown = descriptor.value;
      if (typeof value === 'string') return text(value);
      if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
      return undefined;
    };
    const name = field('name');
    const message = field('message');
    const record: Record<string, unknown> = { name: name ?? 'Error', message: message ?? '' };
    // V8 formats `stack` lazily on first read, running any `name`/`message` getter: skip it then.
    const stack = name === ACCESSOR || message === ACCESSOR ? ACCESSOR : field('stack');
    if (stack !== undefined) record.stack = stack;
    const cause = Object.getOwnPropertyDescriptor(error, 'cause');
    if (cause !== undefined) record.cause = 'value' in cause ? walk(cause.value, false, ancestors) : ACCESSOR;
    copyProperties(error, record, false, ancestors, ERROR_FIELDS);
    return record;
  }

  function walk(v: unknown, underCustomHeaders: boolean, ancestors: Set<object>): unknown {
    switch (typeof v) {
      case 'string':
        return text(v);
      case 'function':
        return logMode ? FUNCTION : undefined;
      case 'object':
        if (v === null) return null;
        break;
      default:
        return v;
    }
    if (nodeTypes.isDate(v)) return dateText(v);
    if (ArrayBuffer.isView(v)) return binarySummary(v);
    if (ancestors.has(v)) return CIRCULAR;
    ancestors.add(v);
    try {
      if (logMode && (nodeTypes.isNativeError(v) || v instanceof Error)) return errorRecord(v, ancestors);
      if (Array.isArray(v)) {
        const length: unknown = Object.getOwnPropertyDescriptor(v, 'length')?.value;
        const copy: unknown[] = new Array(Number.isSafeInteger(length) ? (length as number) : 0);
        copyProperties(v, copy as unknown as Record<string, unknown>, underCustomHeaders, ancestors);
        return copy;
      }
      const copy: Record<string, unknown> = {};
      copyProperties(v, copy, underCustomHeaders, ancestors);
      return copy;
    } finally {
      ancestors.delete(v);
    }
  }

  return {
    mode,
    text,
    value: <T>(v: T): unknown => walk(v, false, new Set()),
    window,
    scanMargin,
    withSecrets(extra) {
      const added = extra.filter((value): value is string => isUsableSecret(value) && !secrets.includes(value));
      return added.length === 0 ? this : createSanitizer([...secrets, ...added], options);
    },
  };
}

const PROVIDER_CODE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9_.:/+=-]{0,255}$/;

function safeIdentifier(value: string, shape: RegExp, sanitizer: Pick<Sanitizer, 'text'>): string {
  return sanitizer.text(value) === value && shape.test(value) ? value : REDACTED;
}

/** Provider error code for errors/audit: kept only if S1–S4 leave it unchanged and it looks like a code. */
export function sanitizeProviderCode(code: string | undefined, sanitizer: Pick<Sanitizer, 'text'>): string {
  if (code === undefined || code === '') return 'unknown_error';
  return safeIdentifier(code, PROVIDER_CODE, sanitizer);
}

/** Provider request id for errors/audit: kept only if unchanged by S1–S4 and id-shaped; absent stays absent. */
export function sanitizeRequestId(requestId: string | undefined, sanitizer: Pick<Sanitizer, 'text'>): string | undefined {
  if (requestId === undefined || requestId === '') return undefined;
  return safeIdentifier(requestId, REQUEST_ID, sanitizer);
}
