/**
 * `b2_report_usage_growth`: how much each bucket's stored data changed over a period, from the
 * daily usage reports: growth = stored GB on the last reported day − stored GB on the first.
 */
import { compareCodePoints } from '../../contract/code-point-order.js';
import { byEach } from './order.js';
import { reportsDisabled, scanCoverage, type ReportsDisabled } from './report-result.js';
import { bytesToGb } from './units.js';
import { scanUsageReports, type ReportScanLimits, type ReportScanStats, type ReportStop, type ReportsApi } from './usage-reports.js';

export type GrowthPeriod = 'month' | 'quarter' | 'year';
export type GrowthOrder = 'most_grown' | 'least_grown' | 'shrinking';

export const PERIOD_DAYS: Record<GrowthPeriod, number> = { month: 30, quarter: 90, year: 365 };

export interface UsageGrowthRequest {
  period: GrowthPeriod;
  /** Overrides the period's length. */
  days?: number | undefined;
  order: GrowthOrder;
  limit: number;
  limits?: Partial<ReportScanLimits>;
  budgetMs?: number;
  now?: () => number;
  signal: AbortSignal;
}

export interface BucketGrowth {
  bucket_name: string;
  bucket_id: string;
  account_id: string;
  first_date: string;
  last_date: string;
  start_gb: number;
  end_gb: number;
  growth_gb: number;
  /** null when the bucket stored nothing on its first day. */
  growth_pct: number | null;
}

export interface UsageGrowthResult {
  reports_enabled: true;
  period: GrowthPeriod;
  days: number;
  order: GrowthOrder;
  from: string | null;
  to: string | null;
  buckets: BucketGrowth[];
  /** Buckets that qualified for the order (all, or the shrinking ones) before `limit`. */
  bucket_count: number;
  total: { start_gb: number; end_gb: number; growth_gb: number };
  scan: ReportScanStats;
  truncated: boolean;
  stopped_by?: ReportStop;
  note?: string;
}

interface Track {
  bucketName: string;
  bucketId: string;
  accountId: string;
  firstDate: string;
  firstBytes: bigint;
  lastDate: string;
  lastBytes: bigint;
}

const growthOf = (t: Track) => t.lastBytes - t.firstBytes;
const compareBig = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
const byIdentity = byEach<Track>(
  (a, b) => compareCodePoints(a.bucketName, b.bucketName),
  (a, b) => compareCodePoints(a.accountId, b.accountId),
  (a, b) => compareCodePoints(a.bucketId, b.bucketId),
);
const mostGrownFirst = byEach<Track>((a, b) => compareBig(growthOf(b), growthOf(a)), byIdentity);
const leastGrownFirst = byEach<Track>((a, b) => compareBig(growthOf(a), growthOf(b)), byIdentity);
/** `shrinking` keeps only buckets that lost data, the biggest loss first. */
const ORDERS: Record<GrowthOrder, (a: Track, b: Track) => number> = {
  most_grown: mostGrownFirst,
  least_grown: leastGrownFirst,
  shrinking: leastGrownFirst,
};

export async function reportUsageGrowth(api: ReportsApi, request: UsageGrowthRequest): Promise<UsageGrowthResult | ReportsDisabled> {
  const days = request.days ?? PERIOD_DAYS[request.period];
  const tracks = new Map<string, Track>();
  const scan = await scanUsageReports(
    api,
    { days, measure: 'stored_gb', limits: request.limits, budgetMs: request.budgetMs, now: request.now, signal: request.signal },
    (row) => {
      const identity = `${row.accountId}\u0000${row.bucketId}`;
      const track = tracks.get(identity);
      if (!track) {
        tracks.set(identity, {
          bucketName: row.bucketName,
          bucketId: row.bucketId,
          accountId: row.accountId,
          firstDate: row.date,
          firstBytes: row.bytes,
          lastDate: row.date,
          lastBytes: row.bytes,
        });
        return;
      }
      if (row.date < track.firstDate) Object.assign(track, { firstDate: row.date, firstBytes: row.bytes });
      if (row.date > track.lastDate) Object.assign(track, { lastDate: row.date, lastBytes: row.bytes, bucketName: row.bucketName });
    },
  );
  if (!scan.enabled) return reportsDisabled(scan);

  const all = [...tracks.values()];
  const qualifying = request.order === 'shrinking' ? all.filter((t) => growthOf(t) < 0n) : all;
  qualifying.sort(ORDERS[request.order]);
  const sum = (pick: (t: Track) => bigint) => all.reduce((total, t) => total + pick(t), 0n);
  const startTotal = sum((t) => t.firstBytes);
  const endTotal = sum((t) => t.lastBytes);
  return {
    reports_enabled: true,
    period: request.period,
    days,
    order: request.order,
    from: scan.firstDate,
    to: scan.lastDate,
    buckets: qualifying.slice(0, request.limit).map(toBucketGrowth),
    bucket_count: qualifying.length,
    total: { start_gb: bytesToGb(startTotal), end_gb: bytesToGb(endTotal), growth_gb: bytesToGb(endTotal - startTotal) },
    scan: scan.stats,
    ...scanCoverage(scan),
  };
}

function toBucketGrowth(track: Track): BucketGrowth {
  const growth = growthOf(track);
  return {
    bucket_name: track.bucketName,
    bucket_id: track.bucketId,
    account_id: track.accountId,
    first_date: track.firstDate,
    last_date: track.lastDate,
    start_gb: bytesToGb(track.firstBytes),
    end_gb: bytesToGb(track.lastBytes),
    growth_gb: bytesToGb(growth),
    growth_pct: track.firstBytes === 0n ? null : Math.round((Number(growth) / Number(track.firstBytes)) * 10_000) / 100,
  };
}
