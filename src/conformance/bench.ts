import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { BUNDLED, PACKAGE_ROOT } from './package-root.js';

const CONFORM = join(PACKAGE_ROOT, 'dist', 'bin', 'b2-mcp-conform.js');

/**
 * The reference point: one SDK client process that spawns the server over stdio, lists its tools
 * once and exits — what a single `tools/list` through an MCP Inspector-style CLI costs.
 */
const ONE_TOOLS_LIST = `
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
const client = new Client({ name: 'bench', version: '1' });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [${JSON.stringify(BUNDLED.serverEntry)}], env: { B2_MCP_PROFILE: 'default', B2_SECRET_SINK: 'off' } }));
await client.listTools();
await client.close();
process.exit(0);
`;

function wallMs(args: string[], options: { input?: string } = {}): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { cwd: PACKAGE_ROOT, input: options.input, stdio: ['pipe', 'ignore', 'pipe'], env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`benchmark run failed (exit ${result.status}): ${String(result.stderr).split('\n')[0]}`);
  return elapsed;
}

function summary(samples: number[]): { medianMs: number; minMs: number; maxMs: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (value: number) => Math.round(value);
  return { medianMs: round(sorted[Math.floor(sorted.length / 2)]!), minMs: round(sorted[0]!), maxMs: round(sorted.at(-1)!) };
}

/**
 * Wall time of `b2-mcp-conform check --profile default` end to end (a fresh process each run:
 * both eras, the 1.x witness, every rule, a JSON report), next to one plain `tools/list`.
 */
export function benchConformCheck(runs = 7): Record<string, unknown> {
  wallMs([CONFORM, 'check', '--profile', 'default', '--format', 'json']); // warm the file cache
  const check: number[] = [];
  const oneList: number[] = [];
  for (let run = 0; run < runs; run++) {
    check.push(wallMs([CONFORM, 'check', '--profile', 'default', '--format', 'json']));
    oneList.push(wallMs(['--input-type=module', '-'], { input: ONE_TOOLS_LIST }));
  }
  return { runs, targetMedianMs: 1200, check: summary(check), oneToolsListClient: summary(oneList) };
}
