import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRules } from '../src/conformance/rules/engine.js';
import { PACKAGE_ROOT } from '../src/conformance/package-root.js';

const CONFORM = join(PACKAGE_ROOT, 'dist', 'bin', 'b2-mcp-conform.js');
const CLI = join(PACKAGE_ROOT, 'dist', 'src', 'conformance', 'cli.js');

/** Runs the checker's CLI in this process (output discarded) and prints its exit code and CPU time as JSON. */
const MEASURED_CHECK = `
const { main } = await import(${JSON.stringify(CLI)});
const argv = JSON.parse(process.argv.at(-1));
const code = await main(['node', 'b2-mcp-conform', ...argv], { stdout: () => {}, stderr: (text) => process.stderr.write(text), color: false, cwd: process.cwd(), env: { PATH: process.env.PATH } });
const cpu = process.cpuUsage();
process.stdout.write(JSON.stringify({ code, cpuMs: (cpu.user + cpu.system) / 1000 }));
process.exit(0);
`;
/** Serves a surface file over stdio, every key of every tool as written. */
const SERVER = join(PACKAGE_ROOT, 'tests', 'conformance', 'servers', 'two-faced-server.mjs');
const TOOLS = 1000;

const VERBS = ['list', 'get', 'update', 'delete', 'copy', 'hide'];
const NOUNS = ['bucket', 'file', 'key', 'version', 'rule', 'upload'];

/** A tool with the text a real one carries: a paragraph of description and five described parameters. */
function toolAt(index: number): Record<string, unknown> {
  const verb = VERBS[index % VERBS.length]!;
  const noun = NOUNS[Math.floor(index / VERBS.length) % NOUNS.length]!;
  const description =
    `${verb[0]!.toUpperCase()}${verb.slice(1)}s one ${noun} of the account (item ${index}). The ${noun} is named by its id; ` +
    `use b2_list_${noun}s first to find it. Returns the ${noun}'s fields as JSON. Do not include secrets in the prefix. ` +
    'Large results are paged: pass the next token from the previous answer to continue. Requires the readFiles capability.';
  const properties = Object.fromEntries(
    ['bucketId', 'prefix', 'maxCount', 'startToken', 'region'].map((name, position) => [
      name,
      {
        type: position === 2 ? 'integer' : 'string',
        description: `The ${name} of the ${noun}; see the ${noun} documentation for its format.`,
        ...(position === 4 ? { enum: ['us-west-004', 'eu-central-003'], default: 'us-west-004' } : {}),
      },
    ]),
  );
  return {
    name: `b2_${verb}_${noun}_${index}`,
    description,
    inputSchema: { type: 'object', properties, required: ['bucketId'] },
    annotations: { readOnlyHint: verb !== 'delete' },
  };
}

const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

function snapshotOf(server: string[], out: string): void {
  const result = spawnSync(process.execPath, [CONFORM, 'snapshot', '--pack', 'generic', ...server, '--era', 'modern', '--out', out], {
    cwd: PACKAGE_ROOT,
    encoding: 'utf8',
    env: ENV,
  });
  if (result.status !== 0) throw new Error(`many-tools snapshot failed (exit ${result.status}): ${String(result.stderr).split('\n')[0]}`);
}

/** One check in a fresh process: its wall time and the checker's own CPU time (the server's is not counted). */
function measure(argv: string[]): { wallMs: number; cpuMs: number } {
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--input-type=module', '-', JSON.stringify(argv)], {
    cwd: PACKAGE_ROOT,
    input: MEASURED_CHECK,
    encoding: 'utf8',
    env: ENV,
  });
  const wallMs = performance.now() - started;
  const outcome = result.status === 0 ? (JSON.parse(result.stdout) as { code: number; cpuMs: number }) : undefined;
  if (!outcome || outcome.code > 1)
    throw new Error(`many-tools check failed (exit ${outcome?.code ?? result.status}): ${String(result.stderr).split('\n')[0]}`);
  return { wallMs, cpuMs: outcome.cpuMs };
}

/**
 * `check --pack generic --era modern --no-probes` of a stdio server listing 1,000 described tools,
 * against its own snapshot, with every rule and with the `poisoning/` rules turned off by a config
 * file: what the tool-poisoning scan adds to the checker's CPU time (steady under machine load)
 * and to the wall time. The two are interleaved over `rounds` rounds; each figure is the median.
 */
export function benchManyTools(rounds = 5): Record<string, unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-many-tools-'));
  try {
    const surface = join(dir, 'surface.json');
    writeFileSync(
      surface,
      JSON.stringify({
        serverInfo: { name: 'many-tools', version: '1.0.0' },
        tools: Array.from({ length: TOOLS }, (_, index) => toolAt(index)),
      }),
    );
    const server = ['--server', `"${process.execPath}" "${SERVER}" "${surface}" --honest`];
    const snapshot = join(dir, 'snapshot');
    snapshotOf(server, snapshot);
    const off = join(dir, 'poisoning-off.json');
    const poisoning = loadRules()
      .rules.filter((rule) => rule.category === 'poisoning')
      .map((rule) => rule.id);
    writeFileSync(off, JSON.stringify({ rules: Object.fromEntries(poisoning.map((id) => [id, 'off'])) }));
    const check = ['check', '--pack', 'generic', ...server, '--fixtures', snapshot, '--era', 'modern', '--no-probes', '--format', 'json'];
    const withScan: ReturnType<typeof measure>[] = [];
    const withoutScan: ReturnType<typeof measure>[] = [];
    for (let round = 0; round < rounds; round++) {
      withScan.push(measure([...check, '--no-config']));
      withoutScan.push(measure([...check, '--config', off]));
    }
    const median = (values: number[]) => Math.round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!);
    const figures = (runs: ReturnType<typeof measure>[]) => ({
      wallMs: median(runs.map((one) => one.wallMs)),
      cpuMs: median(runs.map((one) => one.cpuMs)),
    });
    const on = figures(withScan);
    const offFigures = figures(withoutScan);
    const growth = (a: number, b: number) => Math.round(((a - b) / b) * 1000) / 10;
    return {
      tools: TOOLS,
      rounds,
      poisoningRules: poisoning.length,
      withPoisoning: on,
      withoutPoisoning: offFigures,
      cpuGrowthPercent: growth(on.cpuMs, offFigures.cpuMs),
      wallGrowthPercent: growth(on.wallMs, offFigures.wallMs),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
