/**
 * Sanitizer edges the broader suite (sanitize.test.ts, security-contract.test.ts) leaves open:
 * secrets with whitespace inside encoded runs, merging of adjacent and contained secret matches,
 * encoded runs that must come back byte for byte, `__proto__` copies, sparse arrays, and Error
 * records built from odd errors (no prototype, non-string fields, error-like objects).
 */
import { describe, expect, it } from 'vitest';
import { REDACTED, collectSecretValues, createSanitizer } from '../../../src/server/policy/sanitize.js';

const b64 = (text: string) => Buffer.from(`\x00\x01${text}\x02`, 'latin1').toString('base64');
const decoded = (text: string) => Buffer.from(text, 'base64').toString('latin1');

describe('configured secrets', () => {
  it('the defaults: no extra values, result mode', () => {
    expect(collectSecretValues({})).toEqual([]);
    expect(createSanitizer([]).mode).toBe('result');
    expect(createSanitizer([], { mode: 'log' }).mode).toBe('log');
  });

  it('a sanitizer made without options is a result sanitizer: key ids kept, functions dropped', () => {
    expect(createSanitizer([]).value({ applicationKeyId: 'K0001', run: () => 1, n: 1 })).toEqual({ applicationKeyId: 'K0001', n: 1 });
    expect(createSanitizer([], { mode: 'log' }).value({ applicationKeyId: 'K0001', run: () => 1 })).toEqual({
      applicationKeyId: REDACTED,
      run: '[function]',
    });
  });

  it('the redaction marker itself is never collected as a secret', () => {
    expect(collectSecretValues({ B2_APP_KEY: REDACTED }, [REDACTED])).toEqual([]);
  });

  it('secrets that touch are redacted as one span; a secret inside a longer one leaves no fragment', () => {
    const adjacent = createSanitizer(['AAAAAAAA', 'BBBBBBBB']);
    expect(adjacent.text('x AAAAAAAABBBBBBBB y')).toBe(`x ${REDACTED} y`);
    expect(adjacent.text('x AAAAAAAA BBBBBBBB y')).toBe(`x ${REDACTED} ${REDACTED} y`);
    const nested = createSanitizer(['abcdefghijkl', 'cdefghij']);
    expect(nested.text('xx abcdefghijkl yy')).toBe(`xx ${REDACTED} yy`);
    expect(nested.text('xx cdefghij yy')).toBe(`xx ${REDACTED} yy`);
  });

  it.each([
    ['spaces', 'a b c d e'],
    ['tabs', 'a\tb\tc\td\te'],
    ['carriage returns', 'a\rb\rc\rd\re'],
  ])('a secret with %s inside base64 content is found', (_what, secret) => {
    const sanitizer = createSanitizer([secret]);
    const out = sanitizer.text(b64(secret));
    expect(decoded(out)).toBe(`\x00\x01${REDACTED}\x02`);
  });
});

describe('encoded runs without secrets come back exactly as written', () => {
  it.each([
    ['base64 with trailing bits a re-encoding would drop', `${Buffer.from('Hello world!').toString('base64')}X`],
    ['base64 with padding', Buffer.from('Hello world!!').toString('base64')],
    ['mixed-case hex', '48656C6c6F20776F726C6421'],
    ['URL-safe base64', Buffer.from('Hello world? >>>').toString('base64url')],
  ])('%s', (_what, run) => {
    expect(createSanitizer(['unrelated-secret-value']).text(`data ${run} end`)).toBe(`data ${run} end`);
  });
});

describe('structure', () => {
  it('a "__proto__" key becomes an ordinary own, enumerable, writable data property', () => {
    const out = createSanitizer([]).value(JSON.parse('{"__proto__":{"polluted":true},"a":1}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')).toEqual({
      value: { polluted: true },
      enumerable: true,
      writable: true,
      configurable: true,
    });
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":true},"a":1}');
  });

  it('a sparse array keeps its length', () => {
    const sparse: unknown[] = [1];
    sparse.length = 3;
    const out = createSanitizer([]).value(sparse) as unknown[];
    expect(out).toHaveLength(3);
    expect(JSON.stringify(out)).toBe('[1,null,null]');
  });
});

describe('log-mode error records', () => {
  const logs = () => createSanitizer(['configured-secret-1'], { mode: 'log' });

  it('an error without a prototype gets the default name, and an empty message when it has none', () => {
    const bare = new Error('gone');
    Object.setPrototypeOf(bare, null);
    delete (bare as { message?: string }).message;
    const out = logs().value(bare) as Record<string, unknown>;
    expect(out.name).toBe('Error');
    expect(out.message).toBe('');
  });

  it('an error-like object (Error.prototype, not native) is an error record; fields that are not strings are shown as text', () => {
    const errorLike = Object.assign(Object.create(Error.prototype) as object, { name: 7, message: true, code: 10n, value: 'plain value' });
    const out = logs().value({ error: errorLike }) as { error: Record<string, unknown> };
    expect(out.error).toEqual({ name: '7', message: 'true', code: 10n, value: 'plain value' });
    expect('stack' in out.error).toBe(false);
  });

  it('error fields that are neither text nor number-like are dropped, bigints shown as text', () => {
    const errorLike = Object.assign(Object.create(Error.prototype) as object, { name: 5n, message: { nested: 'object' } });
    const out = logs().value(errorLike) as Record<string, unknown>;
    expect(out.name).toBe('5');
    expect(out.message).toBe('');
  });

  it('a field named "value" in an error or its cause is not a header value', () => {
    const error = Object.assign(new Error('m', { cause: { value: 'cause value' } }), { value: 'own value' });
    const out = logs().value(error) as Record<string, unknown>;
    expect(out.value).toBe('own value');
    expect(out.cause).toEqual({ value: 'cause value' });
  });

  it('the message of an error-like record is sanitized like any text', () => {
    const errorLike = Object.assign(Object.create(Error.prototype) as object, { message: 'uses configured-secret-1 here' });
    expect((logs().value(errorLike) as Record<string, unknown>).message).toBe(`uses ${REDACTED} here`);
  });
});
