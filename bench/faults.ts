import { type FaultSoakReport, runFaultSoak } from '../scripts/fault-soak.js';

/** The brief's fault mix: 20% of native and S3 responses fail as 500, 503, 429, reset or a 2 s stall. */
export const SOAK_FAULTS = 'rate=0.2,kinds=500|503|429|reset|stall,stallMs=2000,retryAfter=1,seed=2026';

const SOAK_SUMMARY_FIELDS = [
  'calls',
  'ok',
  'clearErrors',
  'unclear',
  'crashes',
  'duplicateMutations',
  'rssStartMb',
  'rssEndMb',
  'rssGrowthMb',
] as const;
type SoakSummary = Pick<FaultSoakReport, (typeof SOAK_SUMMARY_FIELDS)[number]>;

/** 2,000 calls (by default) at the brief's fault mix, summarized for `npm run bench`. */
export async function benchFaultSoak(calls = 2000): Promise<SoakSummary> {
  const report = await runFaultSoak({ calls, faults: SOAK_FAULTS, lanes: 8 });
  return Object.fromEntries(SOAK_SUMMARY_FIELDS.map((field) => [field, report[field]])) as SoakSummary;
}
