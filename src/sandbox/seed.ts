/**
 * Initial sandbox data. `demo` builds a small, realistic account; `none` leaves it empty.
 * The demo content is a pure function of the store's clock (and id salt): same clock, same data.
 * Timestamps are laid out relative to the start of the current UTC day, so the usage reports
 * always cover the 35 days before "today".
 */
import { bytesBody, fillerBody, md5Hex, sha1Of } from './bodies.js';
import type { BucketRecord, StoredBody } from './model.js';
import { DAY_MS, type NewFile, type SandboxStore } from './store.js';

export const SEEDS = ['demo', 'none'] as const;
export type SeedName = (typeof SEEDS)[number];

const USAGE_REPORT_DAYS = 35;
const MB = 1_000_000;

/** File names that break naive CSV, JSON, shell or TOON handling. */
export const HOSTILE_FILE_NAMES = [
  'hostile/comma,separated,name.txt',
  'hostile/double "quoted" name.txt',
  "hostile/single 'quoted' name.txt",
  'hostile/line\nbreak.txt',
  'hostile/tab\tseparated.txt',
  'hostile/  leading and trailing spaces  ',
  'hostile/#hash-start.txt',
  'hostile/-leading-dash.txt',
  'hostile/ünïcödé-文件-🚀.txt',
  'hostile/00123',
  'hostile/1e10',
  'hostile/true',
  'hostile/null',
  'hostile/back\\slash.txt',
  'hostile/percent%20encoded.txt',
  'hostile/colon: yes.txt',
  'hostile/[brackets]{braces}.txt',
];

export async function applySeed(store: SandboxStore, seed: SeedName): Promise<void> {
  if (seed === 'demo') await seedDemo(store);
}

async function put(store: SandboxStore, bucket: BucketRecord, file: Omit<NewFile, 'contentSha1' | 'contentMd5'>) {
  const md5 = file.body.kind === 'bytes' ? md5Hex(file.body.data) : null;
  return store.uploadFile(bucket.bucketId, { ...file, contentSha1: await sha1Of(file.body), contentMd5: md5 });
}

const text = (value: string): StoredBody => bytesBody(Buffer.from(value, 'utf8'));

async function seedDemo(store: SandboxStore): Promise<void> {
  const today = Math.floor(store.now() / DAY_MS) * DAY_MS;
  const at = (daysAgo: number, hour = 9) => today - daysAgo * DAY_MS + hour * 3_600_000;

  const assets = store.createBucket({
    bucketName: 'demo-private-assets',
    bucketType: 'allPrivate',
    bucketInfo: { team: 'platform', 'cost-center': 'cc-1042' },
    corsRules: [
      {
        corsRuleName: 'web-app-downloads',
        allowedOrigins: ['https://app.example.com'],
        allowedOperations: ['b2_download_file_by_name', 's3_get', 's3_head'],
        allowedHeaders: ['range'],
        exposeHeaders: ['x-bz-content-sha1'],
        maxAgeSeconds: 3600,
      },
    ],
    lifecycleRules: [
      {
        fileNamePrefix: 'tmp/',
        daysFromHidingToDeleting: 1,
        daysFromUploadingToHiding: 7,
        daysFromStartingToCancelingUnfinishedLargeFiles: null,
      },
    ],
  });
  const site = store.createBucket({ bucketName: 'demo-public-site', bucketType: 'allPublic' });
  const records = store.createBucket({
    bucketName: 'demo-locked-records',
    bucketType: 'allPrivate',
    fileLockEnabled: true,
    defaultRetention: { mode: 'governance', period: { duration: 30, unit: 'days' } },
  });
  store.createBucket({ bucketName: 'demo-empty-bucket', bucketType: 'allPrivate' });

  // A name with history: three versions, newest last.
  for (const [i, daysAgo] of [40, 20, 2].entries()) {
    await put(store, assets, {
      fileName: 'docs/readme.txt',
      contentType: 'text/plain',
      body: text(`Demo readme, revision ${i + 1}.\n`),
      uploadTimestamp: at(daysAgo),
    });
  }
  await put(store, assets, {
    fileName: 'docs/old-draft.txt',
    contentType: 'text/plain',
    body: text('superseded'),
    uploadTimestamp: at(30),
  });
  store.hideFile(assets.bucketId, 'docs/old-draft.txt', at(10));
  await put(store, assets, {
    fileName: 'images/logo.png',
    contentType: 'image/png',
    body: bytesBody(Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex')),
    fileInfo: { src_last_modified_millis: String(at(60)) },
    uploadTimestamp: at(12),
  });
  await put(store, assets, {
    fileName: 'reports/2025/q4.csv',
    contentType: 'text/csv',
    body: text('region,revenue\nus-west,1200\neu-central,800\n'),
    uploadTimestamp: at(14),
  });
  for (const [name, size, daysAgo] of [
    ['media/raw-interview.mp4', 48 * MB, 25],
    ['media/teaser.mp4', 9 * MB, 18],
    ['media/thumb.jpg', 20_480, 18],
    ['datasets/events-2025.parquet', 27 * MB, 8],
  ] as const) {
    await put(store, assets, {
      fileName: name,
      contentType: 'application/octet-stream',
      body: fillerBody(size),
      uploadTimestamp: at(daysAgo),
    });
  }
  for (const name of HOSTILE_FILE_NAMES) {
    await put(store, assets, {
      fileName: name,
      contentType: 'text/plain',
      body: text(`content of ${JSON.stringify(name)}`),
      uploadTimestamp: at(5),
    });
  }

  // A finished large file, and one left unfinished (the kind b2_unfinished_uploads reports).
  const backup = store.startLargeFile(assets.bucketId, {
    fileName: 'backups/db-2026.tar.gz',
    contentType: 'application/gzip',
    uploadTimestamp: at(6),
  });
  const backupParts = [fillerBody(5 * MB), fillerBody(5 * MB), fillerBody(2 * MB)];
  for (const [i, body] of backupParts.entries()) {
    store.uploadPart(backup.fileId, { partNumber: i + 1, body, contentSha1: await sha1Of(body), contentMd5: '', uploadTimestamp: at(6) });
  }
  store.finishLargeFile(backup.fileId, { partNumbers: [1, 2, 3] });
  // Started at midnight, so it is nine days old at every time of today.
  const partial = store.startLargeFile(assets.bucketId, {
    fileName: 'backups/partial-upload.bin',
    contentType: 'application/octet-stream',
    fileInfo: { large_file_sha1: 'none' },
    uploadTimestamp: at(9, 0),
  });
  for (const n of [1, 2]) {
    const body = fillerBody(5 * MB);
    store.uploadPart(partial.fileId, { partNumber: n, body, contentSha1: await sha1Of(body), contentMd5: '', uploadTimestamp: at(9, 0) });
  }

  store.setNotificationRules(assets.bucketId, [
    {
      name: 'image-uploads',
      eventTypes: ['b2:ObjectCreated:*'],
      isEnabled: true,
      objectNamePrefix: 'images/',
      targetConfiguration: {
        targetType: 'webhook',
        url: 'https://hooks.example.com/b2/ingest?token=demo-webhook-token',
        hmacSha256SigningSecret: 'DemoSigningSecret0123456789abcde',
        customHeaders: [{ name: 'X-Webhook-Token', value: 'demo-header-secret' }],
      },
    },
  ]);

  await put(store, site, {
    fileName: 'site/index.html',
    contentType: 'text/html',
    body: text('<h1>Demo site</h1>\n'),
    uploadTimestamp: at(3),
  });
  await put(store, site, {
    fileName: 'site/app.js',
    contentType: 'application/javascript',
    body: fillerBody(180_000),
    uploadTimestamp: at(3),
  });

  await put(store, records, {
    fileName: 'contracts/2025-msa.pdf',
    contentType: 'application/pdf',
    body: fillerBody(350_000),
    retention: null,
    legalHold: 'on',
    uploadTimestamp: at(15),
  });
  await put(store, records, {
    fileName: 'ledger/2025-12.csv',
    contentType: 'text/csv',
    body: text('date,amount\n2025-12-31,100\n'),
    retention: { mode: 'compliance', retainUntilTimestamp: today + 365 * DAY_MS },
    uploadTimestamp: at(4),
  });
  await put(store, records, {
    fileName: 'ledger/2026-01.csv',
    contentType: 'text/csv',
    body: text('date,amount\n'),
    uploadTimestamp: at(1),
  });
  await put(store, records, {
    fileName: 'scratch/unprotected.txt',
    contentType: 'text/plain',
    body: text('deletable'),
    retention: null,
    uploadTimestamp: at(1),
  });

  store.createKey({
    keyName: 'demo-read-only',
    capabilities: ['listBuckets', 'listFiles', 'listKeys', 'readBucketNotifications', 'readFiles'],
  });
  store.createKey({
    keyName: 'demo-site-deployer',
    capabilities: ['listBuckets', 'listFiles', 'readFiles', 'writeFiles'],
    bucketIds: [site.bucketId],
    namePrefix: 'site/',
  });

  const group = store.createGroup('Demo Partner Group');
  const members = [
    store.addGroupMember(group.groupId, 'alice@example.com', 'us-west').member,
    store.addGroupMember(group.groupId, 'bob@example.com', 'eu-central').member,
  ];
  Object.assign(members[0]!, { b2BytesStoredCount: 52_000_000_000, b2FilesStoredCount: 120_400, bucketCount: 3 });
  Object.assign(members[1]!, { b2BytesStoredCount: 7_300_000_000, b2FilesStoredCount: 9_800, bucketCount: 1 });

  await seedUsageReports(store, today, [
    ...[assets, site, records].map((b, i) => ({ accountId: store.accountId, bucketId: b.bucketId, bucketName: b.bucketName, profile: i })),
    { accountId: members[0]!.accountId, bucketId: 'a11ce0000000000000000001', bucketName: 'alice-photos', profile: 3 },
    { accountId: members[1]!.accountId, bucketId: 'b0b000000000000000000001', bucketName: 'bob-archive', profile: 4 },
  ]);
}

interface ReportSubject {
  accountId: string;
  bucketId: string;
  bucketName: string;
  /** Index into USAGE_PROFILES: how the bucket grows and how much it serves. */
  profile: number;
}

/** Per-bucket trajectories: starting GB stored, GB added per day, GB downloaded per day. */
const USAGE_PROFILES = [
  { storedGb: 820, growthGb: 6.5, egressGb: 42 },
  { storedGb: 12, growthGb: 0.05, egressGb: 310 },
  { storedGb: 140, growthGb: 1.2, egressGb: 0.8 },
  { storedGb: 52_000, growthGb: 210, egressGb: 1_900 },
  { storedGb: 7_300, growthGb: -35, egressGb: 95 },
];

const USAGE_REPORT_COLUMNS = [
  'date',
  'account_id',
  'bucket_id',
  'bucket_name',
  'stored_gb',
  'uploaded_gb',
  'downloaded_gb',
  'api_txn_class_a',
  'api_txn_class_b',
  'api_txn_class_c',
] as const;

const gb = (n: number) => n.toFixed(6);

/**
 * Daily usage reports in `b2-reports-<accountId>`, one folder per UTC day:
 *   <date>/usage.account-<accountId>.csv                    — one row per bucket (the data)
 *   <date>/usage.audit-account-<accountId>.csv              — the same rows again (an audit mirror
 *                                                             that readers must not double-count)
 *   <date>/usage.account-<accountId>.reportingLocations.csv — index of that day's usage files
 * Quantities are decimal GB (1 GB = 1e9 bytes) with six decimals; transaction columns are counts.
 */
async function seedUsageReports(store: SandboxStore, today: number, subjects: ReportSubject[]): Promise<void> {
  const reports = store.createBucket({ bucketName: `b2-reports-${store.accountId}`, bucketType: 'allPrivate', reserved: true });
  const csv = (rows: string[][]) => `${rows.map((r) => r.map(csvField).join(',')).join('\n')}\n`;
  for (let daysAgo = USAGE_REPORT_DAYS; daysAgo >= 1; daysAgo--) {
    const dayIndex = USAGE_REPORT_DAYS - daysAgo;
    const date = new Date(today - daysAgo * DAY_MS).toISOString().slice(0, 10);
    const rows = subjects.map((s, i) => {
      const p = USAGE_PROFILES[s.profile]!;
      const weekly = 1 + 0.25 * Math.sin((dayIndex + i) * ((2 * Math.PI) / 7));
      return [
        date,
        s.accountId,
        s.bucketId,
        s.bucketName,
        gb(p.storedGb + p.growthGb * dayIndex),
        gb(Math.max(p.growthGb, 0) * 1.1 * weekly),
        gb(p.egressGb * weekly),
        String(1000 + 37 * dayIndex + 11 * i),
        String(25_000 + 410 * dayIndex + 97 * i),
        String(300 + 5 * dayIndex + 3 * i),
      ];
    });
    const dataName = `usage.account-${store.accountId}.csv`;
    const files: Array<[string, string]> = [
      [dataName, csv([[...USAGE_REPORT_COLUMNS], ...rows])],
      [`usage.audit-account-${store.accountId}.csv`, csv([[...USAGE_REPORT_COLUMNS], ...rows])],
      [
        `usage.account-${store.accountId}.reportingLocations.csv`,
        csv([
          ['date', 'group_id', 'line_version', 'report_file_name', 'reporting_location', 'resource_name'],
          [date, '', '1', `${date}/${dataName}`, 'us-west', `account-${store.accountId}`],
        ]),
      ],
    ];
    for (const [name, content] of files) {
      const body = text(content);
      await put(store, reports, {
        fileName: `${date}/${name}`,
        contentType: 'text/csv',
        body,
        uploadTimestamp: today - (daysAgo - 1) * DAY_MS + 2 * 3_600_000,
      });
    }
  }
}

function csvField(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
