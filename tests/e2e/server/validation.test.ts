import { describe, expect, it } from 'vitest';
import { connectStdio, serverEnv } from '../../support/server-harness.js';

const textOf = (result: Record<string, unknown>): string => (result.content as Array<{ text: string }>)[0]?.text ?? '';

describe('argument validation', () => {
  it('rejects arguments outside the advertised schema before any handler or gate runs', async () => {
    const client = await connectStdio('modern', serverEnv({ B2_MCP_PROFILE: 'full' }));
    try {
      const cases: Array<[string, Record<string, unknown>, RegExp]> = [
        ['b2_list_buckets', { limit: 5000 }, /limit/],
        ['b2_list_buckets', { limit: 'ten' }, /limit/],
        ['b2_delete_bucket', {}, /bucketId/],
        ['s3_list_objects_v2', { bucket: 'b', surprise: true }, /additional properties/],
        ['b2_get_bucket_notification_rules', { bucketId: 'b', confirm: true }, /additional properties/],
        ['b2_eject_group_member', { adminAccountId: 'a', groupId: 'g', memberAccountId: 'm', email: 'not-an-email' }, /email/],
      ];
      for (const [name, args, message] of cases) {
        const result = await client.callTool(name, args);
        expect(result.isError, name).toBe(true);
        expect(textOf(result), name).toMatch(/Input validation error/);
        expect(textOf(result), name).toMatch(message);
      }
    } finally {
      await client.close();
    }
  });
});
