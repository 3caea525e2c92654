import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CONNECTIONS_FOR } from '../src/conformance/connect/connections.js';
import { BUNDLED, PACKAGE_ROOT } from '../src/conformance/package-root.js';

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

/** How many connections a check of both eras opens (each to its own server process over stdio). */
const CHECK_CONNECTIONS = CONNECTIONS_FOR.both.length;

/**
 * The floor of a check that keeps its separate connections: as many plain SDK clients as a check
 * opens, in one process and in parallel, each spawning its own server and listing its tools once,
 * with no rules and no report.
 */
const PARALLEL_TOOLS_LISTS = `
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
await Promise.all(Array.from({ length: ${CHECK_CONNECTIONS} }, async (_, index) => {
  const client = new Client({ name: 'bench-' + index, version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [${JSON.stringify(BUNDLED.serverEntry)}], env: { B2_MCP_PROFILE: 'default', B2_SECRET_SINK: 'off' } }));
  await client.listTools();
  await client.close();
}));
process.exit(0);
`;

/** The same for the embedded default's shape: one loopback HTTP server, as many plain clients to it in parallel. */
const PARALLEL_HTTP_TOOLS_LISTS = `
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
const server = spawn(process.execPath, [${JSON.stringify(BUNDLED.serverEntry)}, 'http', '--port', '0', '--host', '127.0.0.1'], { env: { PATH: process.env.PATH, B2_MCP_PROFILE: 'default', B2_SECRET_SINK: 'off', B2_HTTP_CREDENTIAL_MODE: 'server' }, stdio: ['ignore', 'ignore', 'pipe'] });
const url = await new Promise((resolve) => createInterface({ input: server.stderr }).on('line', (line) => { if (line.includes('http.listening')) resolve(JSON.parse(line).url); }));
await Promise.all(Array.from({ length: ${CHECK_CONNECTIONS} }, async (_, index) => {
  const client = new Client({ name: 'bench-' + index, version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  await client.listTools();
  await client.close();
}));
server.kill();
process.exit(0);
`;

function timedRun(args: string[], options: { input?: string } = {}): { ms: number; stdout: string } {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, {
    cwd: PACKAGE_ROOT,
    input: options.input,
    stdio: ['pipe', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
  });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`benchmark run failed (exit ${result.status}): ${String(result.stderr).split('\n')[0]}`);
  return { ms, stdout: result.stdout };
}

function wallMs(args: string[], options: { input?: string } = {}): number {
  return timedRun(args, options).ms;
}

function summary(samples: number[]): { medianMs: number; minMs: number; maxMs: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (value: number) => Math.round(value);
  return { medianMs: round(sorted[Math.floor(sorted.length / 2)]!), minMs: round(sorted[0]!), maxMs: round(sorted.at(-1)!) };
}

const STATIC_CHECK = [CONFORM, 'check', '--profile', 'default', '--format', 'json', '--no-probes'];
/** The same check of the built server spawned over stdio (three stdio connections instead of loopback HTTP). */
const STDIO_CHECK = [
  ...STATIC_CHECK,
  '--server',
  `node ${BUNDLED.serverEntry}`,
  '--env',
  'B2_MCP_PROFILE=default',
  '--env',
  'B2_SECRET_SINK=off',
];

/**
 * Wall time of the static part of `b2-mcp-conform check --profile default` end to end (a fresh
 * process each run: both eras, the 1.x witness, every static rule, a JSON report; `--no-probes`),
 * against the embedded server and against the built server over stdio, interleaved with one plain
 * `tools/list` and with as many plain ones in parallel as the check opens connections.
 */
export function benchConformCheck(runs = 7): Record<string, unknown> {
  wallMs(STATIC_CHECK); // warm the file cache
  wallMs(STDIO_CHECK);
  const check: number[] = [];
  const stdioCheck: number[] = [];
  const oneList: number[] = [];
  const parallelLists: number[] = [];
  const parallelHttpLists: number[] = [];
  for (let run = 0; run < runs; run++) {
    check.push(wallMs(STATIC_CHECK));
    stdioCheck.push(wallMs(STDIO_CHECK));
    oneList.push(wallMs(['--input-type=module', '-'], { input: ONE_TOOLS_LIST }));
    parallelLists.push(wallMs(['--input-type=module', '-'], { input: PARALLEL_TOOLS_LISTS }));
    parallelHttpLists.push(wallMs(['--input-type=module', '-'], { input: PARALLEL_HTTP_TOOLS_LISTS }));
  }
  return {
    runs,
    check: summary(check),
    stdioCheck: summary(stdioCheck),
    oneToolsListClient: summary(oneList),
    parallelToolsListClients: { connections: CHECK_CONNECTIONS, ...summary(parallelLists) },
    parallelHttpToolsListClients: { connections: CHECK_CONNECTIONS, ...summary(parallelHttpLists) },
  };
}

/**
 * Wall time of the live probes per profile (`check --only-probes --profile <p>`, a fresh process
 * each run: the sandbox, four server sessions with drawn clients, every gate, write, read, format,
 * surface and secret probe), with the probes' own duration, call counts and the session
 * combinations covered from the report's evidence. Profiles are interleaved.
 */
export function benchProbes(runs = 3): Record<string, unknown> {
  const profiles = ['default', 'full'] as const;
  const wall: Record<string, number[]> = { default: [], full: [] };
  const probing: Record<string, number[]> = { default: [], full: [] };
  const calls: Record<string, Record<string, unknown>> = {};
  for (let run = 0; run < runs; run++) {
    for (const profile of profiles) {
      const { ms, stdout } = timedRun([CONFORM, 'check', '--only-probes', '--profile', profile, '--format', 'json']);
      const probes = (
        JSON.parse(stdout) as {
          evidence: {
            probes: {
              durationMs: number;
              gate: { calls: number; tools: number };
              writes: { calls: number };
              arguments: { calls: number };
              format: { calls: number };
              failed: number;
              combinations: string[];
            };
          };
        }
      ).evidence.probes;
      if (probes.failed > 0) throw new Error(`benchmark run found ${probes.failed} failing probes (profile ${profile})`);
      wall[profile]!.push(ms);
      probing[profile]!.push(probes.durationMs);
      calls[profile] = {
        gatedTools: probes.gate.tools,
        gateCalls: probes.gate.calls,
        writeCalls: probes.writes.calls,
        argumentCalls: probes.arguments.calls,
        readCalls: probes.format.calls,
        sessions: probes.combinations.length,
        combinations: probes.combinations,
      };
    }
  }
  return {
    runs,
    ...Object.fromEntries(
      profiles.map((profile) => [profile, { wall: summary(wall[profile]!), probes: summary(probing[profile]!), ...calls[profile] }]),
    ),
  };
}
