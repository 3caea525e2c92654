/**
 * The central secret sanitizer (contract §8.2). The tool registry runs every
 * result, error text and log record through one of these; handlers never call
 * it themselves.
 *
 * Two layers:
 * - key-based (K1–K6): a property whose normalized key names a secret has its
 *   value replaced wholesale by `[redacted]`, whatever its type;
 * - string-based (S1–S5): every string is scrubbed of configured secret values,
 *   canaries, HTTP auth credentials and `label: value` secrets, in that order, and then
 *   of the same found inside base64 or hex runs (S5), which are re-encoded redacted.
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
// A run is decoded from its first character, bytes read as Latin-1 so ASCII secrets match byte
// for byte; 11 characters (unpadded) encode 8 bytes, the shortest thing S1–S4 can change.
const MIN_ENCODED_RUN = 11;
const ENCODED_RUN = /[A-Za-z0-9+/_-]{11,}={0,2}/g;
const HEX_RUN = /^[0-9A-Fa-f]+$/;
const URL_SAFE_BASE64 = /[-_]/;

/** Whatever S1–S4 can change holds 8 printable ASCII bytes (or whitespace) in a row; random bytes rarely do. */
function hasPrintableRun(bytes: Buffer): boolean {
  let run = 0;
  for (const byte of bytes) {
    run = (byte >= 0x20 && byte < 0x7f) || (byte >= 0x09 && byte <= 0x0d) ? run + 1 : 0;
    if (run >= MIN_REDACTABLE_LENGTH) return true;
  }
  return false;
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
const typedArrayByteLength = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), 'byteLength')!
  .get!;
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

export function createSanitizer(secretValues: readonly string[], options: SanitizerOptions = {}): Sanitizer {
  const mode: SanitizerMode = options.mode ?? 'result';
  const logMode = mode === 'log';
  const secretKeys = logMode ? LOG_SECRET_KEYS : RESULT_SECRET_KEYS;

  // S1: one alternation, longest first, so a secret containing another is redacted whole.
  const secrets = [...new Set(secretValues.filter(isUsableSecret))].sort((a, b) => b.length - a.length);
  const configuredSecret = secrets.length > 0 ? new RegExp(secrets.map(escapeRegExp).join('|'), 'g') : undefined;
  const minSecretLength = secrets.length > 0 ? secrets[secrets.length - 1]!.length : Infinity;

  const keyCache = new Map<string, KeyClass>();
  function keyClass(key: string): KeyClass {
    let cls = keyCache.get(key);
    if (cls === undefined) {
      cls = classifyKey(key, secretKeys);
      if (keyCache.size < KEY_CACHE_LIMIT) keyCache.set(key, cls);
    }
    return cls;
  }

  /** S1 with overlapping occurrences merged, so no fragment of a secret survives. */
  function redactConfigured(s: string, pattern: RegExp): string {
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
        out += s.slice(copied, spanStart) + REDACTED;
        copied = spanEnd;
        spanStart = match.index;
        spanEnd = end;
      }
      pattern.lastIndex = match.index + 1;
    }
    return out + s.slice(copied, spanStart) + REDACTED + s.slice(spanEnd);
  }

  /** S1–S4. */
  function plainText(s: string): string {
    if (s.length < MIN_REDACTABLE_LENGTH) return s;
    let out = s;
    if (configuredSecret !== undefined && out.length >= minSecretLength) out = redactConfigured(out, configuredSecret);
    if (out.includes(CANARY_MARKER)) out = out.replace(CANARY, REDACTED);
    if (out.includes('Bearer') || out.includes('Basic')) out = out.replace(AUTH_SCHEME, `$1$2${REDACTED}`);
    if (out.includes(':') || out.includes('=')) out = out.replace(LABELLED_SECRET, `$1${REDACTED}`);
    return out;
  }

  /** S1–S4 on decoded bytes, or undefined when they change nothing. */
  function redactedBytes(bytes: Buffer): Buffer | undefined {
    if (!hasPrintableRun(bytes)) return undefined;
    const decoded = bytes.toString('latin1');
    const redacted = plainText(decoded);
    return redacted === decoded ? undefined : Buffer.from(redacted, 'latin1');
  }

  /** S5: a base64 or hex run whose decoded bytes S1–S4 would change, re-encoded from the redacted bytes. */
  function encodedRun(run: string): string {
    if (run.length % 2 === 0 && HEX_RUN.test(run)) {
      const redacted = redactedBytes(Buffer.from(run, 'hex'));
      if (redacted) return run === run.toUpperCase() ? redacted.toString('hex').toUpperCase() : redacted.toString('hex');
    }
    const redacted = redactedBytes(Buffer.from(run, 'base64'));
    if (!redacted) return run;
    return URL_SAFE_BASE64.test(run) ? redacted.toString('base64url') : redacted.toString('base64');
  }

  function text(s: string): string {
    const out = plainText(s);
    return out.length < MIN_ENCODED_RUN ? out : out.replace(ENCODED_RUN, encodedRun);
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
export function sanitizeRequestId(
  requestId: string | undefined,
  sanitizer: Pick<Sanitizer, 'text'>,
): string | undefined {
  if (requestId === undefined || requestId === '') return undefined;
  return safeIdentifier(requestId, REQUEST_ID, sanitizer);
}
