/**
 * The usage-report scan against a scripted B2 API: what the sandbox cannot easily provoke
 * (a body longer than its listed size, a stalled download, cancellation mid-file).
 */
import { describe, expect, it } from 'vitest';
import type { B2AccountInfo, B2Download, B2FileVersion } from '../../../src/server/b2/types.js';
import { scanUsageReports, windowStartDate, type ReportsApi, type UsageRow } from '../../../src/server/analytics/usage-reports.js';

const NOW = Date.UTC(2026, 0, 15, 12);
const HEADER = 'date,account_id,bucket_id,bucket_name,stored_gb,downloaded_gb\n';

interface ScriptedFile {
  name: string;
  body: string;
  /** The size the listing claims (default: the true size). */
  listedSize?: number;
  /** Stream the body in chunks of this many bytes, pausing `chunkDelayMs` between them. */
  chunkBytes?: number;
  chunkDelayMs?: number;
}

function scriptedApi(files: ScriptedFile[], allowed: B2AccountInfo['allowed']['buckets'] = null): ReportsApi & { downloads: string[] } {
  const downloads: string[] = [];
  const file = (f: ScriptedFile) =>
    ({
      fileName: f.name,
      contentLength: f.listedSize ?? Buffer.byteLength(f.body),
      action: 'upload',
      fileId: `id-${f.name}`,
    }) as B2FileVersion;
  return {
    downloads,
    authorize: async () =>
      ({ accountId: 'acct1', allowed: { buckets: allowed, capabilities: [], namePrefix: null } }) as unknown as B2AccountInfo,
    listBuckets: async ({ bucketName } = {}) => ({
      buckets: bucketName === 'b2-reports-acct1' ? [{ bucketId: 'rb', bucketName } as never] : [],
    }),
    listFileNames: async ({ startFileName = '' }) => ({
      files: files
        .filter((f) => f.name >= startFileName)
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .map(file),
      nextFileName: null,
    }),
    downloadFileByName: async ({ fileName }, options) => {
      downloads.push(fileName);
      const f = files.find((x) => x.name === fileName)!;
      const bytes = Buffer.from(f.body);
      const step = f.chunkBytes ?? bytes.length;
      let offset = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (offset > 0 && f.chunkDelayMs) await new Promise((r) => setTimeout(r, f.chunkDelayMs));
          if (options?.signal?.aborted) return controller.error(options.signal.reason);
          if (offset >= bytes.length) return controller.close();
          controller.enqueue(bytes.subarray(offset, offset + step));
          offset += step;
        },
      });
      return { status: 200, body, contentLength: bytes.length } as B2Download;
    },
  };
}

const day = (date: string, rows: string[]) => ({
  name: `${date}/usage.account-acct1.csv`,
  body: HEADER + rows.map((r) => `${date},${r}\n`).join(''),
});

async function scan(api: ReportsApi, extra: Partial<Parameters<typeof scanUsageReports>[1]> = {}) {
  const rows: UsageRow[] = [];
  const result = await scanUsageReports(
    api,
    { days: 30, measure: 'downloaded_gb', now: () => NOW, signal: new AbortController().signal, ...extra },
    (row) => rows.push(row),
  );
  return { result, rows };
}

describe('usage-report scan', () => {
  it('computes the window start in UTC days', () => {
    expect(windowStartDate(NOW, 30)).toBe('2025-12-16');
    expect(windowStartDate(Date.UTC(2026, 0, 1, 0, 0, 0), 1)).toBe('2025-12-31');
  });

  it('stops when a body runs past the byte bound even though its listed size fit, and drops that file', async () => {
    const api = scriptedApi([
      day('2026-01-01', ['acct1,b1,one,1,2']),
      {
        ...day(
          '2026-01-02',
          Array.from({ length: 50 }, (_, i) => `acct1,b${i},n${i},1,2`),
        ),
        listedSize: 10,
        chunkBytes: 64,
      },
    ]);
    const firstSize = Buffer.byteLength(day('2026-01-01', ['acct1,b1,one,1,2']).body);
    const { result, rows } = await scan(api, { limits: { maxDownloadBytes: firstSize + 200 } });
    expect(result).toMatchObject({ enabled: true, stoppedBy: 'max_download_bytes', lastDate: '2026-01-01' });
    expect(rows).toHaveLength(1);
    if (!result.enabled) throw new Error('unreachable');
    expect(result.stats.files_read).toBe(1);
    expect(result.stats.bytes_downloaded).toBeGreaterThan(firstSize + 200);
    expect(result.stats.bytes_downloaded).toBeLessThanOrEqual(firstSize + 200 + 64);
  });

  it('stops a stalled download at the time budget and keeps the files already read', async () => {
    const api = scriptedApi([
      day('2026-01-01', ['acct1,b1,one,1,2']),
      { ...day('2026-01-02', ['acct1,b1,one,1,3', 'acct1,b2,two,1,4']), chunkBytes: 8, chunkDelayMs: 2_000 },
    ]);
    const started = performance.now();
    const { result, rows } = await scan(api, { budgetMs: 300 });
    // The stalled download would take 10 s to finish: returning well before proves it was cut.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result).toMatchObject({ enabled: true, stoppedBy: 'time_budget', firstDate: '2026-01-01', lastDate: '2026-01-01' });
    expect(rows.map((r) => r.bytes)).toEqual([2_000_000_000n]);
  });

  it('rethrows a caller cancellation during a download', async () => {
    const api = scriptedApi([{ ...day('2026-01-02', ['acct1,b1,one,1,3']), chunkBytes: 4, chunkDelayMs: 50 }]);
    const caller = new AbortController();
    const cancelled = new Error('cancelled by the client');
    setTimeout(() => caller.abort(cancelled), 120);
    await expect(scan(api, { signal: caller.signal })).rejects.toBe(cancelled);
  });

  it('reads only data files dated inside the window, and never the audit mirror or the index', async () => {
    const files = [
      day('2025-12-15', ['acct1,b1,old,1,99']),
      day('2025-12-16', ['acct1,b1,one,1,1']),
      { name: '2025-12-16/usage.audit-account-acct1.csv', body: `${HEADER}2025-12-16,acct1,b1,one,1,1\n` },
      { name: '2025-12-16/usage.account-acct1.reportingLocations.csv', body: 'date,group_id\n' },
      { name: 'notes/usage.account-acct1.csv', body: HEADER },
      day('2026-01-14', ['acct1,b1,one,1,2']),
    ];
    const api = scriptedApi(files);
    const { result, rows } = await scan(api);
    expect(api.downloads).toEqual(['2025-12-16/usage.account-acct1.csv', '2026-01-14/usage.account-acct1.csv']);
    expect(rows.map((r) => [r.date, r.bytes])).toEqual([
      ['2025-12-16', 1_000_000_000n],
      ['2026-01-14', 2_000_000_000n],
    ]);
    expect(result).toMatchObject({ windowStart: '2025-12-16', stats: { candidate_files: 5, selected_files: 2 } });
  });

  it('fails with a clear 504 when the budget runs out before the reports bucket is even found', async () => {
    const api = scriptedApi([day('2026-01-01', ['acct1,b1,one,1,2'])]);
    const authorize = api.authorize;
    api.authorize = (options) =>
      new Promise((resolve, reject) => {
        options?.signal?.addEventListener('abort', () => reject(options.signal!.reason));
        setTimeout(() => resolve(authorize(options)), 1_000);
      });
    await expect(scan(api, { budgetMs: 50 })).rejects.toMatchObject({ status: 504, code: 'time_budget_exceeded' });
  });

  it('says the key cannot reach the reports without asking B2 for the bucket', async () => {
    const api = scriptedApi([], [{ id: 'other', name: 'some-other-bucket' }]);
    api.listBuckets = async () => {
      throw new Error('must not be called');
    };
    expect((await scan(api)).result).toEqual({ enabled: false, bucketName: 'b2-reports-acct1', reason: 'key_restricted' });
  });
});
