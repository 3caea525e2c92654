import { describe, expect, it } from 'vitest';
import { loadHttpSettings } from '../../src/server/transports/http-settings.js';

const CANARY = 'redis-url-password-canary-51e2';

describe('B2_MCP_REDIS_URL and B2_MCP_REDIS_FAILURE', () => {
  it('leave the limits in this process when no URL is set, whatever the failure mode', () => {
    expect(loadHttpSettings({}).redis).toBeUndefined();
    expect(loadHttpSettings({ B2_MCP_REDIS_URL: '  ', B2_MCP_REDIS_FAILURE: 'closed' }).redis).toBeUndefined();
  });

  it('share them through the named Redis, failing open unless told otherwise', () => {
    expect(loadHttpSettings({ B2_MCP_REDIS_URL: 'redis://cache:6379/2' }).redis).toEqual({ url: 'redis://cache:6379/2', failure: 'open' });
    expect(loadHttpSettings({ B2_MCP_REDIS_URL: 'rediss://:pw@cache.internal', B2_MCP_REDIS_FAILURE: 'Closed' }).redis).toEqual({ url: 'rediss://:pw@cache.internal', failure: 'closed' });
  });

  it.each(['http://cache:6379', 'cache:6379', 'redis://', 'not a url'])('refuse %s as a Redis URL', (url) => {
    expect(() => loadHttpSettings({ B2_MCP_REDIS_URL: url })).toThrow('B2_MCP_REDIS_URL must be a redis:// or rediss:// URL with a host.');
  });

  it('never echo a refused URL, which may carry a password', () => {
    expect(() => loadHttpSettings({ B2_MCP_REDIS_URL: `https://:${CANARY}@cache` })).toThrow(/^(?![\s\S]*redis-url-password-canary)/);
  });

  it('refuse a failure mode other than open or closed', () => {
    expect(() => loadHttpSettings({ B2_MCP_REDIS_URL: 'redis://cache', B2_MCP_REDIS_FAILURE: 'ignore' })).toThrow('B2_MCP_REDIS_FAILURE must be one of open, closed (got "ignore").');
  });
});
