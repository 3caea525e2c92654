import { describe, expect, it } from 'vitest';
import { redisUrlPasswords } from '../../../src/server/config.js';
import { createRuntime } from '../../../src/server/start.js';
import { loadHttpSettings } from '../../../src/server/transports/http-settings.js';

const CANARY = 'redis-url-password-canary-51e2';

describe('B2_MCP_REDIS_URL and B2_MCP_REDIS_FAILURE', () => {
  it('leave the limits in this process when no URL is set, whatever the failure mode', () => {
    expect(loadHttpSettings({}).redis).toBeUndefined();
    expect(loadHttpSettings({ B2_MCP_REDIS_URL: '  ', B2_MCP_REDIS_FAILURE: 'closed' }).redis).toBeUndefined();
  });

  it('share them through the named Redis, failing open unless told otherwise', () => {
    expect(loadHttpSettings({ B2_MCP_REDIS_URL: 'redis://cache:6379/2' }).redis).toEqual({ url: 'redis://cache:6379/2', failure: 'open' });
    expect(loadHttpSettings({ B2_MCP_REDIS_URL: 'rediss://:pw@cache.internal', B2_MCP_REDIS_FAILURE: 'Closed' }).redis).toEqual({
      url: 'rediss://:pw@cache.internal',
      failure: 'closed',
    });
  });

  it.each(['http://cache:6379', 'cache:6379', 'redis://', 'not a url'])('refuse %s as a Redis URL', (url) => {
    expect(() => loadHttpSettings({ B2_MCP_REDIS_URL: url })).toThrow('B2_MCP_REDIS_URL must be a redis:// or rediss:// URL with a host.');
  });

  it('never echo a refused URL, which may carry a password', () => {
    expect(() => loadHttpSettings({ B2_MCP_REDIS_URL: `https://:${CANARY}@cache` })).toThrow(/^(?![\s\S]*redis-url-password-canary)/);
  });

  it('refuse a failure mode other than open or closed', () => {
    expect(() => loadHttpSettings({ B2_MCP_REDIS_URL: 'redis://cache', B2_MCP_REDIS_FAILURE: 'ignore' })).toThrow(
      'B2_MCP_REDIS_FAILURE must be one of open, closed (got "ignore").',
    );
  });
});

describe('the password in B2_MCP_REDIS_URL', () => {
  it('is redacted from results and logs like any other secret, as written and decoded', async () => {
    const encoded = 'p%40ss-redis-canary-9d1f';
    const runtime = await createRuntime(
      { B2_MCP_PROFILE: 'default', B2_SECRET_SINK: 'off', LOG_LEVEL: 'silent', B2_MCP_REDIS_URL: `redis://default:${encoded}@cache:6379` },
      'http',
    );
    const text = runtime.sanitizer.text(`failed with p@ss-redis-canary-9d1f and ${encoded}`);
    expect(text).not.toContain('redis-canary');
  });

  it('is nothing to redact when the URL has none or does not parse', () => {
    expect(redisUrlPasswords({ B2_MCP_REDIS_URL: 'redis://cache:6379' })).toEqual([]);
    expect(redisUrlPasswords({ B2_MCP_REDIS_URL: 'not a url' })).toEqual([]);
    expect(redisUrlPasswords({})).toEqual([]);
    expect(redisUrlPasswords({ B2_MCP_REDIS_URL: 'redis://:a%2Fb-long-enough@cache' })).toEqual(['a%2Fb-long-enough', 'a/b-long-enough']);
  });
});
