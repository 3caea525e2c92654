/**
 * Byte-level redaction edges (contract §8.2, S5 and `window`): two secrets in different layouts
 * in one buffer, windows that end or start exactly at a secret, base64 runs cut at a ranged
 * read's edge, hex and base64 runs whose characters carry the secret exactly, the shortest
 * encoded run, text that merely looks like the sanitizer's own working characters, and an object
 * whose property vanishes while it is copied; also a short secret beside a long one, and an Error
 * whose `name` is a getter.
 */
import { describe, expect, it } from 'vitest';
import { REDACTED, createSanitizer } from '../../../src/server/policy/sanitize.js';

const FIRST = 'K005firstsecretvalueAAAA';
const SECOND = 'K005secondsecretvalueBBB';
const sanitizer = createSanitizer([FIRST, SECOND]);

const latin1 = (text: string) => Buffer.from(text, 'latin1');
const utf16le = (text: string) => Buffer.from(text, 'utf16le');

/** Every way the buffer can be read as text: one byte a character, UTF-16 of either order from either byte. */
function readings(bytes: Buffer): string[] {
  const from = (offset: number) => bytes.subarray(offset, offset + ((bytes.length - offset) & ~1));
  return [
    bytes.toString('latin1'),
    from(0).toString('utf16le'),
    from(1).toString('utf16le'),
    Buffer.from(from(0)).swap16().toString('utf16le'),
    Buffer.from(from(1)).swap16().toString('utf16le'),
  ];
}

/** Any 12 characters of a secret (S1's fragment length) readable in the bytes, or in a base64 run of them decoded at any alignment. */
function leaks(bytes: Buffer, secret: string): boolean {
  const pieces = Array.from({ length: secret.length - 11 }, (_, i) => secret.slice(i, i + 12));
  const texts = readings(bytes);
  for (const run of bytes.toString('latin1').match(/[A-Za-z0-9+/_-]{11,}/g) ?? []) {
    for (let skip = 0; skip < 4; skip++) texts.push(...readings(Buffer.from(run.slice(skip), 'base64')));
  }
  return texts.some((text) => pieces.some((piece) => text.includes(piece)));
}

/** The bytes with every redaction marker, in any of the layouts, taken out. */
function withoutMarkers(bytes: Buffer): Buffer {
  const markers = [latin1(REDACTED), utf16le(REDACTED), utf16le(REDACTED).swap16()];
  let out = bytes;
  for (const marker of markers) {
    for (let at = out.indexOf(marker); at !== -1; at = out.indexOf(marker)) {
      out = Buffer.concat([out.subarray(0, at), out.subarray(at + marker.length)]);
    }
  }
  return out;
}

describe('two secrets in two layouts in one buffer', () => {
  const layouts: Record<string, Buffer> = {
    'one-byte text, then UTF-16LE': Buffer.concat([
      latin1('head '),
      latin1(FIRST),
      latin1(' the words between '),
      utf16le(SECOND),
      latin1(' tail'),
    ]),
    'UTF-16LE, then one-byte text': Buffer.concat([
      latin1('head '),
      utf16le(FIRST),
      latin1(' the words between '),
      latin1(SECOND),
      latin1(' tail'),
    ]),
    'one-byte text touching UTF-16LE': Buffer.concat([latin1('head '), latin1(FIRST), utf16le(SECOND), latin1(' tail')]),
    'UTF-16LE touching one-byte text': Buffer.concat([latin1('head '), utf16le(FIRST), latin1(SECOND), latin1(' tail')]),
  };

  it.each(Object.keys(layouts))('%s: a window over all of it gives neither secret and keeps the text around them', (name) => {
    const bytes = layouts[name]!;
    expect(leaks(bytes, FIRST) && leaks(bytes, SECOND)).toBe(true);
    const out = sanitizer.window(bytes, 0, bytes.length);
    expect(leaks(out, FIRST)).toBe(false);
    expect(leaks(out, SECOND)).toBe(false);
    const text = out.toString('latin1');
    expect(text.startsWith('head ')).toBe(true);
    expect(text.endsWith(' tail')).toBe(true);
    if (!name.includes('touching')) expect(text).toContain(' the words between ');
  });

  it.each(Object.keys(layouts))('%s: markers aside, the window keeps exactly the text that is no secret', (name) => {
    const bytes = layouts[name]!;
    const kept = withoutMarkers(sanitizer.window(bytes, 0, bytes.length)).toString('latin1');
    expect(kept).toBe(name.includes('touching') ? 'head  tail' : 'head  the words between  tail');
  });

  it.each(Object.keys(layouts))('%s: carried as base64 in a string, neither secret survives', (name) => {
    const bytes = layouts[name]!;
    const out = Buffer.from(sanitizer.text(bytes.toString('base64')), 'base64');
    expect(leaks(out, FIRST)).toBe(false);
    expect(leaks(out, SECOND)).toBe(false);
    expect(out.toString('latin1').startsWith('head ')).toBe(true);
  });
});

describe('windows that meet a secret exactly', () => {
  const plain = latin1(`before ${FIRST} middle ${SECOND} after`);
  const firstStart = 'before '.length;
  const firstEnd = firstStart + FIRST.length;
  const secondStart = plain.indexOf(SECOND);

  it('a window ending where a secret starts, or starting where it ends, is exact', () => {
    expect(sanitizer.window(plain, 0, firstStart).toString()).toBe('before ');
    expect(sanitizer.window(plain, firstEnd, secondStart).toString()).toBe(' middle ');
    expect(sanitizer.window(plain, secondStart + SECOND.length, plain.length).toString()).toBe(' after');
  });

  it('a window over both secrets redacts each once and keeps the text between them', () => {
    expect(sanitizer.window(plain, 0, plain.length).toString()).toBe(`before ${REDACTED} middle ${REDACTED} after`);
    expect(sanitizer.window(plain, firstStart + 3, secondStart + 3).toString()).toBe(`${REDACTED} middle ${REDACTED}`);
  });
});

describe('encoded runs in a window: exactly the characters that carry the secret', () => {
  // 30 bytes before the secret: base64 characters 0–39 carry them, 40–71 carry the secret's 24 bytes.
  const before = 'thirty plain bytes come first.';
  const payload = latin1(`${before}${FIRST} and a plain ending.`);
  const secretChars: [number, number] = [40, 72];

  it('base64: the characters before and after the secret come back unchanged', () => {
    const run = latin1(payload.toString('base64'));
    expect(sanitizer.window(run, 0, secretChars[0]).equals(run.subarray(0, secretChars[0]))).toBe(true);
    expect(sanitizer.window(run, secretChars[1], run.length).equals(run.subarray(secretChars[1]))).toBe(true);
    expect(leaks(sanitizer.window(run, 0, run.length), FIRST)).toBe(false);
  });

  it('base64 cut at a ranged read’s edge: the run is read at each alignment', () => {
    const run = payload.toString('base64');
    for (const cut of [1, 2, 3]) {
      const bytes = latin1(run.slice(cut));
      const [start, end] = [secretChars[0] - cut, secretChars[1] - cut];
      expect(leaks(sanitizer.window(bytes, 0, bytes.length), FIRST), `cut ${cut}`).toBe(false);
      expect(sanitizer.window(bytes, end + 1, bytes.length).equals(bytes.subarray(end + 1)), `cut ${cut}`).toBe(true);
      // The characters before the secret's own ones stay; with a cut, the first of them may share bits with it.
      expect(sanitizer.window(bytes, 0, start - 1).equals(bytes.subarray(0, start - 1)), `cut ${cut}`).toBe(true);
    }
  });

  it('base64 glued to a word before it (one run to the pattern) is still found, the word kept', () => {
    const bytes = latin1(`x${payload.toString('base64')}`);
    expect(leaks(sanitizer.window(bytes, 0, bytes.length), FIRST)).toBe(false);
    expect(sanitizer.window(bytes, 0, 1 + secretChars[0]).equals(bytes.subarray(0, 1 + secretChars[0]))).toBe(true);
    expect(sanitizer.window(bytes, 1 + secretChars[1], bytes.length).equals(bytes.subarray(1 + secretChars[1]))).toBe(true);
  });

  it('hex: two characters a byte, the characters before and after the secret unchanged', () => {
    const bytes = latin1(`hex ${payload.toString('hex')} end`);
    const [start, end] = [4 + 2 * before.length, 4 + 2 * (before.length + FIRST.length)];
    expect(leaks(latin1(Buffer.from(bytes.toString().slice(4, -4), 'hex').toString('latin1')), FIRST)).toBe(true);
    expect(sanitizer.window(bytes, 0, start).equals(bytes.subarray(0, start))).toBe(true);
    expect(sanitizer.window(bytes, end, bytes.length).equals(bytes.subarray(end))).toBe(true);
    const out = sanitizer.window(bytes, 0, bytes.length).toString('latin1');
    expect(out).not.toContain(latin1(FIRST).toString('hex'));
    expect(out.slice(start, end)).not.toMatch(/^[0-9a-f]+$/);
  });

  it('a base64 run made only of hex digits is read as base64 when its hex bytes hold nothing', () => {
    // Each group of four hex digits here is base64 of three letters: the run is base64 of `secret`.
    const run = 'a012a045a081a01B';
    const secret = Buffer.from(run, 'base64').toString('latin1');
    expect(secret).toMatch(/^[A-Za-z0-9]{12}$/);
    const own = createSanitizer([secret]);
    const bytes = latin1(`data ${run} end`);
    expect(own.window(bytes, 0, bytes.length).toString()).not.toContain(run);
    expect(own.text(`data ${run} end`)).not.toContain(run);
  });
});

describe('the shortest things S5 must find', () => {
  const short = 'Qz7kL2pW';
  const own = createSanitizer([short]);
  const run = Buffer.from(short).toString('base64url');

  it('an 8-character secret is 11 unpadded base64 characters: found as a whole string and as a whole window', () => {
    expect(run).toHaveLength(11);
    expect(own.text(run)).not.toBe(run);
    expect(Buffer.from(own.text(run), 'base64url').toString('latin1')).not.toContain(short);
    expect(own.window(latin1(run), 0, 11).toString()).not.toBe(run);
  });
});

describe('UTF-16BE read in its own order', () => {
  const short = 'Qz7kL2pW';
  const own = createSanitizer([short]);
  const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();
  const asUtf16be = (bytes: Buffer) => Buffer.from(bytes).swap16().toString('utf16le');

  it('a short secret that ends UTF-16BE text is redacted with a UTF-16BE marker, from an even or an odd byte', () => {
    const bytes = utf16be(`the value ${short}`);
    expect(asUtf16be(own.window(bytes, 0, bytes.length))).toBe(`the value ${REDACTED}`);
    expect(asUtf16be(Buffer.from(own.text(bytes.toString('base64')), 'base64'))).toBe(`the value ${REDACTED}`);
    const odd = Buffer.concat([Buffer.from([0x7f]), bytes]);
    expect(asUtf16be(own.window(odd, 0, odd.length).subarray(1))).toBe(`the value ${REDACTED}`);
  });
});

describe('text that only looks like the sanitizer’s working characters', () => {
  it('private-use characters (U+E000) in UTF-16 text are ordinary text, kept in windows and in base64', () => {
    const bytes = utf16le('plain words \uE000\uE000\uE000 more plain words');
    expect(sanitizer.window(bytes, 0, bytes.length).equals(bytes)).toBe(true);
    expect(sanitizer.text(bytes.toString('base64'))).toBe(bytes.toString('base64'));
  });

  it('a string with NUL characters and no secret comes back unchanged', () => {
    const text = utf16le('nothing secret in here').toString('utf8');
    expect(text).toContain('\u0000');
    expect(sanitizer.text(text)).toBe(text);
  });

  it('a sanitizer with no configured secrets still applies S2–S4 and keeps other text', () => {
    const none = createSanitizer([]);
    expect(none.text('password=hunter2hunter2 end')).toBe(`password=${REDACTED} end`);
    expect(none.text('Bearer abcdefgh12345678 sent')).toBe(`Bearer ${REDACTED} sent`);
    expect(none.text('nothing to hide here')).toBe('nothing to hide here');
  });
});

describe('objects that change while they are copied', () => {
  it('a property listed but gone by the time it is read is left out, not an error', () => {
    let reads = 0;
    const vanishing = new Proxy<Record<string, unknown>>(
      { kept: 1, gone: 2 },
      {
        getOwnPropertyDescriptor(target, key) {
          if (key === 'gone' && ++reads > 1) return undefined;
          return Reflect.getOwnPropertyDescriptor(target, key);
        },
      },
    );
    expect(sanitizer.value(vanishing)).toEqual({ kept: 1 });
  });
});

describe('secrets of different lengths and odd errors', () => {
  it('a string shorter than the longest secret still loses a shorter secret it holds', () => {
    // Made inside the test: the sanitizer's set-up is part of what is checked.
    const mixed = createSanitizer(['Qz7kL2pW', FIRST]);
    expect(mixed.text('x Qz7kL2pW')).toBe(`x ${REDACTED}`);
  });

  it('an error whose name is a getter: the getter never runs, so neither is the stack read', () => {
    let calls = 0;
    const error = new Error('plain message');
    Object.defineProperty(error, 'name', {
      get() {
        calls += 1;
        return 'Leaky';
      },
    });
    const out = createSanitizer([], { mode: 'log' }).value(error) as Record<string, unknown>;
    expect(calls).toBe(0);
    expect(out.name).toBe('[accessor]');
    expect(out.stack).toBe('[accessor]');
  });
});
