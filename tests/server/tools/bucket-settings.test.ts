import { describe, expect, it } from 'vitest';
import type { B2CorsRule } from '../../../src/server/b2/types.js';
import { checkBucketInfo, checkCorsRules } from '../../../src/server/tools/bucket-settings.js';

const badRequest = (message: RegExp) =>
  expect.objectContaining({ status: 400, code: 'bad_request', message: expect.stringMatching(message) });
const rule = (overrides: Partial<B2CorsRule> = {}): B2CorsRule => ({
  corsRuleName: 'downloads',
  allowedOrigins: ['https://app.example.com'],
  allowedOperations: ['b2_download_file_by_name'],
  allowedHeaders: ['range'],
  maxAgeSeconds: 3600,
  ...overrides,
});

describe('bucket info limits', () => {
  it('accepts up to 10 pairs, 50-byte keys and 10,000 bytes of values', () => {
    const info = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`.padEnd(50, 'x'), 'v'.repeat(1000)]));
    expect(() => checkBucketInfo(info)).not.toThrow();
  });

  it('refuses an 11th pair, reserved b2- keys (any case), and values over 10,000 bytes in total', () => {
    const eleven = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v']));
    expect(() => checkBucketInfo(eleven)).toThrow(badRequest(/at most 10 pairs/));
    expect(() => checkBucketInfo({ 'B2-Owner': 'x' })).toThrow(badRequest(/reserved "b2-"/));
    expect(() => checkBucketInfo({ a: 'é'.repeat(2500), b: 'x'.repeat(5001) })).toThrow(badRequest(/10001 bytes/));
    expect(() => checkBucketInfo({ ['k'.repeat(51)]: 'x' })).toThrow(badRequest(/1-50 bytes/));
  });
});

describe('CORS rule limits', () => {
  it('accepts a well-formed rule set', () => {
    expect(() => checkCorsRules([rule(), rule({ corsRuleName: 'uploads-2', exposeHeaders: ['x-bz-content-sha1'] })])).not.toThrow();
  });

  it('refuses duplicate, reserved and malformed names', () => {
    expect(() => checkCorsRules([rule(), rule()])).toThrow(badRequest(/more than once/));
    expect(() => checkCorsRules([rule({ corsRuleName: 'b2-rule-x' })])).toThrow(badRequest(/reserved/));
    expect(() => checkCorsRules([rule({ corsRuleName: 'short' })])).toThrow(badRequest(/6-63/));
  });

  it('refuses empty origin/operation lists, over-long lists and strings, and rules of 1,000 bytes or more', () => {
    expect(() => checkCorsRules([rule({ allowedOrigins: [] })])).toThrow(badRequest(/allowedOrigins needs 1-100/));
    expect(() => checkCorsRules([rule({ allowedHeaders: Array.from({ length: 101 }, (_, i) => `h${i}`) })])).toThrow(
      badRequest(/allowedHeaders needs 0-100/),
    );
    expect(() => checkCorsRules([rule({ allowedOrigins: ['x'.repeat(1000)] })])).toThrow(badRequest(/1-999 characters/));
    expect(() => checkCorsRules([rule({ allowedOrigins: ['o'.repeat(500)], allowedHeaders: ['h'.repeat(480)] })])).toThrow(
      badRequest(/under 1000/),
    );
    expect(() =>
      checkCorsRules(Array.from({ length: 101 }, (_, i) => rule({ corsRuleName: `rule-${String(i).padStart(3, '0')}` }))),
    ).toThrow(badRequest(/At most 100/));
  });
});
