import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROFILE_NAMES } from '../../../src/contract/constants.js';
import type { ToolFixture } from '../../../src/contract/fixture.js';
import { snapshotTools } from '../../../src/contract/normalize.js';
import { connectHttp, connectStdio, serverEnv, startHttpServer, type ClientKind, type HttpServer } from '../../support/server-harness.js';

const KINDS: ClientKind[] = ['modern', 'legacy', 'v1'];
const fixture = (profile: string, era: string): ToolFixture =>
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', 'fixtures', 'tool-contract', `${profile}.${era}.json`), 'utf8'));

describe.each(PROFILE_NAMES)('profile %s: every client sees the contract', (profile) => {
  let http: HttpServer;
  beforeAll(async () => {
    http = await startHttpServer(serverEnv({ B2_MCP_PROFILE: profile }));
  });
  afterAll(() => http.stop());

  it('lists byte-identical tools to modern, legacy and v1 clients over stdio and HTTP, matching the fixture hash', async () => {
    const expected = fixture(profile, 'modern');
    expect(fixture(profile, 'legacy').hash).toBe(expected.hash);
    const seen: Record<string, string> = {};
    for (const kind of KINDS) {
      for (const transport of ['stdio', 'http'] as const) {
        const client =
          transport === 'stdio' ? await connectStdio(kind, serverEnv({ B2_MCP_PROFILE: profile })) : await connectHttp(kind, http.url);
        try {
          const { tools } = await client.listTools();
          const snapshot = snapshotTools(tools as never);
          expect(snapshot.names, `${kind}/${transport}`).toEqual(expected.names);
          expect(snapshot.hash, `${kind}/${transport}`).toBe(expected.hash);
          seen[`${kind}/${transport}`] = JSON.stringify(tools);
        } finally {
          await client.close();
        }
      }
    }
    // The legacy 2.x client and the 1.x witness must parse byte-identical tools; the modern
    // client's schema parser orders keys differently, so it must be deep-equal to them.
    for (const transport of ['stdio', 'http']) {
      expect(seen[`v1/${transport}`]).toBe(seen[`legacy/${transport}`]);
      expect(JSON.parse(seen[`modern/${transport}`]!)).toEqual(JSON.parse(seen[`legacy/${transport}`]!));
    }
    expect(seen['legacy/http']).toBe(seen['legacy/stdio']);
    expect(expected.counts.total).toBe({ full: 40, default: 37, 'read-only': 20 }[profile]);
  });
});

describe('modern era metadata', () => {
  it('advertises only tools (no list-change claim) and the approved cache hint', async () => {
    const client = await connectStdio('modern', serverEnv({ B2_MCP_PROFILE: 'default' }));
    try {
      const raw = client.raw as import('@modelcontextprotocol/client').Client;
      const discover = raw.getDiscoverResult()!;
      expect(discover.supportedVersions).toContain('2026-07-28');
      expect(discover.capabilities).toEqual({ tools: { listChanged: false } });
      const listed = (await raw.listTools(undefined, { cacheMode: 'bypass' })) as { ttlMs?: number; cacheScope?: string };
      expect([listed.ttlMs, listed.cacheScope]).toEqual([30000, 'private']);
      expect(raw.getServerVersion()?.name).toBe('backblaze-b2');
    } finally {
      await client.close();
    }
  });
});
