import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encode as encodeCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { encode as encodeO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { PROFILE_NAMES } from '../src/contract/constants.js';
import { packageRoot } from '../src/server/package-info.js';
import { modernRequest } from './modern-request.js';

const SERVER = join(packageRoot(), 'dist', 'bin', 'b2-mcp.js');
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const MODERN_LIST = modernRequest('tools/list');

interface ColdStart {
  ms: number;
  rssMb: number;
  response: string;
}

/** The floor: a one-tool server on the bare SDK, started the same way. */
const BARE_SDK_SERVER = `
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
serveStdio(() => { const s = new McpServer({ name: 'bare', version: '1' }); s.registerTool('noop', { description: 'noop' }, async () => ({ content: [] })); return s; });
`;

/** Spawn a stdio server, send one modern `tools/list`, time until the response line arrives. */
function coldStart(profile: string, bare = false): Promise<ColdStart> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const args = bare ? ['--input-type=module', '-e', BARE_SDK_SERVER] : [SERVER, 'stdio'];
    const child = spawn(process.execPath, args, {
      cwd: packageRoot(),
      env: { PATH: process.env.PATH ?? '', B2_MCP_PROFILE: profile, B2_SECRET_SINK: 'off', LOG_LEVEL: 'silent' },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      const ms = performance.now() - started;
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      child.kill();
      resolve({ ms, rssMb: rssKb / 1024, response: buffered.slice(0, newline) });
    });
    child.once('error', reject);
    child.stdin.write(`${JSON.stringify(MODERN_LIST)}\n`);
  });
}

export interface StartupResults {
  coldStartMs: { median: number; min: number; max: number; runs: number };
  /** The same measurement, interleaved in the same run, for a one-tool server on the bare SDK. */
  bareSdkColdStartMs: number;
  /** Our cold start over the bare SDK's: the figure that survives machine noise. */
  ratioToBareSdk: number;
  rssMb: number;
  toolsList: Record<string, { tools: number; bytes: number; tokensO200k: number; tokensCl100k: number }>;
}

export async function benchStartup(runs = 7): Promise<StartupResults> {
  await coldStart('default'); // warm the file cache
  const samples: ColdStart[] = [];
  const bare: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    samples.push(await coldStart('default'));
    bare.push((await coldStart('default', true)).ms);
  }
  const toolsList: StartupResults['toolsList'] = {};
  for (const profile of PROFILE_NAMES) {
    const { response } = await coldStart(profile);
    const tools = (JSON.parse(response) as { result: { tools: unknown[] } }).result.tools;
    const text = JSON.stringify(tools);
    toolsList[profile] = {
      tools: tools.length,
      bytes: Buffer.byteLength(text),
      tokensO200k: encodeO200k(text).length,
      tokensCl100k: encodeCl100k(text).length,
    };
  }
  const times = samples.map((s) => s.ms);
  return {
    coldStartMs: { median: Math.round(median(times)), min: Math.round(Math.min(...times)), max: Math.round(Math.max(...times)), runs },
    bareSdkColdStartMs: Math.round(median(bare)),
    ratioToBareSdk: Math.round((median(times) / median(bare)) * 100) / 100,
    rssMb: Math.round(median(samples.map((s) => s.rssMb)) * 10) / 10,
    toolsList,
  };
}
