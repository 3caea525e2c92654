import { describe, expect, test } from 'vitest';
import {
  describeTarget,
  httpTarget,
  parsePairs,
  redact,
  secretValuesOf,
  splitCommandLine,
  stdioTarget,
} from '../../../src/conformance/connect/target.js';

describe('--server command lines split like a shell, without expansion', () => {
  test.each([
    ['node server.js --stdio', ['node', 'server.js', '--stdio']],
    ['  node   "my server.js"  ', ['node', 'my server.js']],
    ['npx -y \'pkg@1.0\' --flag="a b"', ['npx', '-y', 'pkg@1.0', '--flag=a b']],
    ['node a\\ b.js', ['node', 'a b.js']],
    ['echo "say \\"hi\\"" $HOME', ['echo', 'say "hi"', '$HOME']],
    ['cmd ""', ['cmd', '']],
  ])('%s', (line, words) => expect(splitCommandLine(line)).toEqual(words));

  test('an unterminated quote is a usage error', () => {
    expect(() => splitCommandLine('node "oops')).toThrow(/unterminated " quote/);
  });
});

describe('targets', () => {
  test('--env NAME copies one variable from the shell; NAME=VALUE sets it', () => {
    expect(parsePairs('--env', ['A=1', 'B', 'C=x=y'], (key) => (key === 'B' ? 'from-shell' : undefined))).toEqual({
      A: '1',
      B: 'from-shell',
      C: 'x=y',
    });
    expect(() => parsePairs('--env', ['MISSING'], () => undefined)).toThrow(/expected NAME=VALUE/);
    expect(() => parsePairs('--header', ['=v'])).toThrow(/expected NAME=VALUE/);
  });

  test('the evidence names env vars and headers but never shows their values', () => {
    const stdio = stdioTarget('node fork.js', { B2_APPLICATION_KEY: 'K005abcdefghijklmnopqrstuvwxyz012' });
    expect(JSON.stringify(describeTarget(stdio))).not.toContain('K005');
    expect(describeTarget(stdio)).toEqual({ transport: 'stdio', command: 'node', args: ['fork.js'], env: ['B2_APPLICATION_KEY'] });
    const http = httpTarget('https://user:pw-1234@example.invalid/mcp?token=abc123456', { Authorization: 'Bearer xyz' });
    expect(describeTarget(http)).toEqual({
      transport: 'streamable-http',
      url: 'https://example.invalid/mcp?token=***',
      headers: ['Authorization'],
    });
    expect(secretValuesOf(http).sort()).toEqual(['Bearer xyz', 'abc123456', 'pw-1234']);
  });

  test('redact masks given secrets and long key-like runs, not paths or words', () => {
    expect(redact('auth failed for Bearer xyz-secret', ['Bearer xyz-secret'])).toBe('auth failed for ***');
    expect(redact('key K005aBcDeFgHiJkLmNoPqRsTuVwXyZ012 rejected', [])).toBe('key *** rejected');
    expect(redact('cannot open /usr/local/lib/node_modules/some-package/dist/index.js', [])).toBe(
      'cannot open /usr/local/lib/node_modules/some-package/dist/index.js',
    );
  });
});
