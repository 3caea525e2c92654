import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { BUNDLED } from '../../../src/conformance/package-root.js';
import { inspectorSnapshot, ourHashes } from '../../support/inspector-cli.js';

/**
 * The MCP Inspector's CLI mode as a third, independent client: it lists the same tools, with the
 * same hash, as our clients and the committed fixture. One profile here (the Inspector takes
 * seconds to start); `npm run test:browser` runs every profile.
 */
test('the Inspector lists the read-only profile with the same names and hash as our three clients', async () => {
  const [inspector, ours] = await Promise.all([inspectorSnapshot('read-only'), ourHashes('read-only')]);
  const fixture = JSON.parse(readFileSync(join(BUNDLED.fixturesDir, 'read-only.legacy.json'), 'utf8')) as { names: string[]; hash: string };
  expect(inspector.names).toEqual(fixture.names);
  expect(inspector.hash).toBe(fixture.hash);
  expect(Object.keys(ours).sort()).toEqual(['legacy', 'modern', 'witness']);
  for (const [connection, hash] of Object.entries(ours)) expect(hash, connection).toBe(inspector.hash);
}, 120_000);
