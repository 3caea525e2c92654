/** A secret value the server was given and must never emit, with the name reports use for it. */
export interface Canary {
  name: string;
  value: string;
  /** The key id that goes with a key secret: `Basic base64(id:secret)` is searched for too. */
  keyId?: string;
}

export interface Leak {
  canary: string;
  /** How it appeared: `raw`, `base64`, `base64url`, `URL-encoded`, `hex`, `HEX`, `reversed` or `Basic auth`. */
  encoding: string;
}

/**
 * The parts of base64(secret) that do not depend on what surrounds the secret: one per byte
 * alignment (0, 1, 2), so the secret is found inside a longer encoded blob too.
 */
function base64Cores(value: string, alphabet: 'base64' | 'base64url'): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString(alphabet);
    const start = 4 * Math.ceil(offset / 3);
    const end = 4 * Math.floor((offset + bytes.length) / 3);
    if (end - start >= 16) cores.push(encoded.slice(start, end));
  }
  return cores;
}

interface Needle {
  canary: string;
  encoding: string;
  text: string;
}

/** Every form of one canary the scanner looks for. */
function needlesOf({ name, value, keyId }: Canary): Needle[] {
  const encoded = encodeURIComponent(value);
  const base64 = base64Cores(value, 'base64');
  const hex = Buffer.from(value, 'utf8').toString('hex');
  const reversed = [...value].reverse().join('');
  return [
    { canary: name, encoding: 'raw', text: value },
    ...base64.map((text) => ({ canary: name, encoding: 'base64', text })),
    ...base64Cores(value, 'base64url').filter((text) => !base64.includes(text)).map((text) => ({ canary: name, encoding: 'base64url', text })),
    ...(encoded !== value ? [{ canary: name, encoding: 'URL-encoded', text: encoded }] : []),
    { canary: name, encoding: 'hex', text: hex },
    ...(hex.toUpperCase() !== hex ? [{ canary: name, encoding: 'HEX', text: hex.toUpperCase() }] : []),
    ...(reversed !== value ? [{ canary: name, encoding: 'reversed', text: reversed }] : []),
    ...(keyId ? [{ canary: name, encoding: 'Basic auth', text: `Basic ${Buffer.from(`${keyId}:${value}`).toString('base64')}` }] : []),
  ];
}

/**
 * Finds canaries in text, raw or encoded the ways a leak usually takes: base64 (at every byte
 * alignment) and base64url, URL encoding, hex in either case, reversed, and as a Basic
 * authorization header. Canaries can be added as they appear (tokens the sandbox issues).
 */
export class CanaryScanner {
  private readonly needles: Needle[];
  private readonly known = new Set<string>();

  constructor(canaries: readonly Canary[]) {
    this.needles = [];
    this.add(canaries);
  }

  /** Look for these too (a value already known is ignored). */
  add(canaries: readonly Canary[]): void {
    for (const canary of canaries) {
      if (this.known.has(canary.value)) continue;
      this.known.add(canary.value);
      this.needles.push(...needlesOf(canary));
    }
  }

  get canaryCount(): number {
    return this.known.size;
  }

  /** Every canary (once per encoding) the text contains. */
  scan(text: string): Leak[] {
    const found = new Map<string, Leak>();
    for (const needle of this.needles) {
      const key = `${needle.canary}\u0000${needle.encoding}`;
      if (!found.has(key) && text.includes(needle.text)) found.set(key, { canary: needle.canary, encoding: needle.encoding });
    }
    return [...found.values()];
  }

  /** The text with every canary form replaced, for anything the checker itself prints. */
  mask(text: string): string {
    let out = text;
    for (const needle of [...this.needles].sort((a, b) => b.text.length - a.text.length)) out = out.split(needle.text).join('***');
    return out;
  }
}
