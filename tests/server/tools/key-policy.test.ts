import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/server/config.js';
import { checkKeyPolicy } from '../../../src/server/tools/key-policy.js';

const strict = { allowKeyManagementGrants: false, allowUnscopedKeys: false };
const refused = (message: RegExp) =>
  expect.objectContaining({ status: 403, code: 'key_policy_violation', message: expect.stringMatching(message) });
const key = (capabilities: string[], extra: Record<string, unknown> = {}) => ({ keyName: 'k', capabilities, ...extra });

describe('b2_create_key policy', () => {
  it('allows read-only keys and bucket-scoped write keys by default', () => {
    expect(() => checkKeyPolicy(key(['listBuckets', 'listFiles', 'readFiles']), strict)).not.toThrow();
    expect(() => checkKeyPolicy(key(['writeFiles', 'deleteFiles'], { bucketIds: ['b1'] }), strict)).not.toThrow();
  });

  it('refuses key-management grants unless allowed', () => {
    expect(() => checkKeyPolicy(key(['listKeys', 'listFiles']), strict)).toThrow(refused(/manage other keys \(listKeys\)/));
    expect(() => checkKeyPolicy(key(['writeKeys'], { bucketIds: ['b1'] }), strict)).toThrow(refused(/writeKeys/));
    expect(() => checkKeyPolicy(key(['listKeys']), { ...strict, allowKeyManagementGrants: true })).not.toThrow();
  });

  it('refuses unscoped write or delete keys unless allowed', () => {
    expect(() => checkKeyPolicy(key(['readFiles', 'writeFiles']), strict)).toThrow(refused(/\(writeFiles\) must be restricted to buckets/));
    expect(() => checkKeyPolicy(key(['deleteBuckets'], { bucketIds: [] }), strict)).toThrow(refused(/deleteBuckets/));
    expect(() => checkKeyPolicy(key(['writeFiles']), { ...strict, allowUnscopedKeys: true })).not.toThrow();
  });

  it('with a maximum duration, requires an expiry within it', () => {
    const capped = { ...strict, maxKeyDurationSeconds: 3600 };
    expect(() => checkKeyPolicy(key(['readFiles']), capped)).toThrow(refused(/must expire: pass validDurationInSeconds of at most 3600/));
    expect(() => checkKeyPolicy(key(['readFiles'], { validDurationInSeconds: 3601 }), capped)).toThrow(refused(/at most 3600/));
    expect(() => checkKeyPolicy(key(['readFiles'], { validDurationInSeconds: 3600 }), capped)).not.toThrow();
  });

  it('never names the variables that widen it', () => {
    const error = (() => {
      try {
        checkKeyPolicy(key(['listKeys', 'writeFiles']), strict);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message).not.toMatch(/B2_|ALLOW/);
  });

  it('is read from the environment; a bad maximum stops start-up', () => {
    const base = { B2_MCP_PROFILE: 'full' };
    expect(loadConfig(base, 'stdio').keyPolicy).toEqual(strict);
    expect(
      loadConfig(
        { ...base, B2_ALLOW_KEY_MGMT_GRANTS: 'true', B2_ALLOW_UNSCOPED_KEYS: 'TRUE', B2_MAX_KEY_DURATION_SECONDS: '86400' },
        'http',
      ).keyPolicy,
    ).toEqual({
      allowKeyManagementGrants: true,
      allowUnscopedKeys: true,
      maxKeyDurationSeconds: 86400,
    });
    for (const bad of ['0', '-5', '1.5', 'week']) {
      expect(() => loadConfig({ ...base, B2_MAX_KEY_DURATION_SECONDS: bad }, 'stdio')).toThrow(ConfigError);
    }
    expect(() => loadConfig({ ...base, B2_ALLOW_UNSCOPED_KEYS: 'yes' }, 'stdio')).toThrow(
      /B2_ALLOW_UNSCOPED_KEYS must be one of true, false/,
    );
  });
});
