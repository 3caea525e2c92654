/**
 * The four analytics tools end to end: the built server on stdio, an MCP client, the sandbox.
 * Each tool's structured result must equal what the analytics logic computes for the same key
 * (whose exactness the other analytics tests prove against brute force).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../../src/sandbox/index.js';
import { rankEgressLeaders } from '../../../../src/server/analytics/egress-leaders.js';
import { listLargestFiles } from '../../../../src/server/analytics/largest-files.js';
import { reportUsageGrowth } from '../../../../src/server/analytics/usage-growth.js';
import { AWKWARD_TIMES_OF_DAY, clockAt } from '../../../support/clock.js';
import type { Connected } from '../../../support/server-harness.js';
import { connectToSandbox, createKey, startTestSandbox, textOf, type SandboxKey } from '../../../support/sandbox-harness.js';
import { clientFor, NO_SIGNAL } from '../../../support/analytics.js';

const ANALYTICS_TOOLS = ['b2_list_largest_files', 'b2_rank_egress_leaders', 'b2_report_usage_growth', 'b2_unfinished_uploads'];

describe('analytics tools over MCP', () => {
  let sandbox: RunningSandbox;
  let key: SandboxKey;
  let client: Connected;
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool(name, args);
    expect(result.isError, textOf(result)).toBeFalsy();
    return result.structuredContent as Record<string, unknown>;
  };

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    key = await createKey(sandbox, { capabilities: ['listBuckets', 'listFiles', 'readFiles'] });
    client = await connectToSandbox(sandbox, key);
  });
  afterAll(async () => {
    await client?.close();
    await sandbox.close();
  });

  it('a read-only key sees all four', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name as string);
    expect(ANALYTICS_TOOLS.every((name) => names.includes(name))).toBe(true);
  });

  it('b2_list_largest_files: the default limit of 10, hostile names intact', async () => {
    const structured = await call('b2_list_largest_files', { bucket: 'demo-private-assets' });
    expect(structured).toEqual(
      await listLargestFiles(clientFor(sandbox, key), { bucketName: 'demo-private-assets', limit: 10, maxScan: 50_000, signal: NO_SIGNAL }),
    );
    expect((structured.files as unknown[]).length).toBe(10);
    const hostile = await call('b2_list_largest_files', { bucket: 'demo-private-assets', prefix: 'hostile/', limit: 100, max_scan: 1000 });
    const names = (hostile.files as Array<{ file_name: string }>).map((f) => f.file_name);
    expect(names).toContain('hostile/line\nbreak.txt');
    expect(names).toContain('hostile/ünïcödé-文件-🚀.txt');
    expect(names).toContain('hostile/double "quoted" name.txt');
  });

  it('b2_list_largest_files: an unknown bucket is a clear 404', async () => {
    const result = await client.callTool('b2_list_largest_files', { bucket: 'nope-not-here' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('B2 Error [bucket_not_found] (HTTP 404): No bucket named "nope-not-here" is visible to this key.');
  });

  it('b2_unfinished_uploads: the demo partial upload', async () => {
    const structured = await call('b2_unfinished_uploads', { bucket: 'demo-private-assets' });
    expect(structured).toMatchObject({ bucket: 'demo-private-assets', upload_count: 1, truncated: false, scanned: 1 });
    expect(structured.uploads).toEqual([expect.objectContaining({ file_name: 'backups/partial-upload.bin', age_days: 9 })]);
    // This key has no writeFiles, which B2 requires to list parts: unknown, never a guess.
    expect(structured.wasted_bytes).toBeNull();
    expect(structured.note).toContain('writeFiles');
  });

  it('b2_rank_egress_leaders: by account (default) and by bucket', async () => {
    const api = clientFor(sandbox, key);
    expect(await call('b2_rank_egress_leaders', {})).toEqual(await rankEgressLeaders(api, { by: 'account', limit: 15, signal: NO_SIGNAL }));
    const byBucket = await call('b2_rank_egress_leaders', { by: 'bucket', days: 7, limit: 3 });
    expect(byBucket).toEqual(await rankEgressLeaders(api, { by: 'bucket', days: 7, limit: 3, signal: NO_SIGNAL }));
    expect(byBucket).toMatchObject({ reports_enabled: true, ranked_count: 5, truncated: false });
  });

  it('b2_report_usage_growth: defaults and the shrinking order', async () => {
    const api = clientFor(sandbox, key);
    expect(await call('b2_report_usage_growth', {})).toEqual(
      await reportUsageGrowth(api, { period: 'month', order: 'most_grown', limit: 50, signal: NO_SIGNAL }),
    );
    const shrinking = await call('b2_report_usage_growth', { period: 'quarter', order: 'shrinking' });
    expect((shrinking.buckets as Array<{ bucket_name: string }>).map((b) => b.bucket_name)).toEqual(['bob-archive']);
  });
});

describe.each(AWKWARD_TIMES_OF_DAY)('date-sensitive results at %s UTC (sandbox and server on the same injected clock)', (timeOfDay) => {
  it('the demo partial upload is nine days old; the report windows match the logic on that clock', async () => {
    const clock = clockAt(timeOfDay);
    const sandbox = await startTestSandbox({ clock: clock.now });
    const key = await createKey(sandbox, { capabilities: ['listBuckets', 'listFiles', 'readFiles'] });
    const client = await connectToSandbox(sandbox, key, { clock });
    try {
      const uploads = await client.callTool('b2_unfinished_uploads', { bucket: 'demo-private-assets' });
      expect((uploads.structuredContent as { uploads: unknown[] }).uploads).toEqual([expect.objectContaining({ age_days: 9 })]);
      const api = clientFor(sandbox, key);
      const leaders = await client.callTool('b2_rank_egress_leaders', { by: 'bucket', days: 7 });
      expect(leaders.structuredContent).toEqual(
        await rankEgressLeaders(api, { by: 'bucket', days: 7, limit: 15, now: clock.now, signal: NO_SIGNAL }),
      );
      expect(leaders.structuredContent).toMatchObject({ reports_enabled: true, ranked_count: 5 });
    } finally {
      await client.close();
      await sandbox.close();
    }
  });
});

it('without a reports bucket both report tools answer reports_enabled: false with a note, not an error', async () => {
  const sandbox = await startTestSandbox({ seed: 'none' });
  const client = await connectToSandbox(sandbox, sandbox);
  try {
    for (const name of ['b2_rank_egress_leaders', 'b2_report_usage_growth']) {
      const result = await client.callTool(name, {});
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        reports_enabled: false,
        note: expect.stringContaining(`b2-reports-${sandbox.accountId}`),
      });
    }
  } finally {
    await client.close();
    await sandbox.close();
  }
});
