import type { EgressGrouping } from '../analytics/egress-leaders.js';
import type { GrowthOrder, GrowthPeriod } from '../analytics/usage-growth.js';
import type { ToolDefinition, ToolHandler } from './definition.js';
import { integer, oneOf, string, type ToolArgs } from './schema.js';

const bucket = string({ minLength: 1 });

// The analytics (and the CSV parser behind the usage reports) load on first use: listing tools
// and starting the server must not pay for them.

type Args<T> = ToolArgs & T;

const largestFiles: ToolHandler = async (args, context) => {
  const a = args as Args<{ bucket: string; prefix?: string; limit?: number; max_scan?: number }>;
  return {
    structured: await (await import('../analytics/largest-files.js')).listLargestFiles(context.b2(), {
      bucketName: a.bucket,
      prefix: a.prefix,
      limit: a.limit ?? 10,
      maxScan: a.max_scan ?? 50_000,
      signal: context.signal,
    }),
  };
};

const unfinishedUploads: ToolHandler = async (args, context) => {
  const a = args as Args<{ bucket: string; older_than_days?: number; max_uploads?: number }>;
  return {
    structured: await (await import('../analytics/unfinished-uploads.js')).listUnfinishedUploads(context.b2(), {
      bucketName: a.bucket,
      olderThanDays: a.older_than_days,
      maxUploads: a.max_uploads ?? 1000,
      signal: context.signal,
    }),
  };
};

const egressLeaders: ToolHandler = async (args, context) => {
  const a = args as Args<{ by?: EgressGrouping; days?: number; limit?: number }>;
  return {
    structured: await (await import('../analytics/egress-leaders.js')).rankEgressLeaders(context.b2(), { by: a.by ?? 'account', days: a.days, limit: a.limit ?? 15, signal: context.signal }),
  };
};

const usageGrowth: ToolHandler = async (args, context) => {
  const a = args as Args<{ period?: GrowthPeriod; days?: number; order?: GrowthOrder; limit?: number }>;
  return {
    structured: await (await import('../analytics/usage-growth.js')).reportUsageGrowth(context.b2(), {
      period: a.period ?? 'month',
      days: a.days,
      order: a.order ?? 'most_grown',
      limit: a.limit ?? 50,
      signal: context.signal,
    }),
  };
};

export const analyticsTools: ToolDefinition[] = [
  {
    name: 'b2_list_largest_files',
    title: 'List largest files',
    description: 'Find a bucket\'s largest file versions from its listing, within max_scan and a time budget (truncated when one stops it); never reads content.',
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
    handler: largestFiles,
  },
  {
    name: 'b2_unfinished_uploads',
    title: 'Unfinished large uploads',
    description: 'List a bucket\'s unfinished large-file uploads and the bytes they hold (a lower bound when capped).',
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
    handler: unfinishedUploads,
  },
  {
    name: 'b2_rank_egress_leaders',
    title: 'Rank egress leaders',
    description: 'Rank accounts or buckets by download egress, from the daily usage reports in b2-reports-<accountId> (GB = 1e9 bytes).',
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
    handler: egressLeaders,
  },
  {
    name: 'b2_report_usage_growth',
    title: 'Report usage growth',
    description: 'Report storage growth per bucket over a period, from the daily usage reports in b2-reports-<accountId> (GB = 1e9 bytes).',
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
    handler: usageGrowth,
  },
];
