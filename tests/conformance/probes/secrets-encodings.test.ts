import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CanaryScanner } from '../../../src/conformance/probes/secrets.js';

/**
 * The canary scanner at the edges of its promises: what reads as text is decoded further and what
 * does not stops there, odd numbers and broken payloads never make it fail, every alignment and
 * wrapping of an encoded run is read, and each canary is reported once per way it was found.
 */
const secret = 'K005~~~~~~abcdefghij+/klmnopqrst';
const scanner = () => new CanaryScanner([{ name: 'application key', value: secret }]);
const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64');
const leak = (encoding: string) => [{ canary: 'application key', encoding }];

/** RFC 4648 base32, padded with `=` to a whole group of 8 characters. */
function base32(value: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = [...Buffer.from(value)].map((byte) => byte.toString(2).padStart(8, '0')).join('');
  const digits = (bits.match(/.{1,5}/g) ?? []).map((chunk) => alphabet[parseInt(chunk.padEnd(5, '0'), 2)]).join('');
  return digits.padEnd(Math.ceil(digits.length / 8) * 8, '=');
}

describe('only what reads as text is decoded further', () => {
  // b64(secret) is 44 characters: with 6 more characters the decoded text is 50 long.
  it('a decoded text with at most one control character in ten is decoded again', () => {
    expect(scanner().scan(b64(`${'\u0001'.repeat(5)} ${b64(secret)}`))).toEqual(leak('base64, base64'));
  });

  it('a decoded text with more control characters than one in ten is not decoded again', () => {
    expect(scanner().scan(b64(`${'\u0001'.repeat(6)}${b64(secret)}`))).toEqual([]);
  });

  it('undecodable bytes (U+FFFD) count as control characters', () => {
    expect(scanner().scan(b64(Buffer.concat([Buffer.alloc(6, 0xff), Buffer.from(b64(secret))])))).toEqual([]);
  });

  it('spaces, tabs and line breaks are text, however many there are', () => {
    for (const space of [' ', '\t', '\r', '\n'])
      expect(scanner().scan(b64(`${space.repeat(40)}${b64(secret)}`)), JSON.stringify(space)).toEqual(leak('base64, base64'));
  });

  it('the answer itself is always decoded, however many control characters it holds', () => {
    expect(scanner().scan(`${'\u0001'.repeat(100)} ${b64(secret)}`)).toEqual(leak('base64'));
  });
});

describe('odd input never makes the scan fail', () => {
  it('escapes and character codes beyond Unicode are left as they are', () => {
    const odd = `&#9999999; \\u{ffffff} 0xffffff 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 9999999 ${secret}`;
    expect(scanner().scan(odd)).toEqual(leak('raw'));
  });

  it('a payload that looks compressed but is not is skipped, and the stack trace limit is left as it was', () => {
    const before = Error.stackTraceLimit;
    try {
      Error.stackTraceLimit = 17;
      const broken = [
        Buffer.from([0x1f, 0x8b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]),
        Buffer.from([0x78, 0x9c, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
      ];
      expect(scanner().scan(broken.map((bytes) => b64(Buffer.concat([bytes, bytes]))).join(' '))).toEqual([]);
      expect(Error.stackTraceLimit).toBe(17);
    } finally {
      Error.stackTraceLimit = before;
    }
  });
});

describe('decoded text is bounded per byte of the answer', () => {
  const zeros = (count: number) => Buffer.concat([Buffer.alloc(count), Buffer.from(secret)]);

  it('a small compressed payload is inflated and searched', () => {
    expect(scanner().scan(b64(gzipSync(zeros(10_000))))).toEqual(leak('base64, gzip'));
  });

  it('a compression bomb is not inflated beyond the bound', () => {
    const bomb = b64(gzipSync(zeros(4_000_000)));
    expect(bomb.length).toBeLessThan(10_000);
    expect(scanner().scan(bomb)).toEqual([]);
  });
});

describe('base32 and wrapped base64', () => {
  it('padded base32 is found', () => {
    expect(base32(secret)).toMatch(/=$/);
    expect(scanner().scan(`token ${base32(secret)} end`)).toEqual(leak('base32'));
  });

  it('base32 is read at every alignment: a run with a few characters before the encoding is still found', () => {
    expect(scanner().scan(`XYZ${base32(secret).replace(/=+$/, '')}`)).toEqual(leak('base32'));
  });

  /** The secret's base64 over three or more lines: a line that ends in 16 base64 characters, then lines of 20. */
  function narrowlyWrapped(indent: string, trailing: string): string {
    const encoded = b64(`${secret}${' tail'.repeat(6)}`);
    const rest = encoded.slice(16).match(/.{1,20}/g)!;
    const last = rest.pop()!;
    return [`key: ${encoded.slice(0, 16)}${trailing}`, ...rest.map((line) => `${indent}${line}${trailing}`), `${indent}${last}" end`].join(
      '\n',
    );
  }

  it('base64 wrapped narrowly, so that the secret spans three lines, is joined whole', () => {
    expect(narrowlyWrapped('', '')).toMatch(/^key: \S{16}\n\S{20}\n\S{20}\n/);
    expect(scanner().scan(narrowlyWrapped('', ''))).toEqual(leak('base64'));
  });

  it('base64 wrapped inside a JSON string, its line breaks escaped as \\n or \\r\\n, is joined too', () => {
    const escaped = (separator: string) => JSON.stringify({ pem: narrowlyWrapped('', '') }).replaceAll('\\n', separator);
    expect(escaped('\\n')).toContain('\\n');
    expect(scanner().scan(escaped('\\n'))).toEqual(leak('base64'));
    expect(scanner().scan(escaped('\\r\\n'))).toEqual(leak('base64'));
  });

  it('wrapped lines may be indented and end in spaces or tabs', () => {
    expect(scanner().scan(narrowlyWrapped('  ', ' \t'))).toEqual(leak('base64'));
  });

  it('base64 that starts at the end of a line with trailing spaces and ends at the start of another is joined', () => {
    const encoded = b64(`${'padding '.repeat(3)}${secret}${' tail'.repeat(3)}`);
    const lines = [`key: ${encoded.slice(0, 20)}   `, `  ${encoded.slice(20, 40)}\t`, `${encoded.slice(40)}" and more`];
    expect(scanner().scan(lines.join('\n'))).toEqual(leak('base64'));
  });
});

describe('separated characters', () => {
  const sixteen = 'K005abcdefghijkl';
  const spelled = (value: string) => [...value].join(' ');

  it('a secret of 16 letters and digits is found spelled out, forwards and backwards', () => {
    const plain = new CanaryScanner([{ name: 'k', value: sixteen }]);
    expect(plain.scan(spelled(sixteen))).toEqual([{ canary: 'k', encoding: 'separated characters' }]);
    expect(plain.scan(spelled([...sixteen].reverse().join('')))).toEqual([{ canary: 'k', encoding: 'separated characters, reversed' }]);
  });

  it('a shorter secret is not looked for spelled out, either way', () => {
    const short = new CanaryScanner([{ name: 'k', value: 'K005abcdefghijk' }]);
    expect(short.scan(spelled('K005abcdefghijk'))).toEqual([]);
    expect(short.scan(spelled('kjihgfedcba500K'))).toEqual([]);
  });
});

describe('each canary once', () => {
  it('two values under one name found the same way are one leak; found in two ways, two', () => {
    const two = new CanaryScanner([
      { name: 'token', value: 'tokenvalue-one-0123456789' },
      { name: 'token', value: 'tokenvalue-two-0123456789' },
    ]);
    expect(two.scan('tokenvalue-one-0123456789 and tokenvalue-two-0123456789')).toEqual([{ canary: 'token', encoding: 'raw' }]);
    expect(two.scan(`tokenvalue-one-0123456789 and ${b64('tokenvalue-two-0123456789')}`)).toEqual([
      { canary: 'token', encoding: 'raw' },
      { canary: 'token', encoding: 'base64' },
    ]);
  });

  it('a canary found raw stays reported raw while the scan goes on for another canary', () => {
    const two = new CanaryScanner([
      { name: 'application key', value: secret },
      { name: 'other key', value: 'K005otherotherotherother' },
    ]);
    expect(two.scan(`${secret} ${b64(secret)}`)).toEqual(leak('raw'));
  });

  it('a canary found raw is reported raw even when an encoded copy follows', () => {
    expect(scanner().scan(`${b64(secret)} ${secret}`)).toEqual(leak('raw'));
  });
});
