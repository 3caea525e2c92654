/**
 * The server over an unreliable B2: a mixed workload against the in-process sandbox with injected
 * faults, through the built server on stdio (profile full, Partner tools served by the master key).
 *
 * Every lane repeats one cycle: create a bucket, update it, replace its notification rules and
 * lifecycle, put/copy/delete objects, a multipart upload (completed or aborted), legal hold and
 * retention on a locked file, create and delete an application key, create and eject a Partner
 * group member (and now and then reserve a trial account), delete the bucket — gated tools called
 * with `confirm: true`, secret creations repeated once with the same idempotency key when they
 * fail — and one read tool after every step, rotating through every read tool. Each mutating call has a target of its own (bucket, object key or key name),
 * so the sandbox mutation log can be held against the calls: a call applied twice shows up as
 * more log entries for its target than calls made for it.
 *
 * `benchFaultSoak` (bench/faults.ts) runs 2,000 calls at the brief's fault mix; the end-to-end test
 * runs the same workload smaller.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startSandbox, type RunningSandbox } from '../src/sandbox/index.js';
import { packageRoot } from '../src/server/package-info.js';
import { B2_CAPABILITIES } from '../src/server/b2/capabilities.js';

const SERVER = join(packageRoot(), 'dist', 'bin', 'b2-mcp.js');
const ASSETS = 'demo-private-assets';
const LOCKED = 'demo-locked-records';

/** The one shape of a tool error the contract allows: `B2 Error [code] (HTTP n): message`. */
export const TOOL_ERROR_SHAPE = /^B2 Error \[([A-Za-z0-9_.-]+)\] \(HTTP ([1-5]\d\d)\): \S/;
/** What the server says when a handler threw something it did not expect (a defect). */
const UNEXPECTED = 'failed unexpectedly';

export interface FaultSoakOptions {
  /** Tool calls to make in total. */
  calls: number;
  /** The sandbox fault spec applied once the server is connected (see src/sandbox/faults.ts). */
  faults: string;
  /** Workers calling concurrently, each running its own cycle. */
  lanes?: number;
  /** Calls after which the starting RSS is read (the server warms up first). */
  warmUpCalls?: number;
}

export interface CallRecord {
  tool: string;
  /** A read tool (annotated read-only), or a presign/get that only reads. */
  read: boolean;
  outcome: 'ok' | 'clear_error' | 'unclear';
  /** The result text (first 300 characters), or what the client threw. */
  text: string;
  /** The error code of a clear error. */
  code?: string;
  ms: number;
}

export interface FaultSoakReport {
  calls: number;
  ok: number;
  clearErrors: number;
  unclear: number;
  crashes: number;
  /** Log entries beyond one per call for the same target: a call applied twice. */
  duplicateMutations: number;
  /** Successful calls whose effect is certain but left no log entry. */
  missingMutations: number;
  /** Log entries for targets whose calls all failed: applied, answer lost (phase=after faults). */
  appliedButFailed: number;
  /** Log entries no call of the workload explains. */
  unexplainedMutations: string[];
  /** Log entries, and the calls that aimed at a target. */
  mutationsLogged: number;
  mutatingCalls: number;
  rssStartMb: number;
  rssEndMb: number;
  rssGrowthMb: number;
  rssPeakMb: number;
  /** Faults the sandbox injected, by kind, and by front end (native API, S3 API). */
  injected: Record<string, number>;
  faultedRequests: { native: number; s3: number };
  /** Server stderr lines that are not warn-level JSON logs (stack traces, unhandled rejections, error logs). */
  stderrProblems: string[];
  records: CallRecord[];
  seconds: number;
}

/** The sandbox operation a mutating call is logged under, and the target it names. */
interface Target {
  operation: string;
  name: string;
  /** A successful call certainly adds exactly one log entry (deletes of absent objects do not). */
  certain: boolean;
}

interface Signature {
  attempts: number;
  successes: number;
  certain: boolean;
}

interface MutationEntry {
  seq: number;
  operation: string;
  fileName?: string;
  bucketName?: string;
  applicationKeyId?: string;
  memberAccountId?: string;
}

/** Resident memory of a live process in MB (Linux /proc); NaN once it is gone. */
function readRss(pid: number | null, field: 'VmRSS' | 'VmHWM'): number {
  if (pid === null) return Number.NaN;
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

const round = (value: number): number => Math.round(value * 10) / 10;

async function admin<T>(sandbox: RunningSandbox, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${sandbox.adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${sandbox.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`sandbox admin ${method} ${path}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** The built server on stdio, pointed at the sandbox; stderr is collected, unexpected exits counted. */
class ServerConnection {
  client!: Client;
  transport!: StdioClientTransport;
  stderr = '';
  closed = false;
  /** Times the server went away without being asked to. */
  crashes = 0;
  private closing = false;

  constructor(private readonly env: Record<string, string>) {}

  async open(): Promise<void> {
    this.closed = false;
    this.transport = new StdioClientTransport({ command: process.execPath, args: [SERVER, 'stdio'], env: this.env, stderr: 'pipe' });
    this.transport.stderr?.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.client = new Client({ name: 'fault-soak', version: '1' });
    this.client.onclose = () => {
      this.closed = true;
      if (!this.closing) this.crashes += 1;
    };
    await this.client.connect(this.transport);
  }

  get pid(): number | null {
    return this.closed ? null : this.transport.pid;
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.client.close();
  }
}

/**
 * Lines of server stderr that signal trouble: anything but a JSON log line at an allowed level
 * (a raw stack trace, an unhandled rejection, a Node warning, an error log).
 */
export function stderrProblems(stderr: string, allowedLevels: readonly string[] = ['warn']): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter((line) => {
      try {
        const record = JSON.parse(line) as { level?: unknown };
        return !allowedLevels.includes(String(record.level));
      } catch {
        return true;
      }
    })
    .map((line) => line.slice(0, 300));
}

interface Setup {
  assetsBucketId: string;
  groupId: string;
  smallKey: string;
  unfinished: { key: string; uploadId: string };
  lockedFiles: Array<{ fileId: string; fileName: string }>;
}

/** What every lane shares: the connection, counters and the target bookkeeping. */
class Workload {
  readonly records: CallRecord[] = [];
  readonly signatures = new Map<string, Signature>();
  /** Names of keys the workload created, by key id (resolved right after each creation). */
  readonly keyNames = new Map<string, string>();
  private issued = 0;
  private readIndex = 0;
  rssStartMb = Number.NaN;
  private reconnecting: Promise<void> | undefined;

  constructor(
    readonly sandbox: RunningSandbox,
    readonly connection: ServerConnection,
    readonly reads: Array<[string, Record<string, unknown>]>,
    private readonly total: number,
    private readonly warmUpCalls: number,
  ) {}

  get exhausted(): boolean {
    return this.issued >= this.total;
  }

  /** One tool call, classified; undefined when the call budget is spent. */
  async call(
    tool: string,
    args: Record<string, unknown>,
    options: { read?: boolean; target?: Target; repeat?: boolean } = {},
  ): Promise<Record<string, unknown> | undefined> {
    if (this.exhausted) return undefined;
    this.issued += 1;
    const signature = options.target ? this.signature(options.target) : undefined;
    if (signature && !options.repeat) signature.attempts += 1;
    const started = performance.now();
    let record: CallRecord;
    let result: Record<string, unknown> | undefined;
    try {
      if (this.connection.closed) await this.reconnect();
      result = (await this.connection.client.callTool({ name: tool, arguments: args }, { timeout: 120_000 })) as Record<string, unknown>;
      const text = ((result.content as Array<{ text?: string }> | undefined)?.[0]?.text ?? '').slice(0, 300);
      const shape = TOOL_ERROR_SHAPE.exec(text);
      const outcome = !result.isError ? 'ok' : shape && !text.includes(UNEXPECTED) ? 'clear_error' : 'unclear';
      record = {
        tool,
        read: options.read ?? false,
        outcome,
        text,
        ms: performance.now() - started,
        ...(result.isError && shape ? { code: shape[1]! } : {}),
      };
      if (outcome === 'ok' && signature) signature.successes += 1;
    } catch (error) {
      record = {
        tool,
        read: options.read ?? false,
        outcome: 'unclear',
        text: `client: ${(error as Error).message}`.slice(0, 300),
        ms: performance.now() - started,
      };
      result = undefined;
    }
    this.records.push(record);
    if (this.records.length === this.warmUpCalls) this.rssStartMb = readRss(this.connection.pid, 'VmRSS');
    return record.outcome === 'ok' ? result : undefined;
  }

  /** The next read tool in rotation. */
  async read(): Promise<void> {
    const [tool, args] = this.reads[this.readIndex++ % this.reads.length]!;
    await this.call(tool, args, { read: true });
  }

  /** Every key creation in the log so far, resolved to the key's name while the key still exists. */
  resolveKeyNames(): void {
    for (const entry of this.sandbox.store.mutations.list()) {
      if (entry.operation !== 'b2_create_key' || !entry.applicationKeyId || this.keyNames.has(entry.applicationKeyId)) continue;
      const key = this.sandbox.store.getKey(entry.applicationKeyId);
      if (key) this.keyNames.set(entry.applicationKeyId, key.keyName);
    }
  }

  private signature(target: Target): Signature {
    const id = `${target.operation}|${target.name}`;
    let signature = this.signatures.get(id);
    if (!signature) {
      signature = { attempts: 0, successes: 0, certain: target.certain };
      this.signatures.set(id, signature);
    }
    return signature;
  }

  private reconnect(): Promise<void> {
    this.reconnecting ??= this.connection.open().finally(() => (this.reconnecting = undefined));
    return this.reconnecting;
  }
}

const structured = (result: Record<string, unknown> | undefined): Record<string, unknown> | undefined =>
  result?.structuredContent as Record<string, unknown> | undefined;

/**
 * A secret-producing creation (gated, confirmed). When it fails, the caller repeats it once with
 * the same idempotency key, as a model would: that must never create a second one.
 */
async function createWithSecret(
  work: Workload,
  tool: string,
  args: Record<string, unknown>,
  name: string,
): Promise<Record<string, unknown> | undefined> {
  const target: Target = { operation: tool, name, certain: true };
  let created = structured(await work.call(tool, { ...args, confirm: true }, { target }));
  work.resolveKeyNames();
  if (!created && !work.exhausted) {
    created = structured(await work.call(tool, { ...args, confirm: true }, { target, repeat: true }));
    work.resolveKeyNames();
  }
  await work.read();
  return created;
}

/** One cycle of one lane: every mutating tool once (against its own targets), a read after each step. */
async function cycle(work: Workload, setup: Setup, lane: number, round: number, runId: string): Promise<void> {
  const tag = `${runId}-l${lane}c${round}`;
  const bucketName = `soak-${tag}`;
  const prefix = `soak/${tag}`;
  const content = Buffer.from(`fault soak ${tag}\n`).toString('base64');
  const locked = setup.lockedFiles[lane % setup.lockedFiles.length]!;
  const step = async (tool: string, args: Record<string, unknown>, target?: Target) => {
    const result = await work.call(tool, args, target ? { target } : {});
    await work.read();
    return result;
  };

  const created = structured(
    await step(
      'b2_create_bucket',
      { bucketName, bucketType: 'allPrivate' },
      { operation: 'b2_create_bucket', name: bucketName, certain: true },
    ),
  );
  const bucketId = created?.bucketId as string | undefined;
  if (bucketId) {
    await step(
      'b2_update_bucket',
      { bucketId, bucketInfo: { soak: tag }, confirm: true },
      { operation: 'b2_update_bucket', name: bucketName, certain: true },
    );
    await step(
      'b2_set_bucket_notification_rules',
      { bucketId, eventNotificationRules: [], confirm: true },
      { operation: 'b2_set_bucket_notification_rules', name: bucketName, certain: true },
    );
    await step(
      's3_put_bucket_lifecycle',
      {
        bucket: bucketName,
        rules: [{ id: 'expire-tmp', status: 'Enabled', filter: { prefix: 'tmp/' }, expiration: { days: 30 } }],
        confirm: true,
      },
      { operation: 'PutBucketLifecycleConfiguration', name: bucketName, certain: true },
    );
  }

  const put = await step(
    's3_put_object',
    { bucket: ASSETS, key: `${prefix}/a.txt`, content, contentType: 'text/plain' },
    { operation: 'PutObject', name: `${prefix}/a.txt`, certain: true },
  );
  const copied = put
    ? await step(
        's3_copy_object',
        { sourceBucket: ASSETS, sourceKey: `${prefix}/a.txt`, destinationBucket: ASSETS, destinationKey: `${prefix}/b.txt` },
        { operation: 'CopyObject', name: `${prefix}/b.txt`, certain: true },
      )
    : undefined;

  const multipartKey = `${prefix}/multipart.bin`;
  const upload = structured(
    await step(
      's3_create_multipart_upload',
      { bucket: ASSETS, key: multipartKey },
      { operation: 'CreateMultipartUpload', name: multipartKey, certain: true },
    ),
  );
  const uploadId = upload?.uploadId as string | undefined;
  if (uploadId && put && round % 2 === 0) {
    const part = structured(
      await step(
        's3_upload_part_copy',
        { bucket: ASSETS, key: multipartKey, uploadId, partNumber: 1, copySource: `${ASSETS}/${prefix}/a.txt` },
        { operation: 'UploadPartCopy', name: multipartKey, certain: true },
      ),
    );
    if (part?.etag) {
      await step(
        's3_complete_multipart_upload',
        { bucket: ASSETS, key: multipartKey, uploadId, parts: [{ partNumber: 1, etag: part.etag }] },
        { operation: 'CompleteMultipartUpload', name: multipartKey, certain: true },
      );
    }
  } else if (uploadId) {
    await step(
      's3_abort_multipart_upload',
      { bucket: ASSETS, key: multipartKey, uploadId, confirm: true },
      { operation: 'AbortMultipartUpload', name: multipartKey, certain: true },
    );
  }

  await step(
    's3_delete_object',
    { bucket: ASSETS, key: `${prefix}/b.txt`, confirm: true },
    { operation: 'DeleteObject', name: `${prefix}/b.txt`, certain: copied !== undefined },
  );
  await step(
    's3_delete_objects',
    { bucket: ASSETS, objects: [{ key: `${prefix}/a.txt` }], confirm: true },
    { operation: 'DeleteObjects', name: `${prefix}/a.txt`, certain: false },
  );

  // Shared per lane: idempotent settings whose log entries must still match the calls one to one.
  await step(
    'b2_update_file_legal_hold',
    { ...locked, legalHold: round % 2 === 0 ? 'on' : 'off', confirm: true },
    { operation: 'b2_update_file_legal_hold', name: locked.fileName, certain: true },
  );
  await step(
    'b2_update_file_retention',
    {
      ...locked,
      fileRetention: { mode: 'governance', retainUntilTimestamp: work.sandbox.store.now() + 60 * 86_400_000 + round * 1000 },
      confirm: true,
    },
    { operation: 'b2_update_file_retention', name: locked.fileName, certain: true },
  );

  const key = await createWithSecret(
    work,
    'b2_create_key',
    { keyName: `soak-key-${tag}`, capabilities: ['listBuckets', 'listFiles'], idempotencyKey: `key-${tag}` },
    `soak-key-${tag}`,
  );
  const applicationKeyId = key?.applicationKeyId as string | undefined;
  if (applicationKeyId)
    await step(
      'b2_delete_key',
      { applicationKeyId, confirm: true },
      { operation: 'b2_delete_key', name: `soak-key-${tag}`, certain: true },
    );

  const adminAccountId = work.sandbox.accountId;
  const memberEmail = `member-${tag}@soak.example.com`;
  const member = await createWithSecret(
    work,
    'b2_create_group_member',
    { adminAccountId, groupId: setup.groupId, memberEmail, idempotencyKey: `member-${tag}` },
    memberEmail,
  );
  const memberAccountId = (member?.groupMember as { accountId?: unknown } | undefined)?.accountId;
  if (typeof memberAccountId === 'string') {
    await step(
      'b2_eject_group_member',
      { adminAccountId, groupId: setup.groupId, memberAccountId, confirm: true },
      { operation: 'b2_eject_group_member', name: memberEmail, certain: true },
    );
  }
  if (round % 4 === 0) {
    const email = `trial-${tag}@soak.example.com`;
    await createWithSecret(work, 'b2_reserve_trial_create_account', { email, term: 7, storage: 1, idempotencyKey: `trial-${tag}` }, email);
  }

  if (bucketId)
    await step('b2_delete_bucket', { bucketId, confirm: true }, { operation: 'b2_delete_bucket', name: bucketName, certain: true });
}

/** The name a log entry is matched on: the object, the key's name, the bucket, or the member. */
function entryName(entry: MutationEntry, keyNames: Map<string, string>, accountEmails: Map<string, string>): string {
  if (entry.fileName !== undefined) return entry.fileName;
  if (entry.applicationKeyId !== undefined) return keyNames.get(entry.applicationKeyId) ?? `key:${entry.applicationKeyId}`;
  if (entry.memberAccountId !== undefined) return accountEmails.get(entry.memberAccountId) ?? `account:${entry.memberAccountId}`;
  return entry.bucketName ?? '?';
}

/** Group members and trial accounts by account id (the sandbox keeps them, ejected or not). */
function accountEmails(sandbox: RunningSandbox): Map<string, string> {
  const emails = new Map<string, string>();
  for (const group of sandbox.store.listGroups()) for (const member of group.members) emails.set(member.accountId, member.email);
  for (const trial of sandbox.store.internals().trials) emails.set(trial.accountId, trial.email);
  return emails;
}

async function prepare(sandbox: RunningSandbox): Promise<Setup> {
  const assets = sandbox.store.findBucketByName(ASSETS)!;
  const groupId = sandbox.store.listGroups()[0]!.groupId;
  const unfinished = sandbox.store.listUnfinishedLargeFiles(assets.bucketId, { maxFileCount: 1 }).files[0]!;
  const lockedFiles: Setup['lockedFiles'] = [];
  for (let n = 0; n < 8; n++) {
    lockedFiles.push(
      await admin<{ fileId: string; fileName: string }>(sandbox, 'POST', '/files', {
        bucketName: LOCKED,
        fileName: `soak/locked-${n}.txt`,
        text: `locked ${n}`,
      }),
    );
  }
  return {
    assetsBucketId: assets.bucketId,
    groupId,
    smallKey: 'docs/readme.txt',
    unfinished: { key: unfinished.fileName, uploadId: unfinished.fileId },
    lockedFiles: lockedFiles.map(({ fileId, fileName }) => ({ fileId, fileName })),
  };
}

function readTools(sandbox: RunningSandbox, setup: Setup): Array<[string, Record<string, unknown>]> {
  const adminAccountId = sandbox.accountId;
  return [
    ['b2_authorize_account', {}],
    ['b2_list_buckets', {}],
    ['b2_list_keys', { maxKeyCount: 50 }],
    ['b2_get_bucket_notification_rules', { bucketId: setup.assetsBucketId }],
    ['b2_list_groups', { adminAccountId }],
    ['b2_list_group_members', { adminAccountId, groupId: setup.groupId }],
    ['b2_list_largest_files', { bucket: ASSETS, limit: 5 }],
    ['b2_unfinished_uploads', { bucket: ASSETS }],
    ['b2_rank_egress_leaders', { days: 7, limit: 5 }],
    ['b2_report_usage_growth', { days: 30, limit: 5 }],
    ['s3_get_bucket_location', { bucket: ASSETS }],
    ['s3_head_bucket', { bucket: ASSETS }],
    ['s3_head_object', { bucket: ASSETS, key: setup.smallKey }],
    ['s3_get_object', { bucket: ASSETS, key: setup.smallKey }],
    ['s3_list_objects_v2', { bucket: ASSETS, maxKeys: 50 }],
    ['s3_list_object_versions', { bucket: ASSETS, maxKeys: 50 }],
    ['s3_list_multipart_uploads', { bucket: ASSETS }],
    ['s3_list_parts', { bucket: ASSETS, key: setup.unfinished.key, uploadId: setup.unfinished.uploadId }],
    ['s3_get_presigned_url', { bucket: ASSETS, key: setup.smallKey, operation: 'GetObject' }],
    [
      's3_get_presigned_upload_part_url',
      { bucket: ASSETS, key: setup.unfinished.key, uploadId: setup.unfinished.uploadId, partNumbers: [1, 2] },
    ],
  ];
}

/** Runs the workload; the sandbox and server are started and stopped here. */
export async function runFaultSoak(options: FaultSoakOptions): Promise<FaultSoakReport> {
  const started = performance.now();
  const sandbox = await startSandbox({ seed: 'demo', idSalt: 'fault-soak' });
  let connection: ServerConnection | undefined;
  try {
    const key = await admin<{ applicationKeyId: string; applicationKey: string }>(sandbox, 'POST', '/keys', {
      keyName: 'fault-soak',
      capabilities: [...B2_CAPABILITIES],
    });
    connection = new ServerConnection({
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      LOG_LEVEL: 'warn',
      B2_MCP_PROFILE: 'full',
      B2_API_URL: sandbox.apiUrl,
      B2_APPLICATION_KEY_ID: key.applicationKeyId,
      B2_APPLICATION_KEY: key.applicationKey,
      B2_MASTER_KEY_ID: sandbox.applicationKeyId,
      B2_MASTER_KEY: sandbox.applicationKey,
      B2_DESTRUCTIVE_POLICY: 'confirm',
      B2_SECRET_SINK: 'inline',
    });
    await connection.open();
    const setup = await prepare(sandbox);
    const work = new Workload(
      sandbox,
      connection,
      readTools(sandbox, setup),
      options.calls,
      options.warmUpCalls ?? Math.min(200, Math.floor(options.calls / 10)),
    );
    const logStart = sandbox.store.mutations.list().at(-1)?.seq ?? 0;
    await admin(sandbox, 'PUT', '/faults', { spec: options.faults });

    const runId = Date.now().toString(36);
    const lane = async (index: number): Promise<void> => {
      for (let round = 0; !work.exhausted; round++) await cycle(work, setup, index, round, runId);
    };
    await Promise.all(Array.from({ length: options.lanes ?? 4 }, (_, index) => lane(index)));

    const injected = (await admin<{ injected: Record<string, number> }>(sandbox, 'GET', '/faults')).injected;
    const faulted = (
      await admin<{ requests: Array<{ api: 'native' | 's3'; fault?: string }> }>(sandbox, 'GET', '/requests')
    ).requests.filter((r) => r.fault);
    const faultedRequests = { native: faulted.filter((r) => r.api === 'native').length, s3: faulted.filter((r) => r.api === 's3').length };
    await admin(sandbox, 'DELETE', '/faults');
    const rssEndMb = readRss(connection.pid, 'VmRSS');
    const rssPeakMb = readRss(connection.pid, 'VmHWM');

    work.resolveKeyNames();
    const logged = (await admin<{ mutations: MutationEntry[] }>(sandbox, 'GET', `/mutations?since=${logStart}`)).mutations;
    const emails = accountEmails(sandbox);
    const counts = new Map<string, number>();
    for (const entry of logged) {
      const id = `${entry.operation}|${entryName(entry, work.keyNames, emails)}`;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    let duplicateMutations = 0;
    let missingMutations = 0;
    let appliedButFailed = 0;
    const unexplainedMutations: string[] = [];
    for (const [id, count] of counts) {
      const signature = work.signatures.get(id);
      if (!signature) unexplainedMutations.push(id);
      else {
        duplicateMutations += Math.max(0, count - signature.attempts);
        appliedButFailed += Math.max(0, Math.min(count, signature.attempts) - signature.successes);
      }
    }
    for (const [id, signature] of work.signatures) {
      if (signature.certain) missingMutations += Math.max(0, signature.successes - (counts.get(id) ?? 0));
    }

    const rssStartMb = Number.isNaN(work.rssStartMb) ? rssEndMb : work.rssStartMb;
    const tally = (outcome: CallRecord['outcome']) => work.records.filter((r) => r.outcome === outcome).length;
    return {
      calls: work.records.length,
      ok: tally('ok'),
      clearErrors: tally('clear_error'),
      unclear: tally('unclear'),
      crashes: connection.crashes,
      duplicateMutations,
      missingMutations,
      appliedButFailed,
      unexplainedMutations,
      mutationsLogged: logged.length,
      mutatingCalls: [...work.signatures.values()].reduce((sum, s) => sum + s.attempts, 0),
      rssStartMb: round(rssStartMb),
      rssEndMb: round(rssEndMb),
      rssGrowthMb: round(rssEndMb - rssStartMb),
      rssPeakMb: round(rssPeakMb),
      injected,
      faultedRequests,
      stderrProblems: stderrProblems(connection.stderr),
      records: work.records,
      seconds: round((performance.now() - started) / 1000),
    };
  } finally {
    await connection?.close().catch(() => undefined);
    await sandbox.close();
  }
}
