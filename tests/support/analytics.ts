/**
 * Helpers for the analytics tests: a native client on the in-process sandbox and brute-force
 * reference computations written
 * independently of src/server/analytics (plain sorts and full listings, UTF-8 via Buffer).
 */
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { createB2NativeClient, type B2NativeApi } from '../../src/server/b2/native-client.js';
import type { B2FileVersion } from '../../src/server/b2/types.js';
import type { UnfinishedUploadsApi } from '../../src/server/analytics/unfinished-uploads.js';
import type { SandboxKey } from './sandbox-harness.js';

export const NO_SIGNAL = new AbortController().signal;

export function clientFor(sandbox: RunningSandbox, key: SandboxKey = sandbox): B2NativeApi {
  return createB2NativeClient({
    apiUrl: sandbox.apiUrl,
    applicationKeyId: key.applicationKeyId,
    applicationKey: key.applicationKey,
    retry: { maxAttempts: 1 },
  });
}

/** The native client, which lists upload parts itself. */
export async function unfinishedApiWithParts(sandbox: RunningSandbox, key: SandboxKey = sandbox): Promise<UnfinishedUploadsApi> {
  return clientFor(sandbox, key);
}

/** Every version in the bucket, in listing order (one call per 1,000). */
export async function allVersions(api: B2NativeApi, bucketName: string, prefix?: string): Promise<B2FileVersion[]> {
  const { buckets } = await api.listBuckets({ bucketName });
  const versions: B2FileVersion[] = [];
  let cursor: { startFileName?: string; startFileId?: string } = {};
  for (;;) {
    const page = await api.listFileVersions({ bucketId: buckets[0]!.bucketId, maxFileCount: 1000, ...(prefix && { prefix }), ...cursor });
    versions.push(...page.files);
    if (page.nextFileName === null) return versions;
    cursor = { startFileName: page.nextFileName, ...(page.nextFileId && { startFileId: page.nextFileId }) };
  }
}

const utf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** The k largest uploaded versions by full sort: size desc, name (UTF-8), newer, file id. */
export function bruteForceLargest(versions: B2FileVersion[], k: number) {
  const newestDecided = new Map<string, B2FileVersion>();
  for (const v of versions) if (v.action !== 'start' && !newestDecided.has(v.fileName)) newestDecided.set(v.fileName, v);
  return versions
    .filter((v) => v.action === 'upload')
    .sort(
      (a, b) =>
        b.contentLength - a.contentLength ||
        utf8(a.fileName, b.fileName) ||
        b.uploadTimestamp - a.uploadTimestamp ||
        utf8(a.fileId!, b.fileId!),
    )
    .slice(0, k)
    .map((v) => ({ file_name: v.fileName, size_bytes: v.contentLength, file_id: v.fileId, current: newestDecided.get(v.fileName) === v }));
}

export interface ReportRow {
  date: string;
  account: string;
  bucketId: string;
  bucketName: string;
  stored: bigint;
  downloaded: bigint;
}

/** GB text with at most six decimals → bytes, computed another way than the code under test. */
const gbBytes = (text: string) => BigInt(Math.round(Number(text) * 1e6)) * 1000n;

/**
 * Every row of the demo seed's data files (`<date>/usage.account-<id>.csv`, not the audit mirror
 * or the index) dated on or after `fromDate`, by full listing and download. The demo CSVs have no
 * quoted fields, so splitting on commas is exact here.
 */
export async function bruteForceReportRows(api: B2NativeApi, accountId: string, fromDate: string): Promise<ReportRow[]> {
  const bucketName = `b2-reports-${accountId}`;
  const rows: ReportRow[] = [];
  for (const file of await allVersions(api, bucketName)) {
    const [date, base] = file.fileName.split('/');
    if (base !== `usage.account-${accountId}.csv` || date! < fromDate) continue;
    const download = await api.downloadFileByName({ bucketName, fileName: file.fileName });
    const [header, ...lines] = (await new Response(download.body).text()).trim().split('\n');
    const col = Object.fromEntries(header!.split(',').map((name, i) => [name, i]));
    for (const line of lines) {
      const f = line.split(',');
      rows.push({
        date: f[col.date!]!,
        account: f[col.account_id!]!,
        bucketId: f[col.bucket_id!]!,
        bucketName: f[col.bucket_name!]!,
        stored: gbBytes(f[col.stored_gb!]!),
        downloaded: gbBytes(f[col.downloaded_gb!]!),
      });
    }
  }
  return rows;
}

export const toGb = (bytes: bigint) => Number(bytes) / 1e9;
