import type { CallOptions } from '../b2/native-client.js';
import type { B2Bucket, B2ListBucketsRequest } from '../b2/types.js';
import { ToolError } from '../errors.js';

export interface BucketLookupApi {
  listBuckets(request?: B2ListBucketsRequest, options?: CallOptions): Promise<{ buckets: B2Bucket[] }>;
}

/** The bucket with this exact name, or `undefined` when the key sees none. */
export async function findBucketByName(api: BucketLookupApi, bucketName: string, options: CallOptions): Promise<B2Bucket | undefined> {
  const { buckets } = await api.listBuckets({ bucketName }, options);
  return buckets.find((bucket) => bucket.bucketName === bucketName);
}

/** The bucket with this exact name; a 404 tool error when the key sees none. */
export async function requireBucketByName(api: BucketLookupApi, bucketName: string, options: CallOptions): Promise<B2Bucket> {
  const bucket = await findBucketByName(api, bucketName, options);
  if (!bucket) throw new ToolError(404, 'bucket_not_found', `No bucket named ${JSON.stringify(bucketName)} is visible to this key.`);
  return bucket;
}
