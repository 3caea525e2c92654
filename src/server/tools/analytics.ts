import type { ToolDefinition } from './definition.js';
import { pendingHandler } from './pending.js';
import { integer, oneOf, string } from './schema.js';

const bucket = string({ minLength: 1, description: 'Bucket name.' });

export const analyticsTools: ToolDefinition[] = [
  {
    name: 'b2_list_largest_files',
    title: 'List largest files',
    description: 'Find the largest file versions in a bucket by scanning its listing (bounded by max_scan and a time budget; says truncated when a bound stops it). Never reads content.',
    input: {
      properties: {
        bucket,
        prefix: string(),
        limit: integer(1, 100, { default: 10 }),
        max_scan: integer(1000, 500000, { default: 50000 }),
      },
      required: ['bucket'],
    },
    backing: 'customMcp',
    capabilities: ['listFiles'],
    effect: 'read',
    handler: pendingHandler('b2_list_largest_files'),
  },
  {
    name: 'b2_unfinished_uploads',
    title: 'Unfinished large uploads',
    description: 'List unfinished large-file uploads in a bucket and the bytes they waste (a lower bound when capped).',
    input: {
      properties: {
        bucket,
        older_than_days: integer(0, 36500),
        max_uploads: integer(1, 10000, { default: 1000 }),
      },
      required: ['bucket'],
    },
    backing: 'customMcp',
    capabilities: ['listFiles'],
    effect: 'read',
    handler: pendingHandler('b2_unfinished_uploads'),
  },
  {
    name: 'b2_rank_egress_leaders',
    title: 'Rank egress leaders',
    description: 'Rank accounts or buckets by download egress from the daily usage reports in bucket b2-reports-<accountId> (GB = 1e9 bytes).',
    input: {
      properties: {
        by: oneOf(['account', 'bucket'], { default: 'account' }),
        days: integer(1, 90),
        limit: integer(1, 1000, { default: 15 }),
      },
    },
    backing: 'customMcp',
    capabilities: ['readFiles'],
    effect: 'read',
    handler: pendingHandler('b2_rank_egress_leaders'),
  },
  {
    name: 'b2_report_usage_growth',
    title: 'Report usage growth',
    description: 'Report storage growth per bucket over a period from the daily usage reports in bucket b2-reports-<accountId> (GB = 1e9 bytes).',
    input: {
      properties: {
        period: oneOf(['month', 'quarter', 'year'], { default: 'month' }),
        days: integer(1, 3650),
        order: oneOf(['most_grown', 'least_grown', 'shrinking'], { default: 'most_grown' }),
        limit: integer(1, 1000, { default: 50 }),
      },
    },
    backing: 'customMcp',
    capabilities: ['readFiles'],
    effect: 'read',
    handler: pendingHandler('b2_report_usage_growth'),
  },
];
