/**
 * Defects the fault soak turned up, replayed deterministically:
 * - b2_unfinished_uploads failed as a whole (400 bad_request from b2_list_parts) when a concurrent
 *   call completed or aborted one of the uploads between the listing and the parts request;
 * - a reset S3 connection was reported as a timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { listUnfinishedUploads } from '../../src/server/analytics/unfinished-uploads.js';
import { B2ApiError } from '../../src/server/b2/errors.js';
import { createB2NativeClient } from '../../src/server/b2/native-client.js';
import { createS3Adapter } from '../../src/server/s3/adapter.js';
import { s3ErrorFrom } from '../../src/server/s3/errors.js';
import { adminCall, createKey, startTestSandbox } from '../support/sandbox-harness.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox();
});

afterAll(async () => {
  await sandbox?.close();
});

describe('b2_unfinished_uploads while uploads finish concurrently', () => {
  it('leaves out an upload cancelled between the listing and its parts, and reports the rest exactly', async () => {
    const bucket = sandbox.store.findBucketByName('demo-private-assets')!;
    const doomed = sandbox.store.startLargeFile(bucket.bucketId, { fileName: 'race/doomed.bin', contentType: 'application/octet-stream' });
    const client = createB2NativeClient({
      apiUrl: sandbox.apiUrl,
      applicationKeyId: sandbox.applicationKeyId,
      applicationKey: sandbox.applicationKey,
      retry: { maxAttempts: 1 },
    });
    const cancelledMidScan: typeof client = Object.create(client);
    cancelledMidScan.listUnfinishedLargeFiles = async (request, options) => {
      const page = await client.listUnfinishedLargeFiles(request, options);
      // Another caller finishes the job after B2 produced the listing.
      if (page.files.some((file) => file.fileId === doomed.fileId)) sandbox.store.cancelLargeFile(doomed.fileId);
      return page;
    };

    const result = await listUnfinishedUploads(cancelledMidScan, {
      bucketName: 'demo-private-assets',
      maxUploads: 1000,
      signal: new AbortController().signal,
    });
    const reference = await listUnfinishedUploads(client, {
      bucketName: 'demo-private-assets',
      maxUploads: 1000,
      signal: new AbortController().signal,
    });

    expect(result.uploads.map((upload) => upload.file_id)).not.toContain(doomed.fileId);
    expect(result.uploads).toEqual(reference.uploads);
    expect(result.upload_count).toBeGreaterThan(0);
    expect(result.wasted_bytes).toBe(reference.wasted_bytes);
    expect(result.truncated).toBe(false);
  });

  it('still fails clearly when listing parts fails for another reason', async () => {
    const client = createB2NativeClient({
      apiUrl: sandbox.apiUrl,
      applicationKeyId: sandbox.applicationKeyId,
      applicationKey: sandbox.applicationKey,
      retry: { maxAttempts: 1 },
    });
    const broken: typeof client = Object.create(client);
    broken.listParts = async () => {
      throw new B2ApiError(500, 'internal_error', 'boom', 'b2_list_parts');
    };
    await expect(
      listUnfinishedUploads(broken, { bucketName: 'demo-private-assets', maxUploads: 1000, signal: new AbortController().signal }),
    ).rejects.toMatchObject({
      status: 500,
      code: 'internal_error',
    });
  });
});

describe('S3 transport failures under injected faults', () => {
  it('a connection the endpoint drops is a network_error, not a timeout (the SDK names both TimeoutError)', async () => {
    const key = await createKey(sandbox, { capabilities: ['listBuckets', 'listFiles', 'readFiles'] });
    const adapter = createS3Adapter({
      endpoint: sandbox.s3Url,
      region: 'us-west-004',
      accessKeyId: key.applicationKeyId,
      secretAccessKey: key.applicationKey,
    });
    await adminCall(sandbox, 'PUT', '/faults', { spec: 'rate=1,kinds=reset,ops=ListObjectsV2' });
    try {
      await expect(adapter.listObjectsV2({ bucket: 'demo-private-assets', maxKeys: 1 })).rejects.toMatchObject({
        status: 503,
        code: 'network_error',
      });
    } finally {
      await adminCall(sandbox, 'DELETE', '/faults');
    }
    expect(s3ErrorFrom({ name: 'TimeoutError', code: 'ETIMEDOUT', message: 'timed out', $metadata: {} })).toMatchObject({
      status: 504,
      code: 'request_timeout',
    });
  });
});
