/**
 * Security promises checked against tables written from the contract (§6.2 gate triggers,
 * §8.2 secret names), not against the code's own lists: dropping a name or a trigger clause
 * from the code fails here.
 */
import { describe, expect, it } from 'vitest';
import {
  createSanitizer,
  collectSecretValues,
  LOG_ONLY_SECRET_KEYS,
  REDACTED,
  SECRET_HEADER_NAMES,
  STRUCTURED_SECRET_KEYS,
} from '../../src/server/policy/sanitize.js';
import { TOOL_CATALOG } from '../../src/server/tools/catalog.js';
import type { ToolArgs } from '../../src/server/tools/schema.js';

/** K1: the 21 structured secret names. */
const K1 = [
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
/** K5: the 9 secret header names. */
const K5 = [
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
/** K6: the 4 credential handles redacted in logs only. */
const K6 = ['accessKeyId', 'appKeyId', 'applicationKeyId', 'masterKeyId'];
/** S1: the 4 env names whose values are secrets (plus the B2_CREDENTIAL_<REF>_* pattern). */
const SECRET_ENV = ['AWS_SECRET_ACCESS_KEY', 'B2_APP_KEY', 'B2_APPLICATION_KEY', 'B2_MASTER_KEY'];

const VALUE = 'plain-looking-value-0001';
const results = createSanitizer([]);
const logs = createSanitizer([], { mode: 'log' });

/** The spellings normalization must treat alike: as written, lower, upper, snake and kebab. */
function spellings(name: string): string[] {
  const snake = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2');
  return [...new Set([name, name.toLowerCase(), name.toUpperCase(), snake.toLowerCase(), snake.replace(/_/g, '-')])];
}

describe('every secret name of the contract', () => {
  it('the sanitizer lists exactly the contract names', () => {
    expect([...STRUCTURED_SECRET_KEYS].sort()).toEqual([...K1].sort());
    expect([...SECRET_HEADER_NAMES].sort()).toEqual([...K5].sort());
    expect([...LOG_ONLY_SECRET_KEYS].sort()).toEqual([...K6].sort());
  });

  it.each([...K1, ...K5])('%s: redacted wholesale as a key in any spelling, at any depth, in results and logs', (name) => {
    for (const key of spellings(name)) {
      for (const value of [VALUE, 12345, { nested: VALUE }, [VALUE]]) {
        const input = { top: { [key]: value }, list: [{ [key]: value }], keep: 'visible' };
        for (const sanitizer of [results, logs]) {
          const out = sanitizer.value(input) as { top: Record<string, unknown>; list: Array<Record<string, unknown>>; keep: string };
          expect(out.top[key], `${sanitizer.mode} ${key}`).toBe(REDACTED);
          expect(out.list[0]![key]).toBe(REDACTED);
          expect(out.keep).toBe('visible');
        }
      }
    }
  });

  it.each([...K1, ...K5, ...SECRET_ENV])('%s: a "label: value" or "label=value" in text loses its value', (label) => {
    for (const text of [`${label}: ${VALUE}`, `${label}=${VALUE}`, `"${label}":"${VALUE}"`, `${label.toLowerCase()} = '${VALUE}'`]) {
      const out = results.text(`before ${text} after`);
      expect(out, text).not.toContain(VALUE);
      expect(out).toContain(REDACTED);
      expect(out.startsWith('before ')).toBe(true);
    }
  });

  it.each(K6)('%s: kept in results (key listings need it), redacted in logs', (name) => {
    expect(results.value({ [name]: VALUE })).toEqual({ [name]: VALUE });
    expect(logs.value({ [name]: VALUE })).toEqual({ [name]: REDACTED });
  });

  it.each([
    ...SECRET_ENV,
    'B2_CREDENTIAL_TEAM1_APP_KEY',
    'B2_CREDENTIAL_X_APPLICATION_KEY',
    'B2_CREDENTIAL_OPS_MASTER_KEY',
    'b2_application_key',
  ])('the value of env %s is a configured secret wherever it appears', (name) => {
    const secret = `${name.length}-env-secret-value-xyz`;
    const sanitizer = createSanitizer(collectSecretValues({ [name]: secret, PATH: '/usr/bin:/bin-long-enough' }));
    expect(sanitizer.text(`got ${secret} back`)).toBe(`got ${REDACTED} back`);
    expect(sanitizer.text('/usr/bin:/bin-long-enough')).toBe('/usr/bin:/bin-long-enough');
    expect(sanitizer.text(Buffer.from(`x ${secret} y`).toString('base64'))).not.toBe(Buffer.from(`x ${secret} y`).toString('base64'));
  });

  it('K2/K3 suffixes are secrets, except the pagination cursors and secretName', () => {
    expect(
      results.value({
        webhookSecret: VALUE,
        refreshToken: VALUE,
        secretName: 'n',
        continuationToken: 'c',
        nextContinuationToken: 'c',
        nextToken: 'c',
      }),
    ).toEqual({
      webhookSecret: REDACTED,
      refreshToken: REDACTED,
      secretName: 'n',
      continuationToken: 'c',
      nextContinuationToken: 'c',
      nextToken: 'c',
    });
  });
});

type Case = [tool: string, args: ToolArgs];

/** Contract §6.2 (plus docs/deviations.md): each trigger clause alone must gate the call. */
const TRIGGERS: Case[] = [
  ['b2_delete_bucket', { bucketId: 'b' }],
  ['b2_delete_key', { applicationKeyId: 'k' }],
  ['s3_delete_object', { bucket: 'b', key: 'k' }],
  ['s3_delete_objects', { bucket: 'b', objects: [{ key: 'k' }] }],
  ['s3_abort_multipart_upload', { bucket: 'b', key: 'k', uploadId: 'u' }],
  ['b2_create_key', { keyName: 'k', capabilities: ['listFiles'] }],
  ['b2_create_group_member', {}],
  ['b2_reserve_trial_create_account', {}],
  ['b2_eject_group_member', { adminAccountId: 'a', groupId: 'g', memberAccountId: 'm' }],
  ['b2_set_bucket_notification_rules', { bucketId: 'b', eventNotificationRules: [] }],
  ['s3_get_presigned_url', { bucket: 'b', key: 'k', operation: 'PutObject' }],
  ['b2_update_file_retention', { fileId: 'f', fileName: 'n', fileRetention: { mode: null, retainUntilTimestamp: null } }],
  [
    'b2_update_file_retention',
    { fileId: 'f', fileName: 'n', fileRetention: { mode: 'governance', retainUntilTimestamp: 1 }, bypassGovernance: true },
  ],
  ['b2_update_file_legal_hold', { fileId: 'f', fileName: 'n', legalHold: 'off' }],
  ['b2_update_bucket', { bucketId: 'b', bucketType: 'allPublic' }],
  ['b2_update_bucket', { bucketId: 'b', fileLockEnabled: false }],
  ['b2_update_bucket', { bucketId: 'b', defaultRetention: { mode: null, period: null } }],
  ['b2_update_bucket', { bucketId: 'b', lifecycleRules: [{ fileNamePrefix: '', daysFromHidingToDeleting: 1 }] }],
  ['b2_update_bucket', { bucketId: 'b', replicationConfiguration: {} }],
  ['b2_update_bucket', { bucketId: 'b', defaultServerSideEncryption: { mode: 'none' } }],
  ['b2_update_bucket', { bucketId: 'b', defaultRetention: { mode: 'governance', period: { duration: 1, unit: 'days' } } }],
  ['b2_create_bucket', { bucketName: 'bucket-x', bucketType: 'allPublic' }],
  ['s3_put_bucket_lifecycle', { bucket: 'b', rules: [] }],
  ['s3_put_bucket_lifecycle', { bucket: 'b', rules: [{ id: 'r', status: 'Enabled', expiration: { days: 30 } }] }],
  [
    's3_put_bucket_lifecycle',
    { bucket: 'b', rules: [{ id: 'r', status: 'Enabled', noncurrentVersionExpiration: { noncurrentDays: 30 } }] },
  ],
  // Bucket-wide cancellation of unfinished uploads, as cancelling one upload is.
  [
    's3_put_bucket_lifecycle',
    { bucket: 'b', rules: [{ id: 'r', status: 'Enabled', abortIncompleteMultipartUpload: { daysAfterInitiation: 3 } }] },
  ],
  [
    's3_put_bucket_lifecycle',
    {
      bucket: 'b',
      rules: [
        {
          id: 'r',
          status: 'Disabled',
          expiration: null,
          noncurrentVersionExpiration: null,
          abortIncompleteMultipartUpload: { daysAfterInitiation: 3 },
        },
      ],
    },
  ],
  ['b2_update_bucket', { bucketId: 'b', lifecycleRules: [{ fileNamePrefix: '', daysFromStartingToCancelingUnfinishedLargeFiles: 1 }] }],
];

/** The harmless twin of each conditional trigger: it must not be gated. */
const HARMLESS: Case[] = [
  ['s3_get_presigned_url', { bucket: 'b', key: 'k', operation: 'GetObject' }],
  ['b2_update_file_retention', { fileId: 'f', fileName: 'n', fileRetention: { mode: 'governance', retainUntilTimestamp: 1 } }],
  [
    'b2_update_file_retention',
    { fileId: 'f', fileName: 'n', fileRetention: { mode: 'governance', retainUntilTimestamp: 1 }, bypassGovernance: false },
  ],
  ['b2_update_file_legal_hold', { fileId: 'f', fileName: 'n', legalHold: 'on' }],
  ['b2_update_bucket', { bucketId: 'b', bucketType: 'allPrivate' }],
  ['b2_update_bucket', { bucketId: 'b', fileLockEnabled: true }],
  [
    'b2_update_bucket',
    { bucketId: 'b', lifecycleRules: [{ fileNamePrefix: '', daysFromUploadingToHiding: 1, daysFromHidingToDeleting: null }] },
  ],
  ['b2_update_bucket', { bucketId: 'b', bucketInfo: { team: 'x' }, corsRules: [] }],
  ['b2_update_bucket', { bucketId: 'b', defaultServerSideEncryption: { mode: 'SSE-B2', algorithm: 'AES256' } }],
  ['b2_create_bucket', { bucketName: 'bucket-x', bucketType: 'allPrivate' }],
  [
    'b2_update_bucket',
    {
      bucketId: 'b',
      lifecycleRules: [{ fileNamePrefix: '', daysFromUploadingToHiding: 1, daysFromStartingToCancelingUnfinishedLargeFiles: null }],
    },
  ],
];

const gateOf = (tool: string) => {
  const definition = TOOL_CATALOG.find((d) => d.name === tool);
  if (!definition) throw new Error(`no tool ${tool}`);
  return definition.gate;
};

describe('every gate trigger of the contract, and its harmless twin', () => {
  it("the gated tools are exactly the contract's 15 plus b2_create_bucket", () => {
    const gated = TOOL_CATALOG.filter((d) => d.gate)
      .map((d) => d.name)
      .sort();
    expect(gated).toEqual([...new Set(TRIGGERS.map(([tool]) => tool))].sort());
  });

  it.each(TRIGGERS)('%s %j is gated', (tool, args) => {
    expect(gateOf(tool)?.(args)).toEqual(expect.any(String));
  });

  it.each(HARMLESS)('%s %j is not gated', (tool, args) => {
    expect(gateOf(tool)!(args)).toBeUndefined();
  });

  it('effects of several clauses are all named', () => {
    const effect = gateOf('b2_update_bucket')!({
      bucketId: 'b',
      bucketType: 'allPublic',
      fileLockEnabled: false,
      replicationConfiguration: {},
    }) as string;
    expect(effect.split(' and ')).toHaveLength(3);
    expect(gateOf('b2_update_file_retention')!({ fileRetention: { mode: null }, bypassGovernance: true })).toMatch(/ and /);
  });
});
