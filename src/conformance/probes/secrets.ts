import { gunzipSync, inflateSync } from 'node:zlib';
import base32Decode from 'base32-decode';

/** A secret value the server was given and must never emit, with the name reports use for it. */
export interface Canary {
  name: string;
  value: string;
  /** The key id that goes with a key secret (`Basic base64(id:secret)` decodes to it, so it needs no form of its own). */
  keyId?: string;
}

export interface Leak {
  canary: string;
  /** How it appeared: `raw`, or the decodings that revealed it (`percent-encoded`, `base64, gzip`, `hex, reversed`, …). */
  encoding: string;
}

/** A decoded form of the searched text, and the decodings that produced it (none: the text itself). */
interface View {
  text: string;
  how: string[];
}

/** Encoded runs shorter than this are not decoded (no secret fits in them). */
const MIN_RUN = 16;
/** Decodings applied on top of each other at most (base64 of base64 of gzip is three). */
const MAX_DEPTH = 3;
/** Decoded text searched per byte of the original, at most: the bound on work per byte. */
const WORK_PER_BYTE = 24;
const WORK_FLOOR = 64 * 1024;

const PERCENT_RUN = /(?:%[0-9a-fA-F]{2})+/g;
const ESCAPE =
  /\\u\{([0-9a-fA-F]{1,6})\}|\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|&#x([0-9a-fA-F]{1,6});|&#(\d{1,7});|\b0x([0-9a-fA-F]{2,6})\b/g;
const CHAR_CODES = /\b\d{1,7}(?:[\s,;:|.-]+\d{1,7}){11,}\b/g;
const HEX_RUN = new RegExp(`[0-9a-fA-F]{2}(?:[\\s:,.\\-]?[0-9a-fA-F]{2}){${MIN_RUN / 2 - 1},}`, 'g');
const BASE64_RUN = new RegExp(`[A-Za-z0-9+/_-]{${MIN_RUN},}={0,2}`, 'g');
const BASE64_START = /^[ \t]*[A-Za-z0-9+/]+={0,2}/;
const BASE64_CHAR = /[A-Za-z0-9+/]/;

/**
 * The base64 run a line ends with (walked back from the end: linear whatever the line). A line that
 * ends in padding ends its data there (decoding stops at `=`), so it starts no wrapped block.
 */
function trailingBase64(line: string): string {
  const trimmed = line.trimEnd();
  let start = trimmed.length;
  while (start > 0 && BASE64_CHAR.test(trimmed[start - 1]!)) start--;
  return trimmed.slice(start);
}
/** Base32 stands alone: a stretch of a longer base64 run is not read as base32 too. */
const BASE32_RUN = new RegExp(`(?<![A-Za-z0-9+/_-])[A-Za-z2-7]{${MIN_RUN},}=*(?![A-Za-z0-9+/_-])`, 'g');

function reverse(text: string): string {
  return [...text].reverse().join('');
}

/** Only what reads as text is decoded further: garbage from a wrong alignment stops there. */
function printable(text: string): boolean {
  if (text.length === 0) return false;
  let control = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if ((code < 32 && code !== 9 && code !== 10 && code !== 13) || code === 0xfffd) control++;
  }
  return control * 10 <= text.length;
}

/** Bytes as text; a compressed payload (gzip or deflate, by their headers) is inflated too, within `limit`. */
function bytesToViews(bytes: Buffer, how: string, limit: number): View[] {
  const views: View[] = [{ text: bytes.toString('utf8'), how: [how] }];
  const inflate = (name: string, fn: () => Buffer) => {
    // Most candidates are not compressed at all: their failures need no stack trace.
    const traces = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      views.push({ text: fn().toString('utf8'), how: [how, name] });
    } catch {
      // not that compression
    } finally {
      Error.stackTraceLimit = traces;
    }
  };
  const options = { maxOutputLength: Math.max(1, limit) };
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) inflate('gzip', () => gunzipSync(bytes, options));
  else if (bytes[0] === 0x78 && (bytes[0]! * 256 + bytes[1]!) % 31 === 0) inflate('deflate', () => inflateSync(bytes, options));
  return views;
}

function offsets(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index);
}

/** Every decoding of one text one step deeper: escapes and percent-encoding in place, encoded runs one by one. */
function decodings(text: string, limit: number): View[] {
  const views: View[] = [];
  const percent = text.replace(PERCENT_RUN, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
  if (percent !== text) views.push({ text: percent, how: ['percent-encoded'] });
  const unescaped = text.replace(ESCAPE, (match, ...groups: (string | undefined)[]) => {
    const hex = groups[0] ?? groups[1] ?? groups[2] ?? groups[3] ?? groups[5];
    const code = hex !== undefined ? parseInt(hex, 16) : Number(groups[4]);
    return code <= 0x10ffff ? String.fromCodePoint(code) : match;
  });
  if (unescaped !== text) views.push({ text: unescaped, how: ['escaped characters'] });
  for (const [run] of text.matchAll(CHAR_CODES)) {
    const codes = run.split(/[\s,;:|.-]+/).map(Number);
    if (codes.every((code) => code <= 0x10ffff)) views.push({ text: String.fromCodePoint(...codes), how: ['character codes'] });
  }
  for (const [run] of text.matchAll(HEX_RUN)) {
    const digits = run.replace(/[\s:,.-]/g, '');
    views.push(...bytesToViews(Buffer.from(digits, 'hex'), 'hex', limit));
    views.push(...bytesToViews(Buffer.from(reverse(digits), 'hex'), 'reversed hex', limit));
  }
  for (const run of [...[...text.matchAll(BASE64_RUN)].map(([run]) => run), ...wrappedBase64(text)]) {
    const name = /[-_]/.test(run) ? 'base64url' : 'base64';
    for (const offset of offsets(4)) views.push(...bytesToViews(Buffer.from(run.slice(offset), 'base64'), name, limit));
  }
  for (const [run] of text.matchAll(BASE32_RUN)) {
    // base32-decode drops the padding itself.
    const upper = run.toUpperCase();
    for (const offset of offsets(8)) {
      try {
        views.push(...bytesToViews(Buffer.from(base32Decode(upper.slice(offset), 'RFC4648')), 'base32', limit));
      } catch {
        // not base32 at this alignment
      }
    }
  }
  return views;
}

/**
 * Base64 wrapped over lines (MIME, PEM; real or JSON-escaped line breaks), each block joined into
 * one run: a line that ends in a long base64 run, the following full lines, and the start of the
 * line after them.
 */
function wrappedBase64(text: string): string[] {
  // Real line breaks, or the escaped ones of a JSON string (`\n`, `\r\n`).
  const lines = text.split(/\r?\n|(?:\\r)?\\n/);
  const blocks: string[] = [];
  let block: string[] = [];
  const close = (tail = '') => {
    if (block.length > 0 && (block.length > 1 || tail)) blocks.push(block.join('') + tail);
    block = [];
  };
  for (const line of lines) {
    const whole = /^[ \t]*([A-Za-z0-9+/]{16,}={0,2})[ \t]*$/.exec(line);
    if (block.length > 0 && whole) block.push(whole[1]!);
    else {
      close(BASE64_START.exec(line)?.[0].trim() ?? '');
      const end = trailingBase64(line);
      if (end.length >= MIN_RUN) block.push(end);
    }
  }
  close();
  return blocks;
}

/** Letters and digits only: a secret spelled out with separators between its characters still matches. */
function alphanumeric(text: string): string {
  return text.replace(/[^\p{L}\p{N}]/gu, '');
}

interface Needle {
  canary: string;
  value: string;
  reversed: string;
  bare: string;
  bareReversed: string;
}

function needleOf({ name, value }: Canary): Needle {
  const reversed = reverse(value);
  return { canary: name, value, reversed, bare: alphanumeric(value), bareReversed: alphanumeric(reversed) };
}

/** How a needle shows in one view, or undefined. */
function matchIn(view: View, bareView: string, needle: Needle): string | undefined {
  const name = (extra?: string) => {
    const steps = extra ? [...view.how, extra] : view.how;
    return steps.length === 0 ? 'raw' : steps.join(', ');
  };
  if (view.text.includes(needle.value)) return name();
  if (needle.reversed !== needle.value && view.text.includes(needle.reversed)) return name('reversed');
  if (needle.bare.length >= MIN_RUN && bareView.includes(needle.bare)) return name('separated characters');
  if (needle.bare.length >= MIN_RUN && needle.bareReversed !== needle.bare && bareView.includes(needle.bareReversed))
    return name('separated characters, reversed');
  return undefined;
}

/**
 * Finds canaries in text however a leak spells them. The text is normalised rather than the secret
 * encoded: percent-encoding (either case), `\u`/`\x`/HTML escapes and character codes are decoded
 * in place, and every run that could be hex (either case, either direction), base64, base64url or
 * base32 is decoded at every alignment, inflating gzip or deflate payloads; what reads as text is
 * decoded again, up to three layers. Each view is searched for the secret, reversed, and spelled
 * with separators between its characters. Decoded text is bounded per byte of input.
 */
export class CanaryScanner {
  private readonly needles: Needle[] = [];
  private readonly known = new Set<string>();
  /** What each text searched so far held, while the canaries stay the same (sessions list the same tools). */
  private readonly searched = new Map<string, Leak[]>();

  constructor(canaries: readonly Canary[]) {
    this.add(canaries);
  }

  /** Look for these too (a value already known is ignored). */
  add(canaries: readonly Canary[]): void {
    for (const canary of canaries) {
      if (this.known.has(canary.value)) continue;
      this.known.add(canary.value);
      this.needles.push(needleOf(canary));
      this.searched.clear();
    }
  }

  get canaryCount(): number {
    return this.known.size;
  }

  /** Every canary the text holds, once each, by the simplest form it was found in. */
  scan(text: string): Leak[] {
    let leaks = this.searched.get(text);
    if (!leaks) {
      leaks = this.search(text);
      this.searched.set(text, leaks);
    }
    return leaks;
  }

  private search(text: string): Leak[] {
    const found = new Map<string, Leak>();
    let budget = WORK_FLOOR + WORK_PER_BYTE * text.length;
    const queue: View[] = [{ text, how: [] }];
    for (let index = 0; index < queue.length && found.size < this.needles.length; index++) {
      const view = queue[index]!;
      const readable = view.how.length === 0 || printable(view.text);
      const bare = readable ? alphanumeric(view.text) : '';
      for (const needle of this.needles) {
        if (found.has(`${needle.canary}\u0000${needle.value}`)) continue;
        const encoding = matchIn(view, bare, needle);
        if (encoding) found.set(`${needle.canary}\u0000${needle.value}`, { canary: needle.canary, encoding });
      }
      if (view.how.length >= MAX_DEPTH || !readable) continue;
      for (const next of decodings(view.text, budget)) {
        if (budget <= 0) break;
        budget -= next.text.length;
        queue.push({ text: next.text, how: [...view.how, ...next.how] });
      }
    }
    return dedupe([...found.values()]);
  }

  /**
   * The text with every canary hidden, for anything the checker itself prints: the raw and reversed
   * values are replaced; a text that still holds one in some encoding is withheld whole.
   */
  mask(text: string): string {
    let out = text;
    for (const needle of [...this.needles].sort((a, b) => b.value.length - a.value.length))
      out = out.split(needle.value).join('***').split(needle.reversed).join('***');
    return this.scan(out).length === 0 ? out : '[withheld: it holds a secret the server was given]';
  }

  /** A JSON value with {@link mask} applied to every string in it. */
  maskValue<T>(value: T): T {
    const visit = (node: unknown): unknown => {
      if (typeof node === 'string') return this.mask(node);
      if (Array.isArray(node)) return node.map(visit);
      if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, visit(child)]));
      return node;
    };
    return visit(value) as T;
  }
}

/** Two tokens of one name found the same way are one leak. */
function dedupe(leaks: Leak[]): Leak[] {
  const seen = new Set<string>();
  return leaks.filter((leak) => {
    const key = `${leak.canary}\u0000${leak.encoding}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
