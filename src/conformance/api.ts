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
import type { Evidence, RunResult } from './report/evidence.js';
import type { ReportFinding } from './report/json.js';
import type { ProgressListener } from './probes/types.js';
import type { CheckRequest } from './commands/check-inputs.js';
import type { JudgeSettings } from './rules/judge.js';
import { prepareServers, type Prepared } from './commands/servers.js';
import type { WrittenFixture } from './snapshot/snapshot.js';
import { callerCallback, withoutSdkConsole } from './connect/sdk-console.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from './connect/reading-limits.js';
import type { ConnectionSettings } from './connect/settings.js';
import { httpTarget, resolveContractProfile, stdioTarget, type Target } from './connect/target.js';

// What the CLI reads through this module besides the functions below: it imports no stage itself.
export { ConformError, EXIT } from './errors.js';
export { SEVERITIES, type Severity } from './rules/findings.js';
export type { RunResult } from './report/evidence.js';
export { CHECKER_NAME, CHECKER_VERSION } from './package-root.js';
export { parseClientInfo, type ClientInfo } from './connect/client-identities.js';
export type { EraChoice } from './connect/connections.js';
export { parsePairs } from './connect/target.js';
export { DEFAULT_MAX_MESSAGE_BYTES, formatBytes, parseByteSize } from './connect/reading-limits.js';
export type { ConnectionSettings } from './connect/settings.js';

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

/**
 * How a caller's users spell the options that a mistake can name: the API's own option names by
 * default; the CLI passes its flags, so every message names what its user typed.
 */
export interface OptionNames {
  server: string;
  url: string;
  headers: string;
  env: string;
  timeoutMs: string;
  maxMessageBytes: string;
  maxDurationMs: string;
  probeSeed: string;
  probeLogLevel: string;
  onlyProbes: string;
  probeTools: string;
  /** `probes: false`. */
  noProbes: string;
  lint: string;
}

const API_OPTION_NAMES: OptionNames = {
  server: 'server',
  url: 'url',
  headers: 'headers',
  env: 'env',
  timeoutMs: 'timeoutMs',
  maxMessageBytes: 'maxMessageBytes',
  maxDurationMs: 'maxDurationMs',
  probeSeed: 'probeSeed',
  probeLogLevel: 'probeLogLevel',
  onlyProbes: 'onlyProbes',
  probeTools: 'probeTools',
  noProbes: 'probes: false',
  lint: 'lint',
};

function failOnOf(value: Severity | undefined): Severity {
  if (value === undefined) return 'error';
  if (!(SEVERITIES as readonly string[]).includes(value))
    throw new ConformError('usage', `unknown failOn "${value}" (expected ${SEVERITIES.join(', ')})`);
  return value;
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new ConformError('usage', `${name} must be a positive integer, got ${value}`);
  return value;
}

/** A probe run's seed: a positive integer below 2^31, as the evidence prints it. */
function probeSeedOf(value: unknown, names: OptionNames): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0 || value >= 2 ** 31) {
    throw new ConformError(
      'usage',
      `${names.probeSeed} must be a positive integer below 2147483648 (as a report's probe evidence prints it), got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function probeLogLevelOf(value: string | undefined, names: OptionNames): string | undefined {
  if (value !== undefined && !/^[a-z]{1,16}$/.test(value))
    throw new ConformError('usage', `${names.probeLogLevel} must be a log level such as debug or info, got "${value.slice(0, 40)}"`);
  return value;
}

function maxDurationOf(value: number | undefined, names: OptionNames): number | undefined {
  return value === undefined ? undefined : positiveInteger(value, names.maxDurationMs);
}

/** The one connection-settings object of a run, every default filled in. */
export function connectionSettings(
  options: Pick<TargetOptions, 'timeoutMs' | 'clientInfo' | 'maxMessageBytes'> = {},
  names: OptionNames = API_OPTION_NAMES,
): ConnectionSettings {
  return {
    timeoutMs: options.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : positiveInteger(options.timeoutMs, names.timeoutMs),
    clientInfo: options.clientInfo ?? [],
    maxMessageBytes:
      options.maxMessageBytes === undefined ? DEFAULT_MAX_MESSAGE_BYTES : positiveInteger(options.maxMessageBytes, names.maxMessageBytes),
  };
}

/** The server a run talks to, or null for the bundled b2-mcp. */
function targetOf(options: Pick<TargetOptions, 'server' | 'env' | 'url' | 'headers'>, names: OptionNames): Target | null {
  if (options.server !== undefined && options.url !== undefined)
    throw new ConformError('usage', `use either ${names.server} or ${names.url}, not both`);
  if (options.headers && Object.keys(options.headers).length > 0 && options.url === undefined)
    throw new ConformError('usage', `${names.headers} needs ${names.url}`);
  if (options.env && Object.keys(options.env).length > 0 && options.server === undefined) {
    throw new ConformError('usage', `${names.env} needs ${names.server} (the bundled server never gets extra environment)`);
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
function probesWanted(options: CheckOptions, target: Target | null, names: OptionNames): boolean {
  if ((options.onlyProbes || options.probeTools?.length) && options.probes === false) {
    throw new ConformError(
      'usage',
      `use either ${options.onlyProbes ? names.onlyProbes : names.probeTools} or ${names.noProbes}, not both`,
    );
  }
  return Boolean(options.onlyProbes || options.probeTools?.length) || (options.probes ?? (target === null && options.pack === undefined));
}

/** `check --lint`: the checkout to lint as well; not with the probes alone, which judge no files. */
function lintDirOf(options: CheckOptions, names: OptionNames): CheckRequest['lint'] {
  if (options.lint === undefined) return undefined;
  if (options.onlyProbes)
    throw new ConformError('usage', `use either ${names.onlyProbes} or ${names.lint}, not both: the probes alone judge no files`);
  return { dir: options.lint === true ? undefined : options.lint };
}

/** What every judging command reads its rules and config from. */
function judgeSettingsOf(options: JudgeOptions): JudgeSettings {
  return { configFile: options.config, allowIntegrityOverrides: options.allowIntegrityOverrides, cwd: options.cwd, today: options.today };
}

function checkRequestOf(options: CheckOptions, names: OptionNames): CheckRequest {
  const target = targetOf(options, names);
  return {
    profile: options.profile ?? 'default',
    target,
    era: options.era ?? 'both',
    connection: connectionSettings(options, names),
    probes: probesWanted(options, target, names),
    onlyProbes: Boolean(options.onlyProbes),
    env: options.processEnv ?? process.env,
    fixturesDir: options.fixtures,
    contractFile: options.contract,
    ...judgeSettingsOf(options),
    probeTools: options.probeTools,
    maxDurationMs: maxDurationOf(options.maxDurationMs, names),
    probeLogLevel: probeLogLevelOf(options.probeLogLevel, names),
    probeSeed: probeSeedOf(options.probeSeed, names),
    onProgress: options.onProgress && callerCallback(options.onProgress),
    pack: options.pack,
    scenariosFile: options.scenarios,
    callTools: options.callTools,
    lint: lintDirOf(options, names),
  };
}

/**
 * `check`, returning the run itself (the CLI renders every format from it). The server is
 * started before the run's rules, clients and reports load, so it boots meanwhile; not when a
 * pack's snapshot decides the eras first, nor for the probes alone, which start their own.
 */
export async function checkResult(options: CheckOptions, names: OptionNames = API_OPTION_NAMES): Promise<RunResult> {
  const request = checkRequestOf(options, names);
  const prepared: Prepared = request.onlyProbes || request.pack !== undefined ? {} : prepareServers(request);
  const { checkServer } = await import('./commands/check.js');
  return withoutSdkConsole(() => checkServer(request, prepared));
}

/** Check a live server (default: the bundled b2-mcp) against the frozen contract. */
export async function check(options: CheckOptions = {}): Promise<ConformanceReport> {
  const failOn = failOnOf(options.failOn);
  return reportOf(await checkResult(options), failOn);
}

/** `diff`, returning the run itself. */
export async function diffResult(options: DiffOptions): Promise<RunResult> {
  const { diffFixtureDirs } = await import('./commands/diff.js');
  return diffFixtureDirs({ before: options.before, after: options.after, contractFile: options.contract, ...judgeSettingsOf(options) });
}

/** Compare two fixture directories offline, with the same change classes as `check`. */
export async function diff(options: DiffOptions): Promise<ConformanceReport> {
  const failOn = failOnOf(options.failOn);
  return reportOf(await diffResult(options), failOn);
}

/** `lint`, returning the run itself. */
export async function lintResult(options: LintOptions = {}): Promise<RunResult> {
  const { lintCheckout } = await import('./lint/run.js');
  return lintCheckout({ dir: options.dir, pack: options.pack, ...judgeSettingsOf(options) });
}

/**
 * Lint a checkout of a B2 MCP server without running it: its fixtures, contract artifact,
 * generated profile reference, README, docs, skill playbooks and manifests must agree.
 */
export async function lint(options: LintOptions = {}): Promise<ConformanceReport> {
  const failOn = failOnOf(options.failOn);
  return reportOf(await lintResult(options), failOn);
}

/** Write fixtures of a live server in the generator's format. */
export async function snapshot(options: SnapshotOptions, names: OptionNames = API_OPTION_NAMES): Promise<SnapshotResult> {
  const { snapshotServer } = await import('./commands/snapshot.js');
  const request: Parameters<typeof snapshotServer>[0] = {
    profile: options.profile ?? 'default',
    target: targetOf(options, names),
    outDir: options.out,
    era: options.era ?? 'both',
    connection: connectionSettings(options, names),
    pack: options.pack,
  };
  const { written } = await withoutSdkConsole(() => snapshotServer(request));
  return { written };
}

/** `--call-tool NAME[=args.json]`, each read relative to `cwd`. */
export async function parseToolCalls(
  specs: readonly string[],
  cwd: string,
): Promise<{ tool: string; arguments: Record<string, unknown> }[]> {
  const { parseToolCall } = await import('./probes/scenarios.js');
  return specs.map((spec) => parseToolCall(spec, cwd));
}

/** A running probe sandbox for a server started by hand (`check --sandbox-env`). */
export interface ProbeSandboxEnv {
  /** The profile as the contract names it. */
  profile: string;
  /** The server's environment, as `NAME=value` lines. */
  serverEnv: string;
  /** The checker's (admin URL and token), never for the server. */
  checkerEnv: string;
  close: () => Promise<void>;
}

/** Start a probe sandbox for the contract profile (contract: as `check` finds it), listening for a server started by hand. */
export async function startSandboxEnv(profile: string, contractFile: string | undefined): Promise<ProbeSandboxEnv> {
  const [{ checkerEnvLines, sandboxEnvLines, startProbeSandbox }, { contractInUse }] = await Promise.all([
    import('./probes/sandbox.js'),
    import('./diff/fixtures.js'),
  ]);
  const { file, contract } = contractInUse(contractFile, []);
  const name = resolveContractProfile(profile, Object.keys(contract.profiles), file);
  const sandbox = await startProbeSandbox(contract.profiles[name as keyof typeof contract.profiles].capabilities, { listener: true });
  return {
    profile: name,
    serverEnv: sandboxEnvLines(sandbox),
    checkerEnv: checkerEnvLines(sandbox.listener!),
    close: () => sandbox.close(),
  };
}
