import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ContractArtifact, ContractProfile } from '../../src/contract/artifact.js';
import {
  APPROVED_CACHE_HINT,
  BACKING_CATEGORIES,
  BACKING_CATEGORY_NAMES,
  CONTRACT_ISSUE,
  CONTRACT_VERSION,
  MODERN_PROTOCOL_VERSION,
  type BackingCategory,
} from '../../src/contract/constants.js';
import { prefixCounts, type ToolFixture } from '../../src/contract/fixture.js';
import type { EraChoice } from '../../src/conformance/connect/connections.js';
import { main } from '../../src/conformance/cli.js';
import { loadContract } from '../../src/conformance/diff/fixtures.js';
import { BUNDLED } from '../../src/conformance/package-root.js';
import { checkServer } from '../../src/conformance/commands/check.js';
import { snapshotServer } from '../../src/conformance/commands/snapshot.js';
import type { RunResult } from '../../src/conformance/report/evidence.js';
import { httpTarget, type Target } from '../../src/conformance/connect/target.js';
import { BASELINE_BACKING, type Surface } from './baseline.js';
import { connectionSettings } from '../../src/conformance/api.js';

export const SERVERS_DIR = fileURLToPath(new URL('./servers/', import.meta.url));
export const PROFILE = 'default';

const temporary: string[] = [];

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'b2-mcp-conform-'));
  temporary.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function writeJson(dir: string, name: string, value: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  return file;
}

/** One HTTP process serving every variant at /<name>/mcp: checks then cost a few ms, not a spawn. */
export interface SurfaceHttpServer {
  target(name: string): Target;
  stop(): void;
}

export async function startSurfaceHttp(variants: Record<string, Surface>): Promise<SurfaceHttpServer> {
  const file = writeJson(tempDir(), 'variants.json', variants);
  const child: ChildProcess = spawn(process.execPath, [join(SERVERS_DIR, 'surface-server.mjs'), 'http', file], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`surface server exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(Number(/listening (\d+)/.exec(line)?.[1])));
  });
  return {
    target: (name) => httpTarget(`http://127.0.0.1:${port}/${name}/mcp`, {}),
    stop: () => child.kill(),
  };
}

/** Snapshot a live server into a fresh fixtures directory (the checker's own `snapshot`). */
export async function snapshotFixtures(target: Target, era: EraChoice = 'both'): Promise<string> {
  const dir = tempDir();
  await snapshotServer({ profile: PROFILE, target, outDir: dir, era, connection: connectionSettings({ timeoutMs: 15_000 }) });
  return dir;
}

function readFixtureFile(dir: string, era: 'modern' | 'legacy'): ToolFixture {
  return JSON.parse(readFileSync(join(dir, `${PROFILE}.${era}.json`), 'utf8')) as ToolFixture;
}

function backingOf(name: string): BackingCategory {
  return BASELINE_BACKING[name] ?? (name.startsWith('s3_') ? 'awsS3Sdk' : 'nativeB2Sdk');
}

/** A contract artifact consistent with a fixtures directory (as the generator would write it), then edited. */
export function writeContract(
  fixturesDir: string,
  edit: (contract: ContractArtifact) => void = () => {},
  era: 'modern' | 'legacy' = 'modern',
): string {
  const fixture = readFixtureFile(fixturesDir, era);
  const toolBacking = Object.fromEntries(fixture.names.map((name) => [name, backingOf(name)])) as Record<string, BackingCategory>;
  const backingCounts = Object.fromEntries(
    BACKING_CATEGORY_NAMES.map((category) => [category, fixture.names.filter((name) => toolBacking[name] === category).length]),
  ) as Record<BackingCategory, number>;
  const profile: ContractProfile = {
    description: 'test profile',
    capabilities: null,
    counts: prefixCounts(fixture.names),
    backingCounts,
    names: fixture.names,
    requiredFields: fixture.requiredFields,
    confirmTools: fixture.confirmTools,
    hash: fixture.hash,
    fixtures: { modern: `${PROFILE}.modern.json`, legacy: `${PROFILE}.legacy.json` },
  };
  const contract = {
    contractVersion: CONTRACT_VERSION,
    issue: CONTRACT_ISSUE,
    mcpRevision: MODERN_PROTOCOL_VERSION,
    approvedCacheHint: { ...APPROVED_CACHE_HINT },
    sdk: {},
    backingCategories: BACKING_CATEGORIES,
    toolBacking,
    profiles: { [PROFILE]: profile },
    naming: loadContract(BUNDLED.contractFile).naming,
  } as unknown as ContractArtifact;
  edit(contract);
  return writeJson(tempDir(), 'contract.json', contract);
}

export interface CheckOptions {
  fixturesDir: string;
  contractFile: string;
  configFile?: string;
  era?: EraChoice;
  today?: string;
  timeoutMs?: number;
}

export function check(target: Target, options: CheckOptions): Promise<RunResult> {
  return checkServer({
    profile: PROFILE,
    target,
    fixturesDir: options.fixturesDir,
    contractFile: options.contractFile,
    configFile: options.configFile,
    era: options.era ?? 'both',
    connection: connectionSettings({ timeoutMs: options.timeoutMs ?? 15_000 }),
    cwd: tempDir(),
    today: options.today ?? '2026-11-30',
  });
}

/** Rule ids of the unsuppressed findings, sorted and unique. */
export function firedRules(result: RunResult): string[] {
  return [...new Set(result.findings.filter((finding) => !finding.suppressed).map((finding) => finding.ruleId))].sort();
}

/** Deep copy of a surface with one edit applied. */
export function mutate(surface: Surface, edit: (copy: Surface) => void): Surface {
  const copy = structuredClone(surface);
  edit(copy);
  return copy;
}

export function toolOf(surface: Surface, name: string) {
  const tool = surface.tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`baseline has no tool ${name}`);
  return tool;
}

/** The properties map of a tool's input schema, for edits. */
export function propsOf(surface: Surface, name: string): Record<string, Record<string, unknown>> {
  return (toolOf(surface, name).inputSchema as { properties: Record<string, Record<string, unknown>> }).properties;
}

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process, in a fresh directory, with only PATH in its environment. */
export async function runCli(args: readonly string[], options: { cwd?: string } = {}): Promise<CliOutcome> {
  let stdout = '';
  let stderr = '';
  const code = await main(['node', 'b2-mcp-conform', ...args], {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    color: false,
    cwd: options.cwd ?? tempDir(),
    env: { PATH: process.env.PATH },
  });
  return { code, stdout, stderr };
}
