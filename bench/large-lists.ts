import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/conformance/package-root.js';

/** The hostile test server generates the list in its own process (`big <MiB>`), so nothing big is shipped. */
const SERVER = join(PACKAGE_ROOT, 'tests', 'conformance', 'servers', 'hostile-stdio.mjs');
const CLI = join(PACKAGE_ROOT, 'dist', 'src', 'conformance', 'cli.js');

/** Runs the checker's CLI in this process (output discarded) and prints its exit code and peak RSS as JSON. */
const MEASURED_CHECK = `
const { main } = await import(${JSON.stringify(CLI)});
const argv = JSON.parse(process.argv.at(-1));
const code = await main(['node', 'b2-mcp-conform', ...argv], { stdout: () => {}, stderr: (text) => process.stderr.write(text), color: false, cwd: process.cwd(), env: { PATH: process.env.PATH } });
process.stdout.write(JSON.stringify({ code, maxRssKb: process.resourceUsage().maxRSS }));
process.exit(0);
`;

export const LIST_SIZES_MIB = [1, 10, 40] as const;

/**
 * One `check` of the hostile test server started with `serverArgs`, run by the checker's CLI in a
 * fresh process: its exit code, wall time and peak RSS. `argv` adds the check's own options.
 */
export function measuredCheck(serverArgs: string, argv: string[]): { code: number; wallMs: number; peakRssMb: number; stderr: string } {
  const args = ['check', '--server', `"${process.execPath}" "${SERVER}" ${serverArgs}`, ...argv];
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--input-type=module', '-', JSON.stringify(args)], {
    cwd: PACKAGE_ROOT,
    input: MEASURED_CHECK,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
  });
  const wallMs = Math.round(performance.now() - started);
  const outcome = result.status === 0 ? (JSON.parse(result.stdout) as { code: number; maxRssKb: number }) : undefined;
  if (!outcome)
    throw new Error(
      `check of hostile-stdio.mjs ${serverArgs} did not run (exit ${result.status}): ${String(result.stderr).split('\n')[0]}`,
    );
  return { code: outcome.code, wallMs, peakRssMb: Math.round(outcome.maxRssKb / 1024), stderr: String(result.stderr) };
}

function measure(mebibytes: number): { wallMs: number; peakRssMb: number } {
  const run = measuredCheck(`big ${mebibytes}`, [
    '--era',
    'modern',
    '--no-probes',
    '--format',
    'json',
    '--timeout',
    '300000',
    '--max-message-bytes',
    '64MiB',
  ]);
  // Exit 1 is the expected outcome: the padded tools are all findings against the bundled contract.
  if (run.code !== 1) throw new Error(`large-list run of ${mebibytes} MiB failed (exit ${run.code}): ${run.stderr.split('\n')[0]}`);
  return { wallMs: run.wallMs, peakRssMb: run.peakRssMb };
}

/** (largest − smallest) ÷ (middle − smallest): about ×4.3 when growth is linear in the size, ×16 when quadratic. */
function growth(values: readonly number[]): number {
  const [small, middle, large] = values as [number, number, number];
  return Math.round(((large - small) / Math.max(1, middle - small)) * 100) / 100;
}

/**
 * Wall time and the checker's peak RSS for `check --era modern --no-probes` of a stdio server
 * whose one tools/list answer is 1, 10 and 40 MiB (a fresh checker process each), with
 * `--max-message-bytes 64MiB` so the 40 MiB list is read whole. The sizes are interleaved over
 * `rounds` rounds and each figure is the median, so that machine load moves all sizes alike.
 */
export function benchLargeLists(rounds = 3): Record<string, unknown> {
  const samples = LIST_SIZES_MIB.map(() => [] as ReturnType<typeof measure>[]);
  for (let round = 0; round < rounds; round++) {
    for (const [index, size] of LIST_SIZES_MIB.entries()) samples[index]!.push(measure(size));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const runs = samples.map((runsOfSize, index) => ({
    mebibytes: LIST_SIZES_MIB[index]!,
    wallMs: median(runsOfSize.map((run) => run.wallMs)),
    peakRssMb: median(runsOfSize.map((run) => run.peakRssMb)),
  }));
  return {
    rounds,
    runs,
    wallGrowth: growth(runs.map((run) => run.wallMs)),
    rssGrowth: growth(runs.map((run) => run.peakRssMb)),
    linearGrowth: growth(LIST_SIZES_MIB),
  };
}
