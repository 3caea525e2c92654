import { expect, test } from 'vitest';
import { PROFILE_NAMES } from '../../src/contract/constants.js';
import { inspectorSnapshot, ourHashes } from '../support/inspector-cli.js';

/** The MCP Inspector's CLI mode as a third client, for every profile (npm test runs one). */
test.each(PROFILE_NAMES)(
  'the Inspector lists profile %s with the same hash as our three clients',
  async (profile) => {
    const [inspector, ours] = await Promise.all([inspectorSnapshot(profile), ourHashes(profile)]);
    expect(Object.keys(ours).sort()).toEqual(['legacy', 'modern', 'witness']);
    for (const [connection, hash] of Object.entries(ours)) expect(hash, connection).toBe(inspector.hash);
  },
  120_000,
);
