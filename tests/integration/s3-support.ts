/** Shared set-up for the S3 tests: a sandbox, application keys made through its admin API, and log readers. */
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { createS3Adapter, type S3Adapter } from '../../src/server/s3/adapter.js';

export const FULL_DATA_CAPABILITIES = [
  'listBuckets', 'readBuckets', 'writeBuckets', 'listFiles', 'readFiles', 'writeFiles', 'deleteFiles',
  'readFileLegalHolds', 'writeFileLegalHolds', 'readFileRetentions', 'writeFileRetentions', 'bypassGovernance',
];

export interface AppKey {
  applicationKeyId: string;
  applicationKey: string;
}

async function admin<T>(sandbox: RunningSandbox, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${sandbox.adminUrl}${path}`, {
    method,
    ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
  });
  const json = (await response.json()) as T;
  if (!response.ok) throw new Error(`admin ${method} ${path}: ${JSON.stringify(json)}`);
  return json;
}

/** An application key made through the admin API (S3 refuses the master key). */
export function createKey(sandbox: RunningSandbox, capabilities = FULL_DATA_CAPABILITIES, extra: Record<string, unknown> = {}): Promise<AppKey> {
  return admin<AppKey>(sandbox, 'POST', '/keys', { keyName: 's3-tests', capabilities, ...extra });
}

export function adapterFor(sandbox: RunningSandbox, key: AppKey): S3Adapter {
  return createS3Adapter({ endpoint: sandbox.s3Url, region: 'us-west-004', accessKeyId: key.applicationKeyId, secretAccessKey: key.applicationKey });
}

export interface Mutation {
  seq: number;
  api: string;
  operation: string;
  fileName?: string;
  uploadId?: string;
}

export async function mutationsSince(sandbox: RunningSandbox, since: number): Promise<Mutation[]> {
  return (await admin<{ mutations: Mutation[] }>(sandbox, 'GET', `/mutations?since=${since}`)).mutations;
}

export async function lastMutationSeq(sandbox: RunningSandbox): Promise<number> {
  const all = await mutationsSince(sandbox, 0);
  return all.length ? all[all.length - 1]!.seq : 0;
}

export async function requestsSince(sandbox: RunningSandbox, since: number): Promise<Array<{ seq: number; api: string; operation: string; status: number }>> {
  return (await admin<{ requests: Array<{ seq: number; api: string; operation: string; status: number }> }>(sandbox, 'GET', `/requests?since=${since}`)).requests;
}

export async function lastRequestSeq(sandbox: RunningSandbox): Promise<number> {
  const all = await requestsSince(sandbox, 0);
  return all.length ? all[all.length - 1]!.seq : 0;
}

export function advanceClock(sandbox: RunningSandbox, ms: number): Promise<unknown> {
  return admin(sandbox, 'POST', '/clock', { advanceMs: ms });
}

export function addFile(sandbox: RunningSandbox, bucketName: string, fileName: string, text: string): Promise<{ fileId: string }> {
  return admin(sandbox, 'POST', '/files', { bucketName, fileName, text, contentType: 'text/plain' });
}

export async function collect(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

export { startSandbox, type RunningSandbox };
