/**
 * The built server over an unreliable B2: the fault-soak workload of
 * scripts/fault-soak.ts, smaller — every read tool and every mutating tool (gated ones with
 * `confirm: true`) over stdio, with the sandbox failing 20% of native and S3 responses.
 * The benchmark runs the same workload for 2,000 calls with the full 2 s stall.
 */
import { describe, expect, it } from 'vitest';
import { runFaultSoak, type CallRecord, type FaultSoakReport } from '../../../scripts/fault-soak.js';
import { ANALYTICS_TIME_BUDGET_MS } from '../../../src/server/analytics/deadline.js';
import { DEFAULT_RETRY } from '../../../src/server/b2/retry-policy.js';

const CALLS = Number(process.env.B2_FAULT_TEST_CALLS ?? 300);
const STALL_MS = 250;

/** Codes a read may fail with when the sandbox injects faults: the fault itself, named. */
const FAULT_CODES = new Set([
  // native API
  'internal_error',
  'service_unavailable',
  'too_many_requests',
  'network_error',
  'request_timeout',
  // S3 API (error bodies, or bodiless HEAD answers)
  'InternalError',
  'ServiceUnavailable',
  'SlowDown',
  'http_500',
  'http_503',
  'http_429',
]);

const READ_TOOLS = [
  'b2_authorize_account',
  'b2_list_buckets',
  'b2_list_keys',
  'b2_get_bucket_notification_rules',
  'b2_list_groups',
  'b2_list_group_members',
  'b2_list_largest_files',
  'b2_unfinished_uploads',
  'b2_rank_egress_leaders',
  'b2_report_usage_growth',
  's3_get_bucket_location',
  's3_head_bucket',
  's3_head_object',
  's3_get_object',
  's3_list_objects_v2',
  's3_list_object_versions',
  's3_list_multipart_uploads',
  's3_list_parts',
];

const GATED_TOOLS = [
  'b2_update_bucket',
  'b2_set_bucket_notification_rules',
  's3_put_bucket_lifecycle',
  's3_abort_multipart_upload',
  's3_delete_object',
  's3_delete_objects',
  'b2_update_file_legal_hold',
  'b2_update_file_retention',
  'b2_create_key',
  'b2_delete_key',
  'b2_create_group_member',
  'b2_eject_group_member',
  'b2_delete_bucket',
];

const describeCalls = (records: CallRecord[]) => records.map((r) => `${r.tool} (${Math.round(r.ms)} ms): ${r.text}`).join('\n');

function expectSoundRun(report: FaultSoakReport): void {
  expect(report.crashes).toBe(0);
  expect(report.stderrProblems).toEqual([]);
  expect(report.unclear, describeCalls(report.records.filter((r) => r.outcome === 'unclear'))).toBe(0);
  expect(report.unexplainedMutations).toEqual([]);
  expect(report.duplicateMutations).toBe(0);
}

describe('the server under 20% injected faults', () => {
  it(`${CALLS} mixed calls: reads succeed or name the fault, nothing is applied twice, the process stays up`, async () => {
    const report = await runFaultSoak({
      calls: CALLS,
      faults: `rate=0.2,kinds=500|503|429|reset|stall,stallMs=${STALL_MS},retryAfter=1,seed=2027`,
      lanes: 8,
    });
    console.info(
      `fault soak: ${report.calls} calls in ${report.seconds} s, ok ${report.ok}, clear errors ${report.clearErrors}, ` +
        `faults ${JSON.stringify(report.injected)} (native ${report.faultedRequests.native}, S3 ${report.faultedRequests.s3}), ` +
        `RSS ${report.rssStartMb} → ${report.rssEndMb} MB`,
    );

    expect(report.calls).toBe(CALLS);
    expectSoundRun(report);
    // The brief's mix really happened, on both front ends.
    for (const kind of ['500', '503', '429', 'reset', 'stall']) expect(report.injected[kind], kind).toBeGreaterThan(0);
    expect(report.faultedRequests.native).toBeGreaterThan(0);
    expect(report.faultedRequests.s3).toBeGreaterThan(0);

    // Every read tool was exercised; each call succeeded or named the injected failure, within its budget.
    const reads = report.records.filter((r) => r.read && READ_TOOLS.includes(r.tool));
    expect(new Set(reads.map((r) => r.tool))).toEqual(new Set(READ_TOOLS));
    const misnamed = reads.filter((r) => r.outcome !== 'ok' && !FAULT_CODES.has(r.code ?? ''));
    expect(misnamed, describeCalls(misnamed)).toEqual([]);
    const budgetMs = Math.max(DEFAULT_RETRY.budgetMs, ANALYTICS_TIME_BUDGET_MS) + STALL_MS + 2_000;
    expect(Math.max(...reads.map((r) => r.ms))).toBeLessThan(budgetMs);
    expect(reads.filter((r) => r.outcome === 'ok').length / reads.length).toBeGreaterThan(0.9);

    // The mutation log matches the calls one to one: every success logged once, no failure applied.
    expect(report.mutatingCalls).toBeGreaterThan(CALLS / 3);
    expect(report.missingMutations).toBe(0);
    expect(report.appliedButFailed).toBe(0);
    const confirmedOk = new Set(report.records.filter((r) => r.outcome === 'ok' && GATED_TOOLS.includes(r.tool)).map((r) => r.tool));
    expect(confirmedOk.size).toBeGreaterThanOrEqual(GATED_TOOLS.length - 2);

    expect(report.rssGrowthMb).toBeLessThan(64);
  }, 120_000);

  it('non-idempotent calls whose response is lost after B2 applied them are reported, never replayed', async () => {
    const nonIdempotent = [
      'b2_create_bucket',
      'b2_delete_bucket',
      'b2_create_key',
      'b2_delete_key',
      'b2_create_group_member',
      'b2_reserve_trial_create_account',
      'CreateMultipartUpload',
      'DeleteObject',
      'DeleteObjects',
    ];
    const report = await runFaultSoak({
      calls: 160,
      faults: `rate=0.35,kinds=500|503|reset,phase=after,ops=${nonIdempotent.join('|')},seed=5`,
      lanes: 8,
    });
    expectSoundRun(report);
    // Lost answers happened (applied, then reported as failures) and none was applied again.
    expect(report.appliedButFailed).toBeGreaterThan(0);
    // A caller repeating a secret creation with the same idempotency key is told the outcome is pending, not given a second key.
    const repeats = report.records.filter((r) => r.code === 'idempotency_key_pending');
    expect(repeats.every((r) => ['b2_create_key', 'b2_create_group_member', 'b2_reserve_trial_create_account'].includes(r.tool))).toBe(
      true,
    );
  }, 120_000);
});
