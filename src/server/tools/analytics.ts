import { defineTool, type ToolDefinition, type ToolHandler } from './definition.js';
import { integer, oneOf, string, toolInput } from './schema.js';

const bucket = string({ minLength: 1 });

// The analytics (and the CSV parser behind the usage reports) load on first use: listing tools
// and starting the server must not pay for them.

const largestFilesInput = toolInput(
  {
    bucket,
    prefix: string(),
    limit: integer(1, 100, { default: 10 }),
    max_scan: integer(1000, 500000, { default: 50000 }),
  },
  ['bucket'],
);

const largestFiles: ToolHandler<typeof largestFilesInput> = async (args, context) => {
  return {
    structured: await (await import('../analytics/largest-files.js')).listLargestFiles(context.b2(), {
      bucketName: args.bucket,
      prefix: args.prefix,
      limit: args.limit ?? 10,
      maxScan: args.max_scan ?? 50_000,
      signal: context.signal,
    }),
  };
};

const unfinishedUploadsInput = toolInput(
  {
    bucket,
    older_than_days: integer(0, 36500),
    max_uploads: integer(1, 10000, { default: 1000 }),
  },
  ['bucket'],
);

const unfinishedUploads: ToolHandler<typeof unfinishedUploadsInput> = async (args, context) => {
  return {
    structured: await (await import('../analytics/unfinished-uploads.js')).listUnfinishedUploads(context.b2(), {
      bucketName: args.bucket,
      olderThanDays: args.older_than_days,
      maxUploads: args.max_uploads ?? 1000,
      signal: context.signal,
    }),
  };
};

const egressLeadersInput = toolInput({
  by: oneOf(['account', 'bucket'], { default: 'account' }),
  days: integer(1, 90),
  limit: integer(1, 1000, { default: 15 }),
});

const egressLeaders: ToolHandler<typeof egressLeadersInput> = async (args, context) => {
  return {
    structured: await (await import('../analytics/egress-leaders.js')).rankEgressLeaders(context.b2(), {
      by: args.by ?? 'account',
      days: args.days,
      limit: args.limit ?? 15,
      signal: context.signal,
    }),
  };
};

const usageGrowthInput = toolInput({
  period: oneOf(['month', 'quarter', 'year'], { default: 'month' }),
  days: integer(1, 3650),
  order: oneOf(['most_grown', 'least_grown', 'shrinking'], { default: 'most_grown' }),
  limit: integer(1, 1000, { default: 50 }),
});

const usageGrowth: ToolHandler<typeof usageGrowthInput> = async (args, context) => {
  return {
    structured: await (await import('../analytics/usage-growth.js')).reportUsageGrowth(context.b2(), {
      period: args.period ?? 'month',
      days: args.days,
      order: args.order ?? 'most_grown',
      limit: args.limit ?? 50,
      signal: context.signal,
    }),
  };
};

export const analyticsTools: ToolDefinition[] = [
  defineTool({
    name: 'b2_list_largest_files',
    title: 'List largest files',
    description:
      "Find a bucket's largest file versions from its listing, within max_scan and a time budget (truncated when one stops it); never reads content.",
    input: largestFilesInput,
    backing: 'customMcp',
    capabilities: ['listFiles'],
    effect: 'read',
    handler: largestFiles,
  }),
  defineTool({
    name: 'b2_unfinished_uploads',
    title: 'Unfinished large uploads',
    description: "List a bucket's unfinished large-file uploads and the bytes they hold (a lower bound when capped).",
    input: unfinishedUploadsInput,
    backing: 'customMcp',
    capabilities: ['listFiles'],
    effect: 'read',
    handler: unfinishedUploads,
  }),
  defineTool({
    name: 'b2_rank_egress_leaders',
    title: 'Rank egress leaders',
    description: 'Rank accounts or buckets by download egress, from the daily usage reports in b2-reports-<accountId> (GB = 1e9 bytes).',
    input: egressLeadersInput,
    backing: 'customMcp',
    capabilities: ['readFiles'],
    effect: 'read',
    handler: egressLeaders,
  }),
  defineTool({
    name: 'b2_report_usage_growth',
    title: 'Report usage growth',
    description: 'Report storage growth per bucket over a period, from the daily usage reports in b2-reports-<accountId> (GB = 1e9 bytes).',
    input: usageGrowthInput,
    backing: 'customMcp',
    capabilities: ['readFiles'],
    effect: 'read',
    handler: usageGrowth,
  }),
];
