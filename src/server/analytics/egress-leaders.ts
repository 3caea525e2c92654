/**
 * `b2_rank_egress_leaders`: accounts or buckets ranked by download egress summed over the last
 * `days` days of usage reports.
 */
import { compareCodePoints } from '../../contract/code-point-order.js';
import { byEach } from './order.js';
import { reportsDisabled, scanCoverage, type ReportsDisabled } from './report-result.js';
import { bytesToGb } from './units.js';
import { scanUsageReports, type ReportScanLimits, type ReportScanStats, type ReportStop, type ReportsApi } from './usage-reports.js';

export type EgressGrouping = 'account' | 'bucket';

export const DEFAULT_EGRESS_DAYS = 30;

export interface EgressLeadersRequest {
  by: EgressGrouping;
  days?: number | undefined;
  limit: number;
  limits?: Partial<ReportScanLimits>;
  budgetMs?: number;
  now?: () => number;
  signal: AbortSignal;
}

export interface EgressLeader {
  rank: number;
  account_id: string;
  bucket_id?: string;
  bucket_name?: string;
  egress_gb: number;
  /** Share of the total egress of every account or bucket in the reports, in percent. */
  share_pct: number;
  /** Report days with a row for this account or bucket. */
  days_reported: number;
}

export interface EgressLeadersResult {
  reports_enabled: true;
  by: EgressGrouping;
  days: number;
  from: string | null;
  to: string | null;
  leaders: EgressLeader[];
  /** Accounts or buckets with report rows (before `limit`). */
  ranked_count: number;
  total_egress_gb: number;
  scan: ReportScanStats;
  truncated: boolean;
  stopped_by?: ReportStop;
  note?: string;
}

interface Tally {
  accountId: string;
  bucketId: string;
  bucketName: string;
  latestDate: string;
  bytes: bigint;
  dates: Set<string>;
}

/** Most egress first; then account id, bucket name, bucket id. */
const rankEgress = byEach<Tally>(
  (a, b) => (a.bytes > b.bytes ? -1 : a.bytes < b.bytes ? 1 : 0),
  (a, b) => compareCodePoints(a.accountId, b.accountId),
  (a, b) => compareCodePoints(a.bucketName, b.bucketName),
  (a, b) => compareCodePoints(a.bucketId, b.bucketId),
);

export async function rankEgressLeaders(api: ReportsApi, request: EgressLeadersRequest): Promise<EgressLeadersResult | ReportsDisabled> {
  const days = request.days ?? DEFAULT_EGRESS_DAYS;
  const tallies = new Map<string, Tally>();
  const scan = await scanUsageReports(
    api,
    { days, measure: 'downloaded_gb', limits: request.limits, budgetMs: request.budgetMs, now: request.now, signal: request.signal },
    (row) => {
      const identity = request.by === 'account' ? row.accountId : `${row.accountId}\u0000${row.bucketId}`;
      const tally = tallies.get(identity);
      if (!tally) {
        tallies.set(identity, {
          accountId: row.accountId,
          bucketId: row.bucketId,
          bucketName: row.bucketName,
          latestDate: row.date,
          bytes: row.bytes,
          dates: new Set([row.date]),
        });
        return;
      }
      tally.bytes += row.bytes;
      tally.dates.add(row.date);
      // A renamed bucket is shown by its latest name.
      if (row.date > tally.latestDate) Object.assign(tally, { latestDate: row.date, bucketName: row.bucketName });
    },
  );
  if (!scan.enabled) return reportsDisabled(scan);

  const ranked = [...tallies.values()].sort(rankEgress);
  const total = ranked.reduce((sum, t) => sum + t.bytes, 0n);
  return {
    reports_enabled: true,
    by: request.by,
    days,
    from: scan.firstDate,
    to: scan.lastDate,
    leaders: ranked.slice(0, request.limit).map((tally, index) => ({
      rank: index + 1,
      account_id: tally.accountId,
      ...(request.by === 'bucket' && { bucket_id: tally.bucketId, bucket_name: tally.bucketName }),
      egress_gb: bytesToGb(tally.bytes),
      share_pct: sharePercent(tally.bytes, total),
      days_reported: tally.dates.size,
    })),
    ranked_count: ranked.length,
    total_egress_gb: bytesToGb(total),
    scan: scan.stats,
    ...scanCoverage(scan),
  };
}

/** `part` as a percentage of `whole` with two decimals, rounded half up, exact in integers. */
function sharePercent(part: bigint, whole: bigint): number {
  if (whole === 0n) return 0;
  return Number((part * 20_000n + whole) / (2n * whole)) / 100;
}
