import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { PromptFixture } from '../../../../src/contract/prompt-fixture.js';
import { sha256Hex } from '../../../../src/contract/normalize.js';
import { connectStdio, serverEnv } from '../../../support/server-harness.js';

const fixture = (profile: string): PromptFixture =>
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'fixtures', 'prompt-contract', `${profile}.json`), 'utf8'));

describe('workflow prompts', () => {
  it('are off by default: no prompts capability and no prompts', async () => {
    const client = await connectStdio('modern', serverEnv({ B2_MCP_PROFILE: 'full' }));
    try {
      expect((client.raw as Client).getDiscoverResult()!.capabilities).not.toHaveProperty('prompts');
      expect((await (client.raw as Client).listPrompts()).prompts).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it.each(['full', 'default', 'read-only'])('%s: both eras and the v1 client list the fixture prompts', async (profile) => {
    const expected = fixture(profile);
    const listings: string[] = [];
    for (const kind of ['modern', 'legacy', 'v1'] as const) {
      const client = await connectStdio(kind, serverEnv({ B2_MCP_PROFILE: profile, B2_ENABLE_MCP_PROMPTS: 'true' }));
      try {
        const { prompts } = (await (client.raw as Client).listPrompts()) as {
          prompts: Array<{ name: string; description?: string; arguments?: Array<{ name: string; required?: boolean }> }>;
        };
        expect(prompts.map((p) => p.name).sort()).toEqual(expected.names);
        for (const prompt of prompts) {
          const entry = expected.prompts.find((p) => p.name === prompt.name)!;
          expect(sha256Hex(prompt.description ?? '')).toBe(entry.descriptionSha256);
          const schema = entry.argsSchema as { properties: object; required?: string[] };
          expect((prompt.arguments ?? []).map((a) => a.name).sort()).toEqual(Object.keys(schema.properties).sort());
          expect(
            (prompt.arguments ?? [])
              .filter((a) => a.required)
              .map((a) => a.name)
              .sort(),
          ).toEqual([...(schema.required ?? [])].sort());
        }
        listings.push(JSON.stringify(prompts.map((p) => [p.name, p.description, p.arguments])));
      } finally {
        await client.close();
      }
    }
    expect(new Set(listings).size).toBe(1);
  });

  it('renders a template that calls nothing and is not an approval; a missing required argument is a protocol error', async () => {
    const client = await connectStdio('legacy', serverEnv({ B2_MCP_PROFILE: 'full', B2_ENABLE_MCP_PROMPTS: 'true' }));
    const raw = client.raw as Client;
    try {
      const result = await raw.getPrompt({
        name: 'b2_provision_locked_bucket',
        arguments: { bucketName: 'vault-bucket', retentionMode: 'compliance', retentionDuration: '30', retentionUnit: 'days' },
      });
      const text = (result.messages[0]!.content as { text: string }).text;
      expect(text).toContain('vault-bucket');
      expect(text).toMatch(/not approval/);
      await expect(raw.getPrompt({ name: 'b2_provision_locked_bucket', arguments: { bucketName: 'vault-bucket' } })).rejects.toThrow(
        /retentionMode|Invalid/,
      );
    } finally {
      await client.close();
    }
  });
});
