/**
 * b2_rank_egress_leaders and b2_report_usage_growth logic against the in-process sandbox's usage
 * reports over real HTTP: exact figures against brute force, every scan limit (truncated, with
 * how far the scan got), hostile CSV, the audit mirror never double-counted, reports absent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/index.js';
import { rankEgressLeaders, type EgressLeadersResult } from '../../../src/server/analytics/egress-leaders.js';
import { reportUsageGrowth, type UsageGrowthResult } from '../../../src/server/analytics/usage-growth.js';
import { adminCall, createKey, startTestSandbox } from '../../support/sandbox-harness.js';
import { allVersions, bruteForceReportRows, clientFor, NO_SIGNAL, toGb, type ReportRow } from '../../support/analytics.js';

const NOW = Date.UTC(2026, 0, 15, 12);
const now = () => NOW;
/** The demo seed writes reports for the 35 days before NOW's day: 2025-12-11 … 2026-01-14. */
const FIRST_REPORT = '2025-12-11';
const LAST_REPORT = '2026-01-14';

const round6 = (gb: number) => Math.round(gb * 1e6) / 1e6;

function expectedEgress(rows: ReportRow[], by: 'account' | 'bucket') {
  const sums = new Map<string, { account_id: string; bucket_id: string; bucket_name: string; bytes: bigint; days: Set<string> }>();
  for (const r of rows) {
    const id = by === 'account' ? r.account : `${r.account}/${r.bucketId}`;
    const entry = sums.get(id) ?? { account_id: r.account, bucket_id: r.bucketId, bucket_name: r.bucketName, bytes: 0n, days: new Set() };
    entry.bytes += r.downloaded;
    entry.days.add(r.date);
    sums.set(id, entry);
  }
  return [...sums.values()]
    .sort((a, b) =>
      a.bytes === b.bytes
        ? a.account_id.localeCompare(b.account_id) || a.bucket_name.localeCompare(b.bucket_name)
        : a.bytes > b.bytes
          ? -1
          : 1,
    )
    .map((e, i) => ({
      rank: i + 1,
      account_id: e.account_id,
      ...(by === 'bucket' && { bucket_id: e.bucket_id, bucket_name: e.bucket_name }),
      egress_gb: round6(toGb(e.bytes)),
      days_reported: e.days.size,
    }));
}

function expectedGrowth(rows: ReportRow[]) {
  const byBucket = new Map<string, ReportRow[]>();
  for (const r of rows) byBucket.set(`${r.account}/${r.bucketId}`, [...(byBucket.get(`${r.account}/${r.bucketId}`) ?? []), r]);
  return [...byBucket.values()].map((list) => {
    const sorted = [...list].sort((a, b) => a.date.localeCompare(b.date));
    const first = sorted[0]!;
    const last = sorted.at(-1)!;
    return {
      bucket_name: last.bucketName,
      bucket_id: last.bucketId,
      account_id: last.account,
      first_date: first.date,
      last_date: last.date,
      start_gb: round6(toGb(first.stored)),
      end_gb: round6(toGb(last.stored)),
      growth_gb: round6(toGb(last.stored - first.stored)),
      growth: last.stored - first.stored,
    };
  });
}

const leadersWithoutShare = (result: EgressLeadersResult) => result.leaders.map(({ share_pct: _share, ...rest }) => rest);
const growthRows = (result: UsageGrowthResult) => result.buckets.map(({ growth_pct: _pct, ...rest }) => rest);

describe('usage reports on the demo seed', () => {
  let sandbox: RunningSandbox;
  let accountId: string;
  let allRows: ReportRow[];
  const rowsFrom = (date: string, through = LAST_REPORT) => allRows.filter((r) => r.date >= date && r.date <= through);

  beforeAll(async () => {
    sandbox = await startTestSandbox({ clock: now });
    accountId = sandbox.accountId;
    allRows = await bruteForceReportRows(clientFor(sandbox), accountId, '0000');
  });
  afterAll(() => sandbox.close());

  it('seeds what the brute force expects: 35 days, 5 buckets a day, plus an audit mirror', async () => {
    expect(allRows).toHaveLength(35 * 5);
    expect(allRows[0]!.date).toBe(FIRST_REPORT);
    expect(allRows.at(-1)!.date).toBe(LAST_REPORT);
    const names = (await allVersions(clientFor(sandbox), `b2-reports-${accountId}`)).map((f) => f.fileName);
    expect(names.filter((n) => n.includes('usage.audit-account-'))).toHaveLength(35);
  });

  for (const by of ['account', 'bucket'] as const) {
    for (const [days, from] of [
      [7, '2026-01-08'],
      [30, '2025-12-16'],
      [90, FIRST_REPORT],
    ] as const) {
      it(`ranks egress by ${by} over ${days} days exactly (the audit mirror is not counted)`, async () => {
        const result = (await rankEgressLeaders(clientFor(sandbox), {
          by,
          days,
          limit: 100,
          now,
          signal: NO_SIGNAL,
        })) as EgressLeadersResult;
        const rows = rowsFrom(from);
        expect(leadersWithoutShare(result)).toEqual(expectedEgress(rows, by));
        const total = rows.reduce((n, r) => n + r.downloaded, 0n);
        expect(result.total_egress_gb).toBe(round6(toGb(total)));
        expect(result.leaders.reduce((n, l) => n + l.share_pct, 0)).toBeCloseTo(100, 1);
        expect(result).toMatchObject({ reports_enabled: true, by, days, from, to: LAST_REPORT, truncated: false });
        expect(result.scan).toMatchObject({
          files_read: new Set(rows.map((r) => r.date)).size,
          rows: rows.length,
          duplicate_rows: 0,
          invalid_rows: 0,
          skipped_files: 0,
        });
      });
    }
  }

  it('applies limit after ranking, and defaults to 30 days', async () => {
    const result = (await rankEgressLeaders(clientFor(sandbox), { by: 'bucket', limit: 2, now, signal: NO_SIGNAL })) as EgressLeadersResult;
    expect(result.days).toBe(30);
    expect(result.ranked_count).toBe(5);
    expect(leadersWithoutShare(result)).toEqual(expectedEgress(rowsFrom('2025-12-16'), 'bucket').slice(0, 2));
  });

  for (const [period, days, from] of [
    ['month', undefined, '2025-12-16'],
    ['quarter', undefined, FIRST_REPORT],
    ['month', 10, '2026-01-05'],
  ] as const) {
    it(`reports growth per bucket for ${period}${days ? ` (days ${days})` : ''} in every order`, async () => {
      const expected = expectedGrowth(rowsFrom(from));
      const strip = (list: typeof expected) => list.map(({ growth: _g, ...rest }) => rest);
      const tie = (a: (typeof expected)[number], b: (typeof expected)[number]) => a.bucket_name.localeCompare(b.bucket_name);
      const orders = {
        most_grown: strip([...expected].sort((a, b) => (a.growth === b.growth ? tie(a, b) : a.growth > b.growth ? -1 : 1))),
        least_grown: strip([...expected].sort((a, b) => (a.growth === b.growth ? tie(a, b) : a.growth < b.growth ? -1 : 1))),
        shrinking: strip(expected.filter((e) => e.growth < 0n).sort((a, b) => (a.growth < b.growth ? -1 : 1))),
      };
      for (const order of ['most_grown', 'least_grown', 'shrinking'] as const) {
        const result = (await reportUsageGrowth(clientFor(sandbox), {
          period,
          days,
          order,
          limit: 50,
          now,
          signal: NO_SIGNAL,
        })) as UsageGrowthResult;
        expect(growthRows(result), order).toEqual(orders[order]);
        expect(result).toMatchObject({
          reports_enabled: true,
          period,
          from,
          to: LAST_REPORT,
          truncated: false,
          bucket_count: orders[order].length,
        });
      }
      const shrinking = (await reportUsageGrowth(clientFor(sandbox), {
        period,
        days,
        order: 'shrinking',
        limit: 50,
        now,
        signal: NO_SIGNAL,
      })) as UsageGrowthResult;
      expect(shrinking.buckets.map((b) => b.bucket_name)).toEqual(['bob-archive']);
      expect(shrinking.buckets[0]!.growth_pct).toBeLessThan(0);
    });
  }

  it('totals start, end and growth over all buckets exactly', async () => {
    const result = (await reportUsageGrowth(clientFor(sandbox), {
      period: 'month',
      order: 'most_grown',
      limit: 1,
      now,
      signal: NO_SIGNAL,
    })) as UsageGrowthResult;
    const expected = expectedGrowth(rowsFrom('2025-12-16'));
    const sum = (pick: (e: (typeof expected)[number]) => number) => round6(expected.reduce((n, e) => n + pick(e), 0));
    expect(result.total).toEqual({ start_gb: sum((e) => e.start_gb), end_gb: sum((e) => e.end_gb), growth_gb: sum((e) => e.growth_gb) });
    expect(result.buckets).toHaveLength(1);
    expect(result.bucket_count).toBe(5);
  });

  it('gives identical results on repeated calls', async () => {
    const run = () => rankEgressLeaders(clientFor(sandbox), { by: 'bucket', days: 30, limit: 10, now, signal: NO_SIGNAL });
    expect(await run()).toEqual(await run());
  });

  describe('scan limits stop the scan, report how far it got, and count only whole files', () => {
    const egress = (limits: Record<string, number>, budgetMs?: number) =>
      rankEgressLeaders(clientFor(sandbox), {
        by: 'bucket',
        days: 30,
        limit: 100,
        now,
        limits,
        budgetMs,
        signal: NO_SIGNAL,
      }) as Promise<EgressLeadersResult>;
    // The 30 report days of the window, oldest first (a fast machine reads more than a week of them).
    const days30 = Array.from({ length: 30 }, (_, i) =>
      new Date(Date.parse('2025-12-16T00:00:00Z') + i * 86_400_000).toISOString().slice(0, 10),
    );

    function expectFirstDays(result: EgressLeadersResult, count: number) {
      expect(result.scan.files_read).toBe(count);
      expect(result.from).toBe(days30[0]);
      expect(result.to).toBe(days30[count - 1]);
      expect(leadersWithoutShare(result)).toEqual(expectedEgress(rowsFrom(days30[0]!, days30[count - 1]), 'bucket'));
      expect(result.note).toContain(`after reading ${count} of`);
    }

    it('selected files', async () => {
      const result = await egress({ maxSelectedFiles: 5 });
      expect(result).toMatchObject({ truncated: true, stopped_by: 'max_selected_files' });
      expect(result.scan).toMatchObject({ selected_files: 5, candidate_files: 16, pages: 1 });
      expectFirstDays(result, 5);
    });

    it('candidate files', async () => {
      const result = await egress({ maxCandidateFiles: 7 });
      expect(result).toMatchObject({ truncated: true, stopped_by: 'max_candidate_files' });
      expect(result.scan).toMatchObject({ candidate_files: 7, selected_files: 3 });
      expectFirstDays(result, 3);
    });

    it('listing pages (1,000 names a page by default; 10 here)', async () => {
      const result = await egress({ maxPages: 2, pageSize: 10 });
      expect(result).toMatchObject({ truncated: true, stopped_by: 'max_pages' });
      expect(result.scan).toMatchObject({ pages: 2, candidate_files: 20, selected_files: 7 });
      expectFirstDays(result, 7);
    });

    it('rows: a file that would pass the bound is left out whole', async () => {
      const result = await egress({ maxRows: 12 });
      expect(result).toMatchObject({ truncated: true, stopped_by: 'max_rows' });
      expect(result.scan.rows).toBe(10);
      expectFirstDays(result, 2);
    });

    it('downloaded bytes: checked against the listed size before downloading', async () => {
      const files = (await allVersions(clientFor(sandbox), `b2-reports-${accountId}`)).filter(
        (f) => f.fileName >= days30[0]! && f.fileName.endsWith(`/usage.account-${accountId}.csv`),
      );
      const three = files.slice(0, 3).reduce((n, f) => n + f.contentLength, 0);
      const result = await egress({ maxDownloadBytes: three + files[3]!.contentLength - 1 });
      expect(result).toMatchObject({ truncated: true, stopped_by: 'max_download_bytes' });
      expect(result.scan.bytes_downloaded).toBe(three);
      expectFirstDays(result, 3);
    });

    it('time budget', async () => {
      await clientFor(sandbox).authorize();
      await adminCall(sandbox, 'PUT', '/faults', { spec: 'latency:60ms' });
      try {
        const started = performance.now();
        const result = await egress({}, 700);
        // Reading all 30 days at 60 ms a request takes over 3.6 s; the bound is loose so that a
        // loaded machine's late timers cannot fail it, and still far below the unbudgeted scan.
        expect(performance.now() - started).toBeLessThan(700 + 2_000);
        expect(result).toMatchObject({ truncated: true, stopped_by: 'time_budget' });
        expect(result.scan.files_read).toBeGreaterThan(0);
        expect(result.scan.files_read).toBeLessThan(30);
        expectFirstDays(result, result.scan.files_read);
      } finally {
        await adminCall(sandbox, 'DELETE', '/faults');
      }
    });
  });

  it('reports reports_enabled: false with a note for a key restricted to another bucket', async () => {
    const key = await createKey(sandbox, { capabilities: ['listBuckets', 'listFiles', 'readFiles'], bucketNames: ['demo-public-site'] });
    const result = await rankEgressLeaders(clientFor(sandbox, key), { by: 'account', limit: 5, now, signal: NO_SIGNAL });
    expect(result).toEqual({
      reports_enabled: false,
      reports_bucket: `b2-reports-${accountId}`,
      note: expect.stringContaining('restricted to other buckets'),
    });
  });
});

describe('usage reports absent', () => {
  it('returns reports_enabled: false and a note, not an error, from both tools', async () => {
    const sandbox = await startTestSandbox({ seed: 'none' });
    try {
      const api = clientFor(sandbox);
      for (const result of [
        await rankEgressLeaders(api, { by: 'account', limit: 5, signal: NO_SIGNAL }),
        await reportUsageGrowth(api, { period: 'month', order: 'most_grown', limit: 5, signal: NO_SIGNAL }),
      ]) {
        expect(result).toEqual({
          reports_enabled: false,
          reports_bucket: `b2-reports-${sandbox.accountId}`,
          note: `No usage reports available: bucket b2-reports-${sandbox.accountId} does not exist; B2 writes daily usage reports there once usage reports are enabled for the account.`,
        });
      }
    } finally {
      await sandbox.close();
    }
  });
});

describe('hostile report files', () => {
  let sandbox: RunningSandbox;
  const DAY = '2026-01-10';
  const put = (name: string, text: string) =>
    adminCall(sandbox, 'POST', '/files', { bucketName: `b2-reports-${sandbox.accountId}`, fileName: `${DAY}/${name}`, text });

  beforeAll(async () => {
    sandbox = await startTestSandbox({ clock: now });
    const dataName = `usage.account-${sandbox.accountId}.csv`;
    const original = await clientFor(sandbox).downloadFileByName({
      bucketName: `b2-reports-${sandbox.accountId}`,
      fileName: `${DAY}/${dataName}`,
    });
    // A second copy of the day's rows under another name: every row is a duplicate.
    await put('usage.account-copy01.csv', await new Response(original.body).text());
    // BOM, CRLF, columns in another order, quoted fields with commas, quotes and a newline, ties.
    await put(
      'usage.account-hostile01.csv',
      '\uFEFFdownloaded_gb,bucket_name,date,account_id,bucket_id,stored_gb\r\n' +
        `"5000.5","comma, bucket",${DAY},acct-tie-b,bk-1,1\r\n` +
        `7000,"quote ""inside""",${DAY},acct-tie-a,bk-2,1\r\n` +
        `7000,"line\nbreak",${DAY},acct-tie-b,bk-3,1\r\n` +
        `not-a-number,bad,${DAY},acct-tie-b,bk-4,1\r\n` +
        `-3,negative,${DAY},acct-tie-b,bk-5,1\r\n` +
        `1,no-date,,acct-tie-b,bk-6,1\r\n` +
        `1999.5,short-row,${DAY},acct-tie-a,bk-7\r\n`,
    );
    await put('usage.account-badheader.csv', 'day,acct,bucket,gb\n2026-01-10,x,y,1\n');
    await put('usage.account-brokenquote.csv', `date,account_id,bucket_id,bucket_name,downloaded_gb\n${DAY},x,"unterminated,1\n`);
  });
  afterAll(() => sandbox.close());

  it('parses quoted fields, BOM and CRLF, ignores duplicates, counts invalid rows and unusable files', async () => {
    const result = (await rankEgressLeaders(clientFor(sandbox), {
      by: 'bucket',
      days: 5,
      limit: 100,
      now,
      signal: NO_SIGNAL,
    })) as EgressLeadersResult;
    const hostile = result.leaders.filter((l) => l.account_id.startsWith('acct-tie-'));
    expect(hostile.map((l) => [l.account_id, l.bucket_name, l.egress_gb])).toEqual([
      ['acct-tie-a', 'quote "inside"', 7000],
      ['acct-tie-b', 'line\nbreak', 7000],
      ['acct-tie-b', 'comma, bucket', 5000.5],
      // The short row lacks stored_gb only; egress needs downloaded_gb, which it has.
      ['acct-tie-a', 'short-row', 1999.5],
    ]);
    expect(result.scan).toMatchObject({ duplicate_rows: 5, invalid_rows: 3, skipped_files: 2, files_read: 7 });

    const byAccount = (await rankEgressLeaders(clientFor(sandbox), {
      by: 'account',
      days: 5,
      limit: 100,
      now,
      signal: NO_SIGNAL,
    })) as EgressLeadersResult;
    const tied = byAccount.leaders.filter((l) => l.account_id.startsWith('acct-tie-'));
    expect(tied.map((l) => [l.account_id, l.egress_gb, l.days_reported])).toEqual([
      ['acct-tie-b', 12000.5, 1],
      ['acct-tie-a', 8999.5, 1],
    ]);
  });

  it('breaks egress ties by account id, then bucket name', async () => {
    const result = (await rankEgressLeaders(clientFor(sandbox), {
      by: 'bucket',
      days: 5,
      limit: 100,
      now,
      signal: NO_SIGNAL,
    })) as EgressLeadersResult;
    const at7000 = result.leaders.filter((l) => l.egress_gb === 7000);
    expect(at7000.map((l) => l.account_id)).toEqual(['acct-tie-a', 'acct-tie-b']);
    const ranks = result.leaders.map((l) => l.rank);
    expect(ranks).toEqual(ranks.map((_, i) => i + 1));
  });
});
