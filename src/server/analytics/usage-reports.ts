/**
 * Reads the daily usage-report CSVs B2 writes to bucket `b2-reports-<accountId>` for the two
 * report tools. One scan lists the report files of a date window, picks the usage data files,
 * and streams them serially through `csv-parse`, handing each usable row to the caller.
 *
 * Layout (one folder per UTC day):
 *   <date>/usage.account-<accountId>.csv                    the data: one row per bucket
 *   <date>/usage.audit-account-<accountId>.csv              an audit mirror of the same rows
 *   <date>/usage.account-<accountId>.reportingLocations.csv an index of that day's files
 * Only the data files are read, and a (date, account, bucket) row is counted once even when it
 * appears in more than one file.
 *
 * Bounds (docs/contract.md §2.7): listing pages, candidate files, selected files, downloaded
 * bytes, parsed rows, the time budget. Each file is counted whole or not at all: a file a bound
 * would cut is left out, so totals never mix complete and partial days.
 */
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { CsvError, parse } from 'csv-parse';
import type { CallOptions } from '../b2/native-client.js';
import type {
  B2AccountInfo,
  B2Download,
  B2DownloadRequest,
  B2FileVersion,
  B2ListFileNamesRequest,
  B2ListFileNamesResponse,
} from '../b2/types.js';
import { findBucketByName, type BucketLookupApi } from './buckets.js';
import { ANALYTICS_TIME_BUDGET_MS, withDeadline, type ScanDeadline } from './deadline.js';
import { parseGbToBytes } from './units.js';

const DAY_MS = 86_400_000;

export interface ReportScanLimits {
  maxPages: number;
  maxCandidateFiles: number;
  maxSelectedFiles: number;
  maxDownloadBytes: number;
  maxRows: number;
  /** File names per listing call. */
  pageSize: number;
}

const REPORT_SCAN_LIMITS: Readonly<ReportScanLimits> = {
  maxPages: 100,
  maxCandidateFiles: 5_000,
  maxSelectedFiles: 1_000,
  maxDownloadBytes: 25 * 1024 * 1024,
  maxRows: 100_000,
  pageSize: 1_000,
};

export type ReportStop = 'max_pages' | 'max_candidate_files' | 'max_selected_files' | 'max_download_bytes' | 'max_rows' | 'time_budget';

export interface ReportsApi extends BucketLookupApi {
  authorize(options?: CallOptions): Promise<B2AccountInfo>;
  listFileNames(request: B2ListFileNamesRequest, options?: CallOptions): Promise<B2ListFileNamesResponse>;
  downloadFileByName(request: B2DownloadRequest, options?: CallOptions): Promise<B2Download>;
}

/** The usage columns a tool reads as a byte quantity. */
export type UsageMeasure = 'stored_gb' | 'downloaded_gb';

export interface UsageRow {
  date: string;
  accountId: string;
  bucketId: string;
  bucketName: string;
  /** The measure, in bytes (GB × 1e9, exact). */
  bytes: bigint;
}

export interface ReportScanRequest {
  /** Read reports dated on or after the UTC day `days` days before today. */
  days: number;
  measure: UsageMeasure;
  limits?: Partial<ReportScanLimits> | undefined;
  budgetMs?: number | undefined;
  now?: (() => number) | undefined;
  signal: AbortSignal;
}

export interface ReportScanStats {
  pages: number;
  candidate_files: number;
  selected_files: number;
  files_read: number;
  bytes_downloaded: number;
  rows: number;
  duplicate_rows: number;
  invalid_rows: number;
  /** Selected files that were not usable CSV with the needed columns. */
  skipped_files: number;
}

export type ReportScan =
  | { enabled: false; bucketName: string; reason: 'absent' | 'key_restricted' }
  | {
      enabled: true;
      bucketName: string;
      windowStart: string;
      /** First and last dates among the rows used; null when none. */
      firstDate: string | null;
      lastDate: string | null;
      stats: ReportScanStats;
      stoppedBy?: ReportStop;
    };

const REQUIRED_COLUMNS = ['date', 'account_id', 'bucket_id', 'bucket_name'] as const;
const DATA_FILE = /^(\d{4}-\d{2}-\d{2})\/usage\.account-[^/.]+\.csv$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

class LimitReached extends Error {
  constructor(readonly stop: ReportStop) {
    super(stop);
  }
}

/** A selected file that is not a usage CSV with the needed columns. */
class UnusableReport extends Error {}

function reportsBucketName(accountId: string): string {
  return `b2-reports-${accountId}`;
}

/** The UTC date (`YYYY-MM-DD`) `days` days before the day of `now`. */
export function windowStartDate(now: number, days: number): string {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  return new Date(today - days * DAY_MS).toISOString().slice(0, 10);
}

/**
 * Scans the usage reports of the window, calling `onRow` once per distinct (date, account,
 * bucket) row of the complete files read, in file order.
 */
export async function scanUsageReports(api: ReportsApi, request: ReportScanRequest, onRow: (row: UsageRow) => void): Promise<ReportScan> {
  const limits = { ...REPORT_SCAN_LIMITS, ...request.limits };
  const windowStart = windowStartDate((request.now ?? Date.now)(), request.days);
  const stats: ReportScanStats = {
    pages: 0,
    candidate_files: 0,
    selected_files: 0,
    files_read: 0,
    bytes_downloaded: 0,
    rows: 0,
    duplicate_rows: 0,
    invalid_rows: 0,
    skipped_files: 0,
  };
  const seen = new Set<string>();
  let firstDate: string | null = null;
  let lastDate: string | null = null;

  return withDeadline(request.signal, request.budgetMs ?? ANALYTICS_TIME_BUDGET_MS, async (deadline): Promise<ReportScan> => {
    const options = { signal: deadline.signal };
    const account = await api.authorize(options);
    const bucketName = reportsBucketName(account.accountId);
    const allowed = account.allowed.buckets;
    if (allowed !== null && !allowed.some((b) => b.name === bucketName)) return { enabled: false, bucketName, reason: 'key_restricted' };
    const bucket = await findBucketByName(api, bucketName, options);
    if (!bucket) return { enabled: false, bucketName, reason: 'absent' };

    let stoppedBy: ReportStop | undefined;
    try {
      const listed = await listDataFiles(api, bucket.bucketId, windowStart, limits, stats, options);
      stoppedBy = listed.stoppedBy;
      for (const file of listed.files) {
        if (deadline.expired) throw deadline.signal.reason;
        if (stats.bytes_downloaded + file.contentLength > limits.maxDownloadBytes) throw new LimitReached('max_download_bytes');
        const rows = await readReportFile(api, bucketName, file.fileName, request.measure, limits, stats, deadline);
        if (rows === undefined) {
          stats.skipped_files += 1;
          continue;
        }
        stats.files_read += 1;
        for (const row of rows) {
          const identity = `${row.date}\u0000${row.accountId}\u0000${row.bucketId}`;
          if (seen.has(identity)) {
            stats.duplicate_rows += 1;
            continue;
          }
          seen.add(identity);
          if (firstDate === null || row.date < firstDate) firstDate = row.date;
          if (lastDate === null || row.date > lastDate) lastDate = row.date;
          onRow(row);
        }
      }
    } catch (error) {
      if (error instanceof LimitReached) stoppedBy = error.stop;
      else if (deadline.absorbExpiry(error)) stoppedBy = 'time_budget';
    }
    return { enabled: true, bucketName, windowStart, firstDate, lastDate, stats, ...(stoppedBy && { stoppedBy }) };
  });
}

/** Lists the window's report files (by name, from its first date) and keeps the data files. */
async function listDataFiles(
  api: ReportsApi,
  bucketId: string,
  windowStart: string,
  limits: ReportScanLimits,
  stats: ReportScanStats,
  options: CallOptions,
): Promise<{ files: B2FileVersion[]; stoppedBy?: ReportStop }> {
  const files: B2FileVersion[] = [];
  let startFileName = windowStart;
  for (;;) {
    if (stats.pages === limits.maxPages) return { files, stoppedBy: 'max_pages' };
    const page = await api.listFileNames({ bucketId, startFileName, maxFileCount: limits.pageSize }, options);
    stats.pages += 1;
    for (const file of page.files) {
      if (stats.candidate_files === limits.maxCandidateFiles) return { files, stoppedBy: 'max_candidate_files' };
      stats.candidate_files += 1;
      const match = DATA_FILE.exec(file.fileName);
      if (!match || match[1]! < windowStart) continue;
      if (files.length === limits.maxSelectedFiles) return { files, stoppedBy: 'max_selected_files' };
      files.push(file);
      stats.selected_files = files.length;
    }
    if (page.nextFileName === null) return { files };
    startFileName = page.nextFileName;
  }
}

/**
 * Streams one report file through the CSV parser. Returns its usable rows, or `undefined` when
 * the file is not a usage CSV with the needed columns. Throws LimitReached when the file would
 * pass the byte or row bound (the file then counts for nothing).
 */
async function readReportFile(
  api: ReportsApi,
  bucketName: string,
  fileName: string,
  measure: UsageMeasure,
  limits: ReportScanLimits,
  stats: ReportScanStats,
  deadline: ScanDeadline,
): Promise<UsageRow[] | undefined> {
  const download = await api.downloadFileByName({ bucketName, fileName }, { signal: deadline.signal });
  const rows: UsageRow[] = [];
  let fileBytes = 0;
  let fileRecords = 0;
  let invalid = 0;
  // Why this file stopped early, if it did: a pipeline torn down on purpose may reject with a
  // generic AbortError instead of the reason.
  let reason: LimitReached | UnusableReport | undefined;
  const countBytes = new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      fileBytes += chunk.length;
      if (stats.bytes_downloaded + fileBytes > limits.maxDownloadBytes) callback((reason = new LimitReached('max_download_bytes')));
      else callback(null, chunk);
    },
  });
  const parser = parse({ bom: true, trim: true, skip_empty_lines: true, relax_column_count: true, max_record_size: 64 * 1024 });
  const collect = async (records: AsyncIterable<string[]>) => {
    let columns: ColumnIndex | undefined;
    for await (const record of records) {
      if (!columns) {
        columns = columnIndex(record, measure);
        if (!columns) throw (reason = new UnusableReport());
        continue;
      }
      fileRecords += 1;
      if (stats.rows + fileRecords > limits.maxRows) throw (reason = new LimitReached('max_rows'));
      const row = usageRow(record, columns);
      if (row) rows.push(row);
      else invalid += 1;
    }
  };
  try {
    await pipeline(Readable.fromWeb(download.body as WebReadableStream<Uint8Array>), countBytes, parser, collect, {
      signal: deadline.signal,
    });
  } catch (error) {
    if (deadline.signal.aborted) throw error;
    if (reason instanceof LimitReached) throw reason;
    if (reason instanceof UnusableReport || error instanceof CsvError) return undefined;
    throw error;
  } finally {
    // Bytes that crossed the wire count against the bound whether or not the file was used.
    stats.bytes_downloaded += fileBytes;
  }
  stats.rows += fileRecords;
  stats.invalid_rows += invalid;
  return rows;
}

type ColumnIndex = Record<(typeof REQUIRED_COLUMNS)[number] | 'measure', number>;

/** Where each needed column is, or `undefined` when the header lacks one. */
function columnIndex(header: string[], measure: UsageMeasure): ColumnIndex | undefined {
  const names = header.map((name) => name.toLowerCase());
  const index = Object.fromEntries(
    [...REQUIRED_COLUMNS, measure].map((name) => [name === measure ? 'measure' : name, names.indexOf(name)]),
  );
  return Object.values(index).every((i) => i >= 0) ? (index as ColumnIndex) : undefined;
}

function usageRow(record: string[], columns: ColumnIndex): UsageRow | undefined {
  const date = record[columns.date] ?? '';
  const accountId = record[columns.account_id] ?? '';
  const bucketId = record[columns.bucket_id] ?? '';
  const bytes = parseGbToBytes(record[columns.measure] ?? '');
  if (!ISO_DATE.test(date) || accountId === '' || bucketId === '' || bytes === undefined) return undefined;
  return { date, accountId, bucketId, bucketName: record[columns.bucket_name] ?? '', bytes };
}
