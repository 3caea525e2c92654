/** Renders `docs/benchmarks.md` from `bench/results/latest.json`; never edited by hand. */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const row = (cells: Array<string | number>): string => `| ${cells.join(' | ')} |`;
const fmt = (n: unknown, unit = ''): string => (typeof n === 'number' ? `${n.toLocaleString('en-US')}${unit}` : 'not measured');

function summary(s: Json): string[] {
  const startup = s.startup;
  const lines = ['## Summary', '', row(['Figure', 'Measured', 'Target']), row(['---', '---:', '---:'])];
  if (startup) {
    lines.push(row(['Cold start to first `tools/list` over stdio (median)', `${fmt(startup.coldStartMs.median, ' ms')} (bare SDK ${fmt(startup.bareSdkColdStartMs, ' ms')}, ratio ${startup.ratioToBareSdk})`, '≤ 280 ms']));
    lines.push(row(['RSS after the first `tools/list`', fmt(startup.rssMb, ' MB'), '≤ 85 MB']));
    for (const [profile, t] of Object.entries(startup.toolsList as Json)) {
      lines.push(row([`\`tools/list\` of \`${profile}\` (${t.tools} tools)`, `${fmt(t.tokensO200k)} tokens o200k, ${fmt(t.bytes)} bytes`, profile === 'full' ? '≤ 8,700 tokens' : '']));
    }
  }
  if (s.conform) lines.push(row(['`b2-mcp-conform check --profile default` end to end (median)', `${fmt(s.conform.check.medianMs, ' ms')} (one plain SDK-client \`tools/list\`: ${fmt(s.conform.oneToolsListClient.medianMs, ' ms')})`, '≤ 1,200 ms']));
  if (s.probes) lines.push(row(['Conformance probes, `full` profile (median wall)', fmt(s.probes.wall?.medianMs, ' ms'), '≤ 15,000 ms']));
  if (s.faults) lines.push(row(['Fault soak: calls with 20% injected faults', `${fmt(s.faults.calls)} calls, ${fmt(s.faults.unclear)} unclear, ${fmt(s.faults.crashes)} crashes, ${fmt(s.faults.duplicateMutations)} duplicate mutations, RSS growth ${fmt(s.faults.rssGrowthMb, ' MB')}`, '0 / 0 / 0']));
  if (s.http) lines.push(row(['HTTP `tools/list` at concurrency 8', `${fmt(s.http.rps, ' req/s')} (p50 ${s.http.p50Ms} ms, p99 ${s.http.p99Ms} ms)`, '≥ 200 req/s']));
  if (s.analytics) lines.push(row(['`b2_list_largest_files` over 1,000,000 versions', `${fmt(s.analytics.filesPerSecond, ' files/s')}, heap growth ${fmt(s.analytics.heapGrowthMb, ' MB')}`, '≤ 64 MB heap growth']));
  if (s.s3) {
    for (const [phase, figures] of Object.entries(s.s3 as Json)) {
      if (figures && typeof figures === 'object' && 'mbPerSecond' in figures) {
        lines.push(row([`S3 ${phase} (1 GiB through the sandbox)`, `${fmt(figures.mbPerSecond, ' MB/s')}, RSS growth ${fmt(figures.rssGrowthMb, ' MB')}`, '≤ 64 MB RSS growth']));
      }
    }
  }
  if (s.resultText) {
    const r = s.resultText;
    lines.push(row(['`auto` never larger than compact JSON (o200k)', String(r.auto.neverLargerThanCompact), 'true']));
    lines.push(row(['`auto` token saving on listings vs compact JSON', `${r.auto.listingSavingVsCompactPct}% (${r.auto.listingSavingWithinBoundsPct}% leaving out ${r.auto.beyondToonBounds.join(', ') || 'none'}, beyond the TOON bounds)`, '≥ 35%']));
    lines.push(row(['Our TOON encoder vs `@toon-format/toon`', `${r.encoderThroughput.oursMBps} vs ${r.encoderThroughput.officialMBps} MB/s (×${r.encoderThroughput.ratio})`, '≥ ×1.0']));
  }
  return lines;
}

function resultText(r: Json): string[] {
  const lines = [
    '## Result text: pretty JSON, compact JSON, TOON and auto',
    '',
    `Tokens counted with ${r.tokenizers.o200k} and ${r.tokenizers.cl100k}. Savings are against compact JSON (o200k). The \`auto\` estimator picked the same rendering as the real o200k count for ${r.auto.estimatorAgreementPct}% of entries.`,
    '',
    'Our listings are tables, so TOON drops the repeated keys, but their cells are mostly high-entropy values (file ids, version ids, ETags, ISO timestamps that TOON must quote because they contain `:`) that cost the same tokens in both formats. That caps the saving against compact JSON well below the figures published for short-valued flat data; results whose compact JSON exceeds 200,000 characters stay JSON by contract.',
    '',
    '### Per shape class',
    '',
    row(['Shape', 'Entries', 'Pretty JSON', 'Compact JSON', 'TOON', 'auto', 'TOON saving', 'auto saving']),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:'])
  ];
  for (const [shape, g] of Object.entries(r.shapes as Json)) {
    lines.push(row([shape, g.entries, fmt(g.pretty.tokensO200k), fmt(g.compact.tokensO200k), fmt(g.toon.tokensO200k), fmt(g.auto.tokensO200k), `${g.toonSavingVsCompactPct}%`, `${g.autoSavingVsCompactPct}%`]));
  }
  lines.push('', '### Per corpus entry (tokens o200k / cl100k; bytes)', '', row(['Entry', 'Tool', 'Shape', 'Pretty', 'Compact', 'TOON', 'auto']), row(['---', '---', '---', '---:', '---:', '---:', '---:']));
  const cell = (s: Json) => `${fmt(s.tokensO200k)} / ${fmt(s.tokensCl100k)}; ${fmt(s.bytes)} B`;
  for (const e of r.entries as Json[]) lines.push(row([e.id, `\`${e.tool}\``, e.shape, cell(e.pretty), cell(e.compact), cell(e.toon), cell(e.auto)]));
  return lines;
}

export function renderBenchmarksDoc(results: Json): string {
  const s = results.sections ?? {};
  const m = results.machine ?? {};
  const lines = [
    '<!-- Generated by `npm run bench` from bench/results/latest.json. Do not edit. -->',
    '',
    '# Benchmarks',
    '',
    `Measured on ${m.cpus} × ${m.cpuModel}, Node ${m.node}. Absolute times move with machine load; ratios measured side by side in one run are the steadier figures.`,
    '',
    ...summary(s),
  ];
  if (s.resultText) lines.push('', ...resultText(s.resultText));
  return `${lines.join('\n')}\n`;
}
