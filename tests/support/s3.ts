/** S3-test helpers on top of the sandbox harness: an adapter for a key, and admin-log readers. */
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { createS3Adapter, type S3Adapter } from '../../src/server/s3/adapter.js';
import { adminCall, type SandboxKey } from './sandbox-harness.js';

/** Everything the data-plane tools touch. */
export const DATA_CAPABILITIES = [
  'listBuckets',
  'readBuckets',
  'writeBuckets',
  'listFiles',
  'readFiles',
  'writeFiles',
  'deleteFiles',
  'readFileLegalHolds',
  'writeFileLegalHolds',
  'readFileRetentions',
  'writeFileRetentions',
  'bypassGovernance',
];

export function adapterFor(sandbox: RunningSandbox, key: SandboxKey): S3Adapter {
  return createS3Adapter({
    endpoint: sandbox.s3Url,
    region: 'us-west-004',
    accessKeyId: key.applicationKeyId,
    secretAccessKey: key.applicationKey,
  });
}

export interface LoggedMutation {
  seq: number;
  api: string;
  operation: string;
  fileName?: string;
}

export async function mutationsSince(sandbox: RunningSandbox, since: number): Promise<LoggedMutation[]> {
  return (await adminCall<{ mutations: LoggedMutation[] }>(sandbox, 'GET', `/mutations?since=${since}`)).mutations;
}

export async function lastMutationSeq(sandbox: RunningSandbox): Promise<number> {
  return (await mutationsSince(sandbox, 0)).at(-1)?.seq ?? 0;
}

export interface LoggedRequest {
  seq: number;
  api: string;
  operation: string;
  status: number;
}

export async function requestsSince(sandbox: RunningSandbox, since: number): Promise<LoggedRequest[]> {
  return (await adminCall<{ requests: LoggedRequest[] }>(sandbox, 'GET', `/requests?since=${since}`)).requests;
}

export async function lastRequestSeq(sandbox: RunningSandbox): Promise<number> {
  return (await requestsSince(sandbox, 0)).at(-1)?.seq ?? 0;
}

export function advanceClock(sandbox: RunningSandbox, ms: number): Promise<unknown> {
  return adminCall(sandbox, 'POST', '/clock', { advanceMs: ms });
}

/** A file added behind the APIs' backs (the admin API), as a native upload would. */
export function addFile(sandbox: RunningSandbox, bucketName: string, fileName: string, text: string): Promise<{ fileId: string }> {
  return adminCall(sandbox, 'POST', '/files', { bucketName, fileName, text, contentType: 'text/plain' });
}

export async function collect(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}
