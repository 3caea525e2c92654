/**
 * b2_list_largest_files at scale: the streaming top-k over 1,000,000 file versions listed from
 * the sandbox over HTTP with the native client, `max_scan` and the time budget raised for the
 * run (the logic is called directly; the public schema caps max_scan at 500,000).
 *
 * The sandbox runs in a child process (`b2-mcp sandbox --seed none`), so the heap measured here
 * is the scanner's alone: peak growth over a collected baseline, sampled after every page and
 * every few milliseconds, and what is still retained after the scan once collected again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { LISTING_PAGE_SIZE, listLargestFiles } from '../src/server/analytics/largest-files.js';
import { createB2NativeClient, type B2NativeApi } from '../src/server/b2/native-client.js';
import { packageRoot } from '../src/server/package-info.js';

const SERVER = join(packageRoot(), 'dist', 'bin', 'b2-mcp.js');
const BUCKET = 'bench-largest-files';
const TOP_K = 100;
/** Distinct sizes for a few files, so the top of the ranking is known in advance. */
const MARKER_SIZES = [300_000, 250_000, 200_000];
const MB = 1024 * 1024;

export interface LargestFilesBench {
  versions: number;
  pageSize: number;
  limit: number;
  seconds: number;
  filesPerSecond: number;
  /** Peak heap in use during the scan minus the collected baseline. */
  heapGrowthMb: number;
  /** Heap still in use after the scan, once collected, minus the baseline. */
  retainedHeapMb: number;
  /** Seconds the sandbox took to append the synthetic versions (not part of the scan). */
  seedSeconds: number;
}

interface SandboxDetails {
  apiUrl: string;
  adminUrl: string;
  adminToken: string;
  applicationKeyId: string;
  applicationKey: string;
}

function startSandboxProcess(): Promise<{ child: ChildProcess; details: SandboxDetails }> {
  const child = spawn(process.execPath, ['--max-old-space-size=4096', SERVER, 'sandbox', '--seed', 'none'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n')[0]!;
      if (stdout.includes('\n')) resolve({ child, details: JSON.parse(line) as SandboxDetails });
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr}`)));
  });
}

function stopSandboxProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function admin(details: SandboxDetails, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${details.adminUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${details.adminToken}` },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`admin ${path}: HTTP ${response.status} ${await response.text()}`);
}

/** `gc()` without starting node with --expose-gc. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Appends `versions` versions in ten name ranges of different sizes (half with two versions per name). */
async function seedVersions(details: SandboxDetails, api: B2NativeApi, versions: number): Promise<number> {
  await api.createBucket({ bucketName: BUCKET, bucketType: 'allPrivate' });
  const started = performance.now();
  const bulk = versions - MARKER_SIZES.length;
  const batches = 10;
  for (let i = 0; i < batches; i++) {
    const count = Math.floor(bulk / batches) + (i < bulk % batches ? 1 : 0);
    await admin(details, '/bulk-versions', {
      bucketName: BUCKET,
      namePrefix: `range-${i}/`,
      count,
      size: 1000 + 997 * i,
      versionsPerName: i % 2 === 0 ? 1 : 2,
    });
  }
  for (const [i, size] of MARKER_SIZES.entries()) {
    await admin(details, '/files', { bucketName: BUCKET, fileName: `range-${i}/marker-${i}`, text: 'm'.repeat(size) });
  }
  return (performance.now() - started) / 1000;
}

export async function benchLargestFiles(versions = 1_000_000, pageSize = LISTING_PAGE_SIZE): Promise<LargestFilesBench> {
  const gc = collector();
  const { child, details } = await startSandboxProcess();
  try {
    const client = createB2NativeClient({
      apiUrl: details.apiUrl,
      applicationKeyId: details.applicationKeyId,
      applicationKey: details.applicationKey,
    });
    const seedSeconds = await seedVersions(details, client, versions);
    await client.authorize();

    let peak = 0;
    const sample = () => {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    };
    // Sample after each page arrives (the page is then fully parsed and live) and on a timer.
    const sampled: typeof client = Object.create(client);
    sampled.listFileVersions = async (request, options) => {
      const page = await client.listFileVersions(request, options);
      sample();
      return page;
    };
    gc();
    const baseline = process.memoryUsage().heapUsed;
    peak = baseline;
    const timer = setInterval(sample, 5);
    const started = performance.now();
    const result = await listLargestFiles(sampled, {
      bucketName: BUCKET,
      limit: TOP_K,
      maxScan: versions,
      pageSize,
      budgetMs: 30 * 60_000,
      signal: new AbortController().signal,
    });
    const seconds = (performance.now() - started) / 1000;
    clearInterval(timer);
    sample();

    if (result.truncated || result.scanned !== versions)
      throw new Error(`scan incomplete: ${result.scanned} of ${versions} (${result.stopped_by})`);
    const top = result.files.slice(0, MARKER_SIZES.length).map((f) => f.size_bytes);
    if (top.join() !== MARKER_SIZES.join()) throw new Error(`unexpected top sizes ${top.join()}`);

    gc();
    const retained = process.memoryUsage().heapUsed - baseline;
    const heapGrowthMb = Math.round(((peak - baseline) / MB) * 10) / 10;
    return {
      versions,
      pageSize,
      limit: TOP_K,
      seconds: Math.round(seconds * 100) / 100,
      filesPerSecond: Math.round(versions / seconds),
      heapGrowthMb,
      retainedHeapMb: Math.round((retained / MB) * 10) / 10,
      seedSeconds: Math.round(seedSeconds * 10) / 10,
    };
  } finally {
    await stopSandboxProcess(child);
  }
}
