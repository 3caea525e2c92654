import { compareCodeUnits } from '../../contract/normalize.js';
import { accountTools } from './account.js';
import { analyticsTools } from './analytics.js';
import { bucketTools } from './buckets.js';
import type { ToolDefinition } from './definition.js';
import { fileTools } from './files.js';
import { keyTools } from './keys.js';
import { partnerTools } from './partner.js';
import { s3BucketTools } from './s3-buckets.js';
import { s3MultipartTools } from './s3-multipart.js';
import { s3ObjectTools } from './s3-objects.js';
import { s3PresignTools } from './s3-presign.js';

/** Every tool of the full surface, grouped by domain in the files above, sorted by name here. */
export const TOOL_CATALOG: readonly ToolDefinition[] = [
  ...accountTools,
  ...bucketTools,
  ...keyTools,
  ...fileTools,
  ...partnerTools,
  ...analyticsTools,
  ...s3ObjectTools,
  ...s3BucketTools,
  ...s3MultipartTools,
  ...s3PresignTools,
].sort((a, b) => compareCodeUnits(a.name, b.name));

const seen = new Set<string>();
for (const tool of TOOL_CATALOG) {
  if (seen.has(tool.name)) throw new Error(`Duplicate tool definition: ${tool.name}`);
  seen.add(tool.name);
}
