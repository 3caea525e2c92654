import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { packageRoot } from '../src/server/package-info.js';
import { benchConformCheck, benchProbes } from './conform.js';
import { benchFaultSoak } from './faults.js';
import { benchLargestFiles } from './analytics.js';
import { benchHostileSchemas } from './hostile-schemas.js';
import { benchHttpScale } from './http-scale.js';
import { benchHttpToolsList } from './http-throughput.js';
import { benchLargeLists } from './large-lists.js';
import { benchManyTools } from './many-tools.js';
import { renderBenchmarksDoc } from '../scripts/benchmarks-doc.js';
import { benchResultText } from './result-text.js';
import { benchS3Transfer } from './s3-transfer.js';
import { benchStartup } from './startup.js';

/**
 * Each section measures one thing; `npm run bench -- startup` runs only the named sections, and
 * `npm run bench -- --render` only re-renders docs/benchmarks.md from the results file.
 */
const SECTIONS: Record<string, () => Promise<unknown>> = {
  startup: () => benchStartup(),
  http: () => benchHttpToolsList(),
  httpScale: () => benchHttpScale(),
  conform: async () => benchConformCheck(),
  probes: async () => benchProbes(),
  largeLists: async () => benchLargeLists(),
  manyTools: async () => benchManyTools(),
  hostileSchemas: async () => benchHostileSchemas(),
  faults: () => benchFaultSoak(),
  resultText: () => benchResultText(),
  analytics: () => benchLargestFiles(),
  s3: () => benchS3Transfer(),
};

const requested = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const unknown = requested.filter((name) => !(name in SECTIONS));
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown section(s) ${unknown.join(', ')}; known: ${Object.keys(SECTIONS).join(', ')}\n`);
  process.exit(2);
}

const file = join(packageRoot(), 'bench', 'results', 'latest.json');
const previous = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { sections?: Record<string, unknown> }) : {};
const sections: Record<string, unknown> = { ...previous.sections };
const toRun = process.argv.includes('--render') ? [] : requested.length > 0 ? requested : Object.keys(SECTIONS);
const round2 = (value: number): number => Math.round(value * 100) / 100;
const loadAtStart = loadavg()[0]!;
for (const name of toRun) {
  process.stderr.write(`bench: ${name}…\n`);
  // Each section keeps the load it was measured under: a run of some sections leaves the others' figures as they were.
  sections[name] = { measuredAt: new Date().toISOString(), loadAverage1m: round2(loadavg()[0]!), ...((await SECTIONS[name]!()) as object) };
}
const wholeRun = toRun.length === Object.keys(SECTIONS).length;
const results = {
  machine: wholeRun
    ? {
        node: process.version,
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? 'unknown',
        platform: process.platform,
        loadAverage1m: { start: round2(loadAtStart), end: round2(loadavg()[0]!) },
      }
    : (previous as { machine?: unknown }).machine,
  sections,
};
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(join(packageRoot(), 'docs', 'benchmarks.md'), renderBenchmarksDoc(results));
process.stdout.write(
  `wrote bench/results/latest.json and docs/benchmarks.md\n\n${renderBenchmarksDoc(results).split('\n## Result text')[0]}`,
);
