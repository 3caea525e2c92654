import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotTools } from '../../../../src/contract/normalize.js';
import { PROFILES } from '../../../../src/server/profiles.js';
import type { RunningSandbox } from '../../../../src/sandbox/index.js';
import { ALL_KEY_CAPABILITIES, connectToSandbox, createKey, startTestSandbox, textOf } from '../../../support/sandbox-harness.js';

describe('server against the sandbox', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startTestSandbox();
  });
  afterAll(() => sandbox.close());

  it.each(['read-only', 'default'] as const)(
    'a key with the %s profile capabilities sees exactly that profile, unpinned',
    async (profile) => {
      const key = await createKey(sandbox, { capabilities: [...PROFILES[profile].capabilities!] });
      const client = await connectToSandbox(sandbox, key);
      try {
        const snapshot = snapshotTools((await client.listTools()).tools as never);
        const fixture = JSON.parse(
          readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'fixtures', 'tool-contract', `${profile}.modern.json`), 'utf8'),
        );
        expect(snapshot.names).toEqual(fixture.names);
        expect(snapshot.hash).toBe(fixture.hash);
      } finally {
        await client.close();
      }
    },
  );

  it('a full key without a Partner credential sees 37 tools', async () => {
    const key = await createKey(sandbox, { capabilities: ALL_KEY_CAPABILITIES });
    const client = await connectToSandbox(sandbox, key, { env: { B2_SECRET_SINK: 'off' } });
    try {
      expect((await client.listTools()).tools).toHaveLength(37);
    } finally {
      await client.close();
    }
  });

  it('refuses to start with a key B2 rejects', async () => {
    await expect(connectToSandbox(sandbox, { applicationKeyId: 'K000nope', applicationKey: 'not-a-real-secret-value' })).rejects.toThrow();
  });

  it('fails a call clearly when a pinned profile has no key', async () => {
    const { connectStdio, serverEnv } = await import('../../../support/server-harness.js');
    const client = await connectStdio('legacy', serverEnv({ B2_MCP_PROFILE: 'default' }));
    try {
      const result = await client.callTool('b2_list_buckets', {});
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^B2 Error \[missing_credentials\] \(HTTP 401\)/);
    } finally {
      await client.close();
    }
  });
});
