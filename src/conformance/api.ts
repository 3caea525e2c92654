/**
 * The checker as a library: what `b2-mcp-conform check`, `diff` and `snapshot` do, as functions
 * that return data. Nothing here prints or exits; failures are thrown as ConformError, whose
 * `code` and `exitCode` are the CLI's. The run, the clients and the reports load on first use,
 * so the CLI can start a server before it pays for them.
 */
import type { ClientInfo } from './connect/client-identities.js';
import type { EraChoice } from './connect/connections.js';
import { ConformError } from './errors.js';
import { SEVERITIES, type Severity } from './rules/findings.js';
import type { Evidence } from './report/evidence.js';
import type { ReportFinding } from './report/json.js';
import type { ProgressListener } from './probes/types.js';
import type { Prepared, RunResult } from './commands/run.js';
import type { WrittenFixture } from './snapshot/snapshot.js';
import { callerCallback, withoutSdkConsole } from './connect/sdk-console.js';
import { httpTarget, stdioTarget, type Target } from './connect/target.js';

/** How to reach the server under audit. Neither `server` nor `url`: the bundled b2-mcp. */
export interface TargetOptions {
  /** A stdio server command line (shell-like words), e.g. `node dist/server.js --stdio`. */
  server?: string;
  /** Environment for the `server` command (the checker passes nothing else of its own). */
  env?: Record<string, string>;
  /** A Streamable HTTP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  url?: string;
  /** HTTP headers sent with every request to `url`. */
  headers?: Record<string, string>;
  /** Contract profile as the contract in use names it (ours: `full`, `default` (the default), `read-only`); `phase1-default` = `default`. */
  profile?: string;
  /** Protocol eras to speak (default both). */
  era?: EraChoice;
  /** Per-request timeout in milliseconds (default 10 000). */
  timeoutMs?: number;
  /** The identities the checker's connections present (default: ordinary MCP clients). */
  clientInfo?: ClientInfo[];
  /** Largest message (stdio line, HTTP body, SSE event) and largest whole tools/list or prompts/list answer read from the server, in bytes (default 16 MiB). */
  maxMessageBytes?: number;
  /** Rule pack (rules/packs/*.json; default: the pack marked default). A pack with a snapshot baseline holds any server to its own snapshot. */
  pack?: string;
}

export interface ScenarioOptions {
  /** A YAML or JSON scenario file (docs/scenario.schema.json): each call runs and its expectations are findings. */
  scenarios?: string;
  /** `--call-tool`: read-only tools the checker may call once each (with these arguments); each structured result's text block must equal it. */
  callTools?: { tool: string; arguments: Record<string, unknown> }[];
}

export interface JudgeOptions {
  /** Lowest severity that makes the verdict `fail` (default `error`). */
  failOn?: Severity;
  /** A config file (rule severities, suppressions); default `b2-mcp-conform.config.json` at the git root of `cwd` when present; false ignores every config file. */
  config?: string | false;
  /** Let a config file turn off, lower or suppress integrity rules. */
  allowIntegrityOverrides?: boolean;
  /** Directory the config is looked up in (default the process's). */
  cwd?: string;
  /** YYYY-MM-DD: suppressions expire after it (default today, UTC). */
  today?: string;
}

export interface CheckOptions extends TargetOptions, JudgeOptions, ScenarioOptions {
  /** Directory of `<profile>.<era>.json` fixtures (default the bundled ones). */
  fixtures?: string;
  /** Contract artifact (default: the one of the repository `fixtures` belongs to, else the bundled `docs/generated/tool-profile-contract.json`). */
  contract?: string;
  /** Run the live probes against a local sandbox (default: only for the bundled server). */
  probes?: boolean;
  /** Run the probes only, without the static rules. */
  onlyProbes?: boolean;
  /** Probe only these tools. */
  probeTools?: string[];
  /** LOG_LEVEL for the probed server sessions (unset unless given: a debug level tells a server it is watched). */
  probeLogLevel?: string;
  /** Replays a probe run: the seed its evidence printed draws the same sessions and call order (default a fresh seed). */
  probeSeed?: number;
  /** Budget for the whole run in milliseconds, probes included (default 5 minutes): the probes stop at it with a partial report. */
  maxDurationMs?: number;
  /** Called as probe steps start. */
  onProgress?: ProgressListener;
  /** Where `check --sandbox-env`'s variables are read from (default the process's). */
  processEnv?: NodeJS.ProcessEnv;
  /** Also lint a checkout, in the same report: its directory, or true for the git root of `cwd` (see {@link lint}). */
  lint?: string | true;
}

export interface DiffOptions extends JudgeOptions {
  /** Fixtures directory with the expected (old) fixtures. */
  before: string;
  /** Fixtures directory with the new fixtures. */
  after: string;
  /** Contract whose recorded renames apply (default: the one of the repository `after`, then `before`, belongs to, else the bundled one). */
  contract?: string;
}

export interface LintOptions extends JudgeOptions {
  /** The checkout to lint, relative to `cwd` (default: the git root of `cwd`, else `cwd`). */
  dir?: string;
  /** Rule pack (default: the pack whose baseline is a repository). */
  pack?: string;
}

export interface SnapshotOptions extends TargetOptions {
  /** Directory to write `<profile>.<era>.json` (and the prompt fixture) into. */
  out: string;
}

/** The report `--format json` prints, as data; docs/report.schema.json describes every field. */
export interface ConformanceReport {
  schemaVersion: number;
  tool: { name: string; version: string };
  command: 'check' | 'diff' | 'lint';
  verdict: 'pass' | 'fail';
  failOn: Severity;
  summary: Record<Severity, number> & { suppressed: number };
  findings: ReportFinding[];
  /** Each changed tool's input schemas (fixture and live) once; a finding names its pair in `schemasRef`. */
  schemas: Record<string, { before: unknown; after: unknown }>;
  evidence: Evidence;
}

export interface SnapshotResult {
  written: WrittenFixture[];
}

export const DEFAULT_TIMEOUT_MS = 10_000;

function failOnOf(value: Severity | undefined): Severity {
  if (value === undefined) return 'error';
  if (!(SEVERITIES as readonly string[]).includes(value)) throw new ConformError('usage', `unknown failOn "${value}" (expected ${SEVERITIES.join(', ')})`);
  return value;
}

function maxMessageBytesOf(value: number | undefined): { maxMessageBytes?: number } {
  if (value === undefined) return {};
  if (!Number.isSafeInteger(value) || value <= 0) throw new ConformError('usage', `maxMessageBytes must be a positive integer, got ${value}`);
  return { maxMessageBytes: value };
}

/** A probe run's seed: a positive integer below 2^31, as the evidence prints it. */
export function probeSeedOf(value: unknown): { probeSeed?: number } {
  if (value === undefined) return {};
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value >= 2 ** 31) throw new ConformError('usage', `the probe seed must be a positive integer below 2147483648 (as a report's probe evidence prints it), got ${JSON.stringify(value)}`);
  return { probeSeed: value };
}

function probeLogLevelOf(value: string | undefined): { probeLogLevel?: string } {
  if (value === undefined) return {};
  if (!/^[a-z]{1,16}$/.test(value)) throw new ConformError('usage', `probeLogLevel must be a log level such as debug or info, got "${value.slice(0, 40)}"`);
  return { probeLogLevel: value };
}

function maxDurationOf(value: number | undefined): { maxDurationMs?: number } {
  if (value === undefined) return {};
  if (!Number.isSafeInteger(value) || value <= 0) throw new ConformError('usage', `maxDurationMs must be a positive integer, got ${value}`);
  return { maxDurationMs: value };
}

function timeoutOf(value: number | undefined): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(value) || value <= 0) throw new ConformError('usage', `timeoutMs must be a positive integer, got ${value}`);
  return value;
}

/** The server a run talks to, or null for the bundled b2-mcp. */
export function targetOf(options: Pick<TargetOptions, 'server' | 'env' | 'url' | 'headers'>): Target | null {
  if (options.server !== undefined && options.url !== undefined) throw new ConformError('usage', 'use either server or url, not both');
  if (options.headers && Object.keys(options.headers).length > 0 && options.url === undefined) throw new ConformError('usage', 'headers need a url');
  if (options.env && Object.keys(options.env).length > 0 && options.server === undefined) {
    throw new ConformError('usage', 'env needs a server command (the bundled server never gets extra environment)');
  }
  if (options.server !== undefined) return stdioTarget(options.server, { ...options.env });
  if (options.url !== undefined) return httpTarget(options.url, { ...options.headers });
  return null;
}

/** The report a finished run renders as JSON: parsed back from the very text the CLI prints. */
async function reportOf(result: RunResult, failOn: Severity): Promise<ConformanceReport> {
  const [{ renderJson }, { verdictOf }] = await Promise.all([import('./report/json.js'), import('./report/verdict.js')]);
  return JSON.parse(renderJson(result, verdictOf(result.findings, failOn))) as ConformanceReport;
}

/** Whether probes run: asked for explicitly, or by default for the bundled server only. */
function probesWanted(options: CheckOptions, target: Target | null): boolean {
  if ((options.onlyProbes || options.probeTools?.length) && options.probes === false) {
    throw new ConformError('usage', `use either ${options.onlyProbes ? 'onlyProbes' : 'probeTools'} or probes: false, not both`);
  }
  return Boolean(options.onlyProbes || options.probeTools?.length) || (options.probes ?? (target === null && options.pack === undefined));
}

/** `check --lint`: the checkout to lint as well; not with the probes alone, which judge no files. */
function lintDirOf(options: CheckOptions): { lint?: { dir?: string } } {
  if (options.lint === undefined) return {};
  if (options.onlyProbes) throw new ConformError('usage', 'use either onlyProbes or lint, not both: the probes alone judge no files');
  return { lint: options.lint === true ? {} : { dir: options.lint } };
}

/** `check`, returning the run itself (the CLI renders every format from it). */
export async function checkRun(options: CheckOptions, prepared: Prepared = {}): Promise<RunResult> {
  const target = targetOf(options);
  const { runCheck } = await import('./commands/run.js');
  const request: Parameters<typeof runCheck>[0] = {
    profile: options.profile ?? 'default',
    target,
    era: options.era ?? 'both',
    timeoutMs: timeoutOf(options.timeoutMs),
    probes: probesWanted(options, target),
    onlyProbes: Boolean(options.onlyProbes),
    env: options.processEnv ?? process.env,
    ...(options.fixtures !== undefined && { fixturesDir: options.fixtures }),
    ...(options.contract !== undefined && { contractFile: options.contract }),
    ...(options.config !== undefined && { configFile: options.config }),
    ...(options.allowIntegrityOverrides !== undefined && { allowIntegrityOverrides: options.allowIntegrityOverrides }),
    ...(options.cwd !== undefined && { cwd: options.cwd }),
    ...(options.today !== undefined && { today: options.today }),
    ...(options.probeTools?.length && { probeTools: options.probeTools }),
    ...(options.clientInfo?.length && { clientInfo: options.clientInfo }),
    ...maxMessageBytesOf(options.maxMessageBytes),
    ...maxDurationOf(options.maxDurationMs),
    ...probeLogLevelOf(options.probeLogLevel),
    ...probeSeedOf(options.probeSeed),
    ...(options.onProgress && { onProgress: callerCallback(options.onProgress) }),
    ...(options.pack !== undefined && { pack: options.pack }),
    ...(options.scenarios !== undefined && { scenariosFile: options.scenarios }),
    ...(options.callTools?.length && { callTools: options.callTools }),
    ...lintDirOf(options),
  };
  return withoutSdkConsole(() => runCheck(request, prepared));
}

/** Check a live server (default: the bundled b2-mcp) against the frozen contract. */
export async function check(options: CheckOptions = {}): Promise<ConformanceReport> {
  const failOn = failOnOf(options.failOn);
  return reportOf(await checkRun(options), failOn);
}

/** `diff`, returning the run itself. */
export async function diffRun(options: DiffOptions): Promise<RunResult> {
  const { runDiff } = await import('./commands/run.js');
  return runDiff({
    before: options.before,
    after: options.after,
    ...(options.contract !== undefined && { contractFile: options.contract }),
    ...(options.config !== undefined && { configFile: options.config }),
    ...(options.allowIntegrityOverrides !== undefined && { allowIntegrityOverrides: options.allowIntegrityOverrides }),
    ...(options.cwd !== undefined && { cwd: options.cwd }),
    ...(options.today !== undefined && { today: options.today }),
  });
}

/** Compare two fixture directories offline, with the same change classes as `check`. */
export async function diff(options: DiffOptions): Promise<ConformanceReport> {
  const failOn = failOnOf(options.failOn);
  return reportOf(await diffRun(options), failOn);
}

/** `lint`, returning the run itself. */
export async function lintRun(options: LintOptions = {}): Promise<RunResult> {
  const { runLint } = await import('./lint/run.js');
  return runLint({
    ...(options.dir !== undefined && { dir: options.dir }),
    ...(options.pack !== undefined && { pack: options.pack }),
    ...(options.config !== undefined && { configFile: options.config }),
    ...(options.allowIntegrityOverrides !== undefined && { allowIntegrityOverrides: options.allowIntegrityOverrides }),
    ...(options.cwd !== undefined && { cwd: options.cwd }),
    ...(options.today !== undefined && { today: options.today }),
  });
}

/**
 * Lint a checkout of a B2 MCP server without running it: its fixtures, contract artifact,
 * generated profile reference, README, docs, skill playbooks and manifests must agree.
 */
export async function lint(options: LintOptions = {}): Promise<ConformanceReport> {
  const failOn = failOnOf(options.failOn);
  return reportOf(await lintRun(options), failOn);
}

/** Write fixtures of a live server in the generator's format. */
export async function snapshot(options: SnapshotOptions): Promise<SnapshotResult> {
  const { runSnapshot } = await import('./commands/run.js');
  const request: Parameters<typeof runSnapshot>[0] = {
    profile: options.profile ?? 'default',
    target: targetOf(options),
    outDir: options.out,
    era: options.era ?? 'both',
    timeoutMs: timeoutOf(options.timeoutMs),
    ...(options.clientInfo?.length && { clientInfo: options.clientInfo }),
    ...maxMessageBytesOf(options.maxMessageBytes),
    ...(options.pack !== undefined && { pack: options.pack }),
  };
  const { written } = await withoutSdkConsole(() => runSnapshot(request));
  return { written };
}
