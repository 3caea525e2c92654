/**
 * The benchmark targets: what each summary row measures, where its figure sits in
 * `bench/results/latest.json`, and the bound it is held to. The one place a target is written;
 * `docs/benchmarks.md` marks every row met or missed from it.
 */

/** A recorded results file, read loosely: targets reach deep into sections whose shapes vary by section. */
// biome-ignore lint/suspicious/noExplicitAny: sections are read by deep property paths, each checked by its target
export type Json = Record<string, any>;

export interface Target {
  /** What exactly was measured, as the summary row names it. */
  figure: string;
  /** The results section the row reads. */
  section: string;
  /** The figure as the row shows it (with context such as the baseline it was measured against). */
  shown: (section: Json) => string;
  /** The number the bound applies to; undefined when the section does not carry it. */
  value: (section: Json) => number | boolean | undefined;
  bound?: { op: '<=' | '>=' | '='; limit: number | boolean; text: string };
}

export const fmt = (n: unknown, unit = ''): string => (typeof n === 'number' ? `${n.toLocaleString('en-US')}${unit}` : 'not measured');
const ratio = (a: unknown, b: unknown): number | undefined =>
  typeof a === 'number' && typeof b === 'number' && b > 0 ? Math.round((a / b) * 100) / 100 : undefined;

function toolsListRow(profile: string, bound?: Target['bound']): Target {
  return {
    figure: `\`tools/list\` of \`${profile}\`, o200k tokens of the tools array`,
    section: 'startup',
    shown: (s) => {
      const t = s.toolsList?.[profile];
      return t ? `${fmt(t.tokensO200k)} tokens (${t.tools} tools, ${fmt(t.bytes)} bytes)` : 'not measured';
    },
    value: (s) => s.toolsList?.[profile]?.tokensO200k,
    ...(bound ? { bound } : {}),
  };
}

function probesRow(profile: string, bound?: Target['bound']): Target {
  return {
    figure: `Probes only, \`check --only-probes --profile ${profile}\`, fresh process (median wall)`,
    section: 'probes',
    shown: (s) => {
      const p = s[profile];
      return p
        ? `${fmt(p.wall?.medianMs, ' ms')} (probes themselves ${fmt(p.probes?.medianMs, ' ms')}; ${fmt(p.gateCalls)} gate calls on ${fmt(p.gatedTools)} tools, ${fmt(p.writeCalls)} write calls, ${fmt(p.argumentCalls)} undeclared-argument calls, ${fmt(p.readCalls)} reads)`
        : 'not measured';
    },
    value: (s) => s[profile]?.wall?.medianMs,
    ...(bound ? { bound } : {}),
  };
}

function s3Row(phase: string): Target {
  return {
    figure: `S3 ${phase}, 1 GiB through the sandbox: RSS growth`,
    section: 's3',
    shown: (s) => (s[phase] ? `${fmt(s[phase].rssGrowthMb, ' MB')} (${fmt(s[phase].mbPerSecond, ' MB/s')})` : 'not measured'),
    value: (s) => s[phase]?.rssGrowthMb,
    bound: { op: '<=', limit: 64, text: '≤ 64 MB' },
  };
}

export const TARGETS: readonly Target[] = [
  {
    figure: 'Server cold start, spawn to first `tools/list` answered over stdio (median)',
    section: 'startup',
    shown: (s) => fmt(s.coldStartMs?.median, ' ms'),
    value: (s) => s.coldStartMs?.median,
    bound: { op: '<=', limit: 280, text: '≤ 280 ms' },
  },
  {
    figure: 'Server cold start ÷ a one-tool bare-SDK server, same run',
    section: 'startup',
    shown: (s) => `×${s.ratioToBareSdk} (bare SDK ${fmt(s.bareSdkColdStartMs, ' ms')})`,
    value: (s) => s.ratioToBareSdk,
    bound: { op: '<=', limit: 1.1, text: '≤ ×1.10' },
  },
  {
    figure: 'Server RSS after the first `tools/list`',
    section: 'startup',
    shown: (s) => fmt(s.rssMb, ' MB'),
    value: (s) => s.rssMb,
    bound: { op: '<=', limit: 85, text: '≤ 85 MB' },
  },
  toolsListRow('full', { op: '<=', limit: 8200, text: '≤ 8,200 tokens' }),
  toolsListRow('default'),
  toolsListRow('read-only'),
  {
    figure: 'Static check `check --profile default --no-probes --format json`, bundled server, fresh process (median)',
    section: 'conform',
    shown: (s) => `${fmt(s.check?.medianMs, ' ms')} (one plain SDK-client \`tools/list\`: ${fmt(s.oneToolsListClient?.medianMs, ' ms')})`,
    value: (s) => s.check?.medianMs,
    bound: { op: '<=', limit: 1200, text: '≤ 1,200 ms' },
  },
  {
    figure:
      'Static check `check --profile default --no-probes --format json --server "node dist/bin/b2-mcp.js"` over stdio, fresh process (median)',
    section: 'conform',
    shown: (s) =>
      `${fmt(s.stdioCheck?.medianMs, ' ms')} (one plain SDK-client \`tools/list\`: ${fmt(s.oneToolsListClient?.medianMs, ' ms')})`,
    value: (s) => s.stdioCheck?.medianMs,
  },
  {
    figure: 'Static check over stdio ÷ one plain SDK-client `tools/list` on the same server, interleaved in the same run',
    section: 'conform',
    shown: (s) => `×${fmt(ratio(s.stdioCheck?.medianMs, s.oneToolsListClient?.medianMs))}`,
    value: (s) => ratio(s.stdioCheck?.medianMs, s.oneToolsListClient?.medianMs),
    bound: { op: '<=', limit: 1.25, text: '≤ ×1.25' },
  },
  {
    figure: 'Static check ÷ one plain SDK-client `tools/list`, interleaved in the same run',
    section: 'conform',
    shown: (s) => `×${fmt(ratio(s.check?.medianMs, s.oneToolsListClient?.medianMs))}`,
    value: (s) => ratio(s.check?.medianMs, s.oneToolsListClient?.medianMs),
    bound: { op: '<=', limit: 1.25, text: '≤ ×1.25' },
  },
  {
    figure:
      'Floor of the separate connections: as many plain SDK clients as a check opens, in one process and in parallel, each spawning its own stdio server and listing its tools once, interleaved in the same run (median)',
    section: 'conform',
    shown: (s) =>
      `${fmt(s.parallelToolsListClients?.medianMs, ' ms')} (${fmt(s.parallelToolsListClients?.connections)} clients; one: ${fmt(s.oneToolsListClient?.medianMs, ' ms')})`,
    value: (s) => s.parallelToolsListClients?.medianMs,
  },
  {
    figure: 'Floor of the separate connections ÷ one plain SDK-client `tools/list`, interleaved in the same run',
    section: 'conform',
    shown: (s) => `×${fmt(ratio(s.parallelToolsListClients?.medianMs, s.oneToolsListClient?.medianMs))}`,
    value: (s) => ratio(s.parallelToolsListClients?.medianMs, s.oneToolsListClient?.medianMs),
  },
  {
    figure: 'Static check over stdio ÷ the floor of its separate connections, interleaved in the same run',
    section: 'conform',
    shown: (s) => `×${fmt(ratio(s.stdioCheck?.medianMs, s.parallelToolsListClients?.medianMs))}`,
    value: (s) => ratio(s.stdioCheck?.medianMs, s.parallelToolsListClients?.medianMs),
  },
  {
    figure:
      'Floor of the embedded shape: as many plain SDK clients as a check opens, in one process and in parallel, to one loopback HTTP server it spawns, interleaved in the same run (median)',
    section: 'conform',
    shown: (s) =>
      `${fmt(s.parallelHttpToolsListClients?.medianMs, ' ms')} (×${fmt(ratio(s.parallelHttpToolsListClients?.medianMs, s.oneToolsListClient?.medianMs))} one plain SDK-client \`tools/list\`)`,
    value: (s) => s.parallelHttpToolsListClients?.medianMs,
  },
  {
    figure: 'Static check (embedded) ÷ the floor of the embedded shape, interleaved in the same run',
    section: 'conform',
    shown: (s) => `×${fmt(ratio(s.check?.medianMs, s.parallelHttpToolsListClients?.medianMs))}`,
    value: (s) => ratio(s.check?.medianMs, s.parallelHttpToolsListClients?.medianMs),
  },
  probesRow('default'),
  probesRow('full', { op: '<=', limit: 15_000, text: '≤ 15,000 ms' }),
  ...[0, 1, 2].map(
    (index): Target => ({
      figure: `Static check of a stdio server whose one \`tools/list\` is ${[1, 10, 40][index]} MiB: wall time, checker peak RSS (medians)`,
      section: 'largeLists',
      shown: (s) => (s.runs?.[index] ? `${fmt(s.runs[index].wallMs, ' ms')}, ${fmt(s.runs[index].peakRssMb, ' MB')}` : 'not measured'),
      value: (s) => s.runs?.[index]?.wallMs,
    }),
  ),
  {
    figure: 'Large lists, wall-time growth (40 MiB − 1 MiB) ÷ (10 MiB − 1 MiB); linear ≈ ×4.3, quadratic ≈ ×16',
    section: 'largeLists',
    shown: (s) => `×${fmt(s.wallGrowth)}`,
    value: (s) => s.wallGrowth,
    bound: { op: '<=', limit: 6.5, text: '≤ ×6.5' },
  },
  {
    figure: 'Large lists, peak-RSS growth (40 MiB − 1 MiB) ÷ (10 MiB − 1 MiB); linear ≈ ×4.3, quadratic ≈ ×16',
    section: 'largeLists',
    shown: (s) => `×${fmt(s.rssGrowth)}`,
    value: (s) => s.rssGrowth,
    bound: { op: '<=', limit: 6.5, text: '≤ ×6.5' },
  },
  {
    figure:
      'Static check `--pack generic --era modern --no-probes` of a stdio server with 1,000 described tools: checker CPU time with the tool-poisoning rules on ÷ off, interleaved (medians)',
    section: 'manyTools',
    shown: (s) =>
      s.withPoisoning
        ? `+${fmt(s.cpuGrowthPercent)}% CPU (${fmt(s.withPoisoning.cpuMs, ' ms')} with the ${fmt(s.poisoningRules)} \`poisoning/\` rules, ${fmt(s.withoutPoisoning.cpuMs, ' ms')} without); wall +${fmt(s.wallGrowthPercent)}% (${fmt(s.withPoisoning.wallMs, ' ms')}, ${fmt(s.withoutPoisoning.wallMs, ' ms')})${s.loadAverage1m !== undefined ? `; load average ${fmt(s.loadAverage1m)} when measured` : ''}`
        : 'not measured',
    value: (s) => s.cpuGrowthPercent,
    bound: { op: '<=', limit: 20, text: '≤ +20%' },
  },
  {
    figure:
      'Static check `check --no-probes` of a stdio server with one tool of 200,000 properties, each with the pattern `^(a+)+$`: wall time (median, fresh process)',
    section: 'hostileSchemas',
    shown: (s) => fmt(s.wide200k?.wallMs, ' ms'),
    value: (s) => s.wide200k?.wallMs,
    bound: { op: '<=', limit: 30_000, text: '≤ 30,000 ms' },
  },
  {
    figure: 'The same check: checker peak RSS (median)',
    section: 'hostileSchemas',
    shown: (s) => fmt(s.wide200k?.peakRssMb, ' MB'),
    value: (s) => s.wide200k?.peakRssMb,
    bound: { op: '<=', limit: 512, text: '≤ 512 MB' },
  },
  {
    figure:
      'Static check `check --no-probes` of a stdio server with one tool of 6,600 such properties (19,803 keys and items, just under the 20,000 judged whole): wall time, checker peak RSS (medians)',
    section: 'hostileSchemas',
    shown: (s) => (s.wideJudged ? `${fmt(s.wideJudged.wallMs, ' ms')}, ${fmt(s.wideJudged.peakRssMb, ' MB')}` : 'not measured'),
    value: (s) => s.wideJudged?.wallMs,
  },
  {
    figure:
      'Static check `check --no-probes` of a stdio server with one input schema 1,500 objects deep: wall time, checker peak RSS (medians)',
    section: 'hostileSchemas',
    shown: (s) => (s.deep ? `${fmt(s.deep.wallMs, ' ms')}, ${fmt(s.deep.peakRssMb, ' MB')}` : 'not measured'),
    value: (s) => s.deep?.wallMs,
  },
  {
    figure:
      'Static check `check --no-probes` of a stdio server with 40 tools of 6,600 such properties each (12 MB of schemas; the parts past 100,000 keys and items in all are cut): wall time, checker peak RSS (medians)',
    section: 'hostileSchemas',
    shown: (s) => (s.dense ? `${fmt(s.dense.wallMs, ' ms')}, ${fmt(s.dense.peakRssMb, ' MB')}` : 'not measured'),
    value: (s) => s.dense?.wallMs,
  },
  {
    figure: 'Fault soak, 20% injected faults: unclear answers + crashes + duplicate mutations',
    section: 'faults',
    shown: (s) =>
      `${fmt(s.calls)} calls: ${fmt(s.unclear)} unclear, ${fmt(s.crashes)} crashes, ${fmt(s.duplicateMutations)} duplicate mutations; RSS growth ${fmt(s.rssGrowthMb, ' MB')}`,
    value: (s) => (typeof s.unclear === 'number' ? s.unclear + s.crashes + s.duplicateMutations : undefined),
    bound: { op: '=', limit: 0, text: '0' },
  },
  {
    figure: 'HTTP `tools/list` throughput at concurrency 8, one instance',
    section: 'http',
    shown: (s) => `${fmt(s.rps, ' req/s')} (p50 ${fmt(s.p50Ms, ' ms')}, p99 ${fmt(s.p99Ms, ' ms')})`,
    value: (s) => s.rps,
    bound: { op: '>=', limit: 200, text: '≥ 200 req/s' },
  },
  {
    figure: 'HTTP `tools/list` at concurrency 8 through a loopback round-robin proxy, 1 instance',
    section: 'httpScale',
    shown: (s) =>
      `${fmt(s.one?.rps, ' req/s')} (p50 ${fmt(s.one?.p50Ms, ' ms')}, p99 ${fmt(s.one?.p99Ms, ' ms')}; load average ${fmt(s.loadAverage)} when measured)`,
    value: (s) => s.one?.rps,
  },
  {
    figure: 'The same through the proxy to 3 instances (same cores)',
    section: 'httpScale',
    shown: (s) =>
      `${fmt(s.three?.rps, ' req/s')} (×${fmt(ratio(s.three?.rps, s.one?.rps))} of 1 instance; p50 ${fmt(s.three?.p50Ms, ' ms')}, p99 ${fmt(s.three?.p99Ms, ' ms')})`,
    value: (s) => s.three?.rps,
  },
  {
    figure: 'Latency Redis-shared limits add to one HTTP `tools/list` (median; one at a time, interleaved with Redis off)',
    section: 'httpScale',
    shown: (s) =>
      s.redis?.skipped
        ? `not measured (${s.redis.skipped})`
        : `${fmt(s.redis?.addedP50Ms, ' ms')} (${fmt(s.redis?.onP50Ms, ' ms')} on vs ${fmt(s.redis?.offP50Ms, ' ms')} off; p90 ${fmt(s.redis?.onP90Ms, ' ms')} vs ${fmt(s.redis?.offP90Ms, ' ms')}; mean +${fmt(s.redis?.addedMeanMs, ' ms')})`,
    value: (s) => s.redis?.addedP50Ms,
  },
  {
    figure: '`b2_list_largest_files` over 1,000,000 versions: heap growth',
    section: 'analytics',
    shown: (s) => `${fmt(s.heapGrowthMb, ' MB')} (${fmt(s.filesPerSecond, ' files/s')})`,
    value: (s) => s.heapGrowthMb,
    bound: { op: '<=', limit: 64, text: '≤ 64 MB' },
  },
  s3Row('presignedPut'),
  s3Row('getObjectSaveToPath'),
  {
    figure: '`auto` text never larger than compact JSON (o200k, every corpus entry)',
    section: 'resultText',
    shown: (s) => String(s.auto?.neverLargerThanCompact ?? 'not measured'),
    value: (s) => s.auto?.neverLargerThanCompact,
    bound: { op: '=', limit: true, text: 'true' },
  },
  {
    figure: '`auto` token saving on listings vs compact JSON (o200k)',
    section: 'resultText',
    shown: (s) =>
      s.auto
        ? `${s.auto.listingSavingVsCompactPct}% (${s.auto.listingSavingWithinBoundsPct}% leaving out ${s.auto.beyondToonBounds.join(', ') || 'none'}, beyond the TOON bounds)`
        : 'not measured',
    value: (s) => s.auto?.listingSavingVsCompactPct,
    bound: { op: '>=', limit: 35, text: '≥ 35%' },
  },
  {
    figure: 'Our TOON encoder ÷ `@toon-format/toon`, throughput',
    section: 'resultText',
    shown: (s) =>
      s.encoderThroughput
        ? `×${s.encoderThroughput.ratio} (${s.encoderThroughput.oursMBps} vs ${s.encoderThroughput.officialMBps} MB/s)`
        : 'not measured',
    value: (s) => s.encoderThroughput?.ratio,
    bound: { op: '>=', limit: 1, text: '≥ ×1.0' },
  },
];

export type Verdict = 'met' | 'missed' | 'not measured' | 'no target';

/** Whether a section's figure meets the row's bound. */
export function verdictOf(target: Target, section: Json | undefined): Verdict {
  if (!target.bound) return 'no target';
  const value = section ? target.value(section) : undefined;
  if (value === undefined) return 'not measured';
  const { op, limit } = target.bound;
  if (op === '=') return value === limit ? 'met' : 'missed';
  if (typeof value !== 'number' || typeof limit !== 'number') return 'missed';
  return (op === '<=' ? value <= limit : value >= limit) ? 'met' : 'missed';
}
