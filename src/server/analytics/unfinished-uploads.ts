/**
 * `b2_unfinished_uploads`: unfinished large files in a bucket and the bytes their uploaded parts
 * occupy (billed storage that no finished file uses). Bounded by `max_uploads` and the time
 * budget; when a bound stops the scan the wasted total is a lower bound.
 */
import { B2Error } from '../b2/errors.js';
import type { CallOptions } from '../b2/native-client.js';
import type { B2ListUnfinishedLargeFilesRequest, B2ListUnfinishedLargeFilesResponse } from '../b2/types.js';
import { requireBucketByName, type BucketLookupApi } from './buckets.js';
import { ANALYTICS_TIME_BUDGET_MS, withDeadline } from './deadline.js';
import { compareCodePoints } from '../../contract/code-point-order.js';
import { byEach } from './order.js';
import { bytesToGb, formatBytes } from './units.js';

const DAY_MS = 86_400_000;
/** B2's page limits: 100 unfinished files and 1,000 parts per call. */
export const MAX_UNFINISHED_PAGE = 100;
export const MAX_PARTS_PAGE = 1_000;

export interface PartsPage {
  parts: Array<{ partNumber: number; contentLength: number }>;
  nextPartNumber: number | null;
}

export interface UnfinishedUploadsApi extends BucketLookupApi {
  listUnfinishedLargeFiles(request: B2ListUnfinishedLargeFilesRequest, options?: CallOptions): Promise<B2ListUnfinishedLargeFilesResponse>;
  /** `b2_list_parts` (B2 requires writeFiles for it); without that capability wasted bytes are unknown. */
  listParts(request: { fileId: string; startPartNumber?: number; maxPartCount?: number }, options?: CallOptions): Promise<PartsPage>;
}

export interface UnfinishedUploadsRequest {
  bucketName: string;
  /** Only uploads started at least this many days ago. */
  olderThanDays?: number | undefined;
  /** Report at most this many uploads. */
  maxUploads: number;
  budgetMs?: number;
  /** Unfinished files per listing call; default (and maximum) MAX_UNFINISHED_PAGE. */
  pageSize?: number;
  now?: () => number;
  signal: AbortSignal;
}

export interface UnfinishedUpload {
  file_name: string;
  file_id: string;
  started_at: string;
  age_days: number;
  /** Parts uploaded so far; null when part sizes are unavailable. */
  parts: number | null;
  bytes: number | null;
  size: string | null;
}

export type UnfinishedStop = 'max_uploads' | 'time_budget';

export interface UnfinishedUploadsResult {
  bucket: string;
  older_than_days?: number;
  uploads: UnfinishedUpload[];
  upload_count: number;
  wasted_bytes: number | null;
  wasted_gb: number | null;
  wasted: string | null;
  /** True when a bound stopped the scan: more uploads (or parts) may exist. */
  wasted_is_lower_bound: boolean;
  /** Unfinished uploads listed, including those the age filter skipped. */
  scanned: number;
  truncated: boolean;
  stopped_by?: UnfinishedStop;
  note?: string;
}

type PartSizes = 'known' | 'not_permitted';
/** What listing one upload's parts found: its sizes, no permission, or the upload already gone. */
type PartsOutcome = PartSizes | 'finished';

interface Found {
  fileName: string;
  fileId: string;
  startedAt: number;
  parts: number;
  bytes: number;
}

/** Most bytes first; then oldest, name, id. */
const rankWaste = byEach<Found>(
  (a, b) => b.bytes - a.bytes,
  (a, b) => a.startedAt - b.startedAt,
  (a, b) => compareCodePoints(a.fileName, b.fileName),
  (a, b) => compareCodePoints(a.fileId, b.fileId),
);

export async function listUnfinishedUploads(
  api: UnfinishedUploadsApi,
  request: UnfinishedUploadsRequest,
): Promise<UnfinishedUploadsResult> {
  const budgetMs = request.budgetMs ?? ANALYTICS_TIME_BUDGET_MS;
  const now = (request.now ?? Date.now)();
  const cutoff = request.olderThanDays === undefined ? Number.POSITIVE_INFINITY : now - request.olderThanDays * DAY_MS;
  const pageSize = Math.min(request.pageSize ?? MAX_UNFINISHED_PAGE, MAX_UNFINISHED_PAGE);
  let partSizes = 'known' as PartSizes;
  const found: Found[] = [];
  let scanned = 0;
  let stoppedBy: UnfinishedStop | undefined;

  await withDeadline(request.signal, budgetMs, async (deadline) => {
    const options = { signal: deadline.signal };
    const bucket = await requireBucketByName(api, request.bucketName, options);
    try {
      let startFileId: string | undefined;
      for (;;) {
        const page = await api.listUnfinishedLargeFiles(
          { bucketId: bucket.bucketId, maxFileCount: pageSize, ...(startFileId !== undefined && { startFileId }) },
          options,
        );
        for (const file of page.files) {
          scanned += 1;
          if (file.fileId === null || file.uploadTimestamp > cutoff) continue;
          if (found.length === request.maxUploads) {
            // Another match beyond the cap: the list (and the wasted total) is incomplete.
            stoppedBy = 'max_uploads';
            return;
          }
          const upload: Found = { fileName: file.fileName, fileId: file.fileId, startedAt: file.uploadTimestamp, parts: 0, bytes: 0 };
          const outcome = partSizes === 'known' ? await addPartSizes(api, upload, options) : partSizes;
          // Finished or cancelled between the listing and its parts: no longer unfinished.
          if (outcome === 'finished') continue;
          if (outcome === 'not_permitted') partSizes = 'not_permitted';
          found.push(upload);
        }
        if (page.nextFileId === null) return;
        startFileId = page.nextFileId;
      }
    } catch (error) {
      deadline.absorbExpiry(error);
      stoppedBy = 'time_budget';
    }
  });

  const partSizesKnown = partSizes === 'known';
  found.sort(rankWaste);
  const wasted = found.reduce((sum, upload) => sum + upload.bytes, 0);
  const result: UnfinishedUploadsResult = {
    bucket: request.bucketName,
    ...(request.olderThanDays !== undefined && { older_than_days: request.olderThanDays }),
    uploads: found.map((upload) => ({
      file_name: upload.fileName,
      file_id: upload.fileId,
      started_at: new Date(upload.startedAt).toISOString(),
      age_days: Math.floor((now - upload.startedAt) / DAY_MS),
      parts: partSizesKnown ? upload.parts : null,
      bytes: partSizesKnown ? upload.bytes : null,
      size: partSizesKnown ? formatBytes(upload.bytes) : null,
    })),
    upload_count: found.length,
    wasted_bytes: partSizesKnown ? wasted : null,
    wasted_gb: partSizesKnown ? bytesToGb(wasted) : null,
    wasted: partSizesKnown ? formatBytes(wasted) : null,
    wasted_is_lower_bound: stoppedBy !== undefined,
    scanned,
    truncated: stoppedBy !== undefined,
  };
  if (stoppedBy) result.stopped_by = stoppedBy;
  const notes = [
    stoppedBy === 'max_uploads' && `More than ${request.maxUploads} unfinished uploads match; raise max_uploads to see them all.`,
    stoppedBy === 'time_budget' && `Stopped by the ${budgetMs / 1000} s time budget after ${scanned} unfinished uploads.`,
    partSizes === 'not_permitted' && 'Wasted bytes are unknown: B2 lists upload parts only for keys with the writeFiles capability.',
    found.length > 0 &&
      'Cancel uploads that will not finish (s3_abort_multipart_upload), or add a lifecycle rule with daysFromStartingToCancelingUnfinishedLargeFiles.',
  ].filter((note): note is string => typeof note === 'string');
  if (notes.length > 0) result.note = notes.join(' ');
  return result;
}

/**
 * Adds the sizes of an upload's parts to it, page by page (partial if the budget runs out).
 * B2 answers 400 `bad_request` for a file id that is no longer an unfinished upload.
 */
async function addPartSizes(api: UnfinishedUploadsApi, upload: Found, options: CallOptions): Promise<PartsOutcome> {
  let startPartNumber: number | undefined;
  for (;;) {
    let page: PartsPage;
    try {
      page = await api.listParts(
        { fileId: upload.fileId, maxPartCount: MAX_PARTS_PAGE, ...(startPartNumber !== undefined && { startPartNumber }) },
        options,
      );
    } catch (error) {
      if (error instanceof B2Error && error.status === 401 && error.code === 'unauthorized') return 'not_permitted';
      if (error instanceof B2Error && error.status === 400 && error.code === 'bad_request') return 'finished';
      throw error;
    }
    for (const part of page.parts) {
      upload.parts += 1;
      upload.bytes += part.contentLength;
    }
    if (page.nextPartNumber === null) return 'known';
    startPartNumber = page.nextPartNumber;
  }
}
