import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import {
  CHECKER_NAME,
  CHECKER_VERSION,
  checkResult,
  ConformError,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_TIMEOUT_MS,
  diffResult,
  EXIT,
  formatBytes,
  lintResult,
  parseByteSize,
  parseClientInfo,
  parsePairs,
  parseToolCalls,
  SEVERITIES,
  snapshot as takeSnapshot,
  startSandboxEnv,
  type ClientInfo,
  type EraChoice,
  type OptionNames,
  type RunResult,
  type Severity,
  type TargetOptions,
} from './api.js';
import { FORMATS } from './report/formats.js';
import { reportPlan } from './report/plan.js';
import { jsonSafe } from './report/escape/json.js';
import { terminalSafe } from './report/escape/terminal.js';

// The CLI is flags over the programmatic API (api.ts). Reports, rules and the SDK clients load
// lazily: a stdio server starts first and boots while they load.

interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether colour may be used on stdout. */
  color: boolean;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Whether stderr is a terminal (a probe progress line is drawn there). */
  progress?: boolean;
  /** Resolves when the user stops a `check --sandbox-env` (SIGINT or SIGTERM). */
  untilStopped?: () => Promise<void>;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function clientInfoOf(values: string[] | undefined): { clientInfo?: ClientInfo[] } {
  return values?.length ? { clientInfo: values.map(parseClientInfo) } : {};
}

/** `--max-duration`: `300s`, `5m`, `1500ms`, or a bare number of milliseconds (like --timeout); the API checks that it is positive. */
function duration(value: string): number {
  const match = /^(\d+)(ms|s|m)?$/.exec(value.trim());
  if (!match) throw new ConformError('usage', `--max-duration must be a positive duration such as 300s, 5m or 1500ms, got "${value}"`);
  return Number(match[1]) * ({ ms: 1, s: 1000, m: 60_000 } as const)[(match[2] ?? 'ms') as 'ms' | 's' | 'm'];
}

/** `--seed`, `--timeout`: a number as typed, which the API checks. */
function number(value: string): number {
  return value.trim() === '' ? Number.NaN : Number(value);
}

function byteSize(value: string): number {
  const bytes = parseByteSize(value);
  if (bytes === undefined)
    throw new ConformError('usage', `--max-message-bytes must be a positive size in bytes (e.g. 16777216, 16MiB, 512KiB), got "${value}"`);
  return bytes;
}

/** How the API's messages name the options: as the flags a user of the CLI typed. */
const FLAG_NAMES: OptionNames = {
  server: '--server',
  url: '--url',
  headers: '--header',
  env: '--env',
  timeoutMs: '--timeout',
  maxMessageBytes: '--max-message-bytes',
  maxDurationMs: '--max-duration',
  probeSeed: '--seed',
  probeLogLevel: '--probe-log-level',
  onlyProbes: '--only-probes',
  probeTools: '--probe-tool',
  noProbes: '--no-probes',
  lint: '--lint',
};

interface TargetFlags {
  server?: string;
  url?: string;
  header?: string[];
  env?: string[];
}

/** The target flags as API options (the API says what does not go together). */
function targetOptionsFrom(
  { header = [], env = [], server, url }: TargetFlags,
  io: Io,
): Pick<TargetOptions, 'server' | 'url' | 'env' | 'headers'> {
  return {
    ...(server !== undefined && { server }),
    ...(url !== undefined && { url }),
    ...(env.length > 0 && { env: parsePairs('--env', env, (key) => io.env[key]) }),
    ...(header.length > 0 && { headers: parsePairs('--header', header) }),
  };
}

interface ReportOptions {
  format?: string[];
  output?: string[];
  failOn: Severity;
  verbose?: boolean;
}

async function writeReports(result: RunResult, options: ReportOptions, io: Io): Promise<number> {
  const plan = reportPlan(options.format, options.output, io.cwd);
  const { render } = await import('./report/index.js');
  const { verdictOf } = await import('./report/verdict.js');
  const fullReport = plan.find((entry) => entry.file !== null && (entry.format === 'json' || entry.format === 'sarif'))?.file ?? undefined;
  for (const { format, file } of plan) {
    const text = render(format, result, {
      failOn: options.failOn,
      color: file === null && io.color,
      verbose: Boolean(options.verbose),
      ...(fullReport ? { fullReport } : {}),
    });
    if (file === null) {
      io.stdout(text);
      continue;
    }
    try {
      const path = resolve(io.cwd, file);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    } catch (error) {
      throw new ConformError(
        'usage',
        `cannot write ${format} report to ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  if (result.nothingTested) throw new ConformError('nothing-tested', result.nothingTested);
  const verdict = verdictOf(result.findings, options.failOn);
  if (!verdict.failed) return EXIT.ok;
  const count = SEVERITIES.filter((severity) => SEVERITIES.indexOf(severity) <= SEVERITIES.indexOf(options.failOn)).reduce(
    (sum, severity) => sum + verdict.counts[severity],
    0,
  );
  throw new FindingsFailure(`${count} finding${count === 1 ? '' : 's'} at or above --fail-on ${options.failOn}`);
}

/** Exit 1: the run worked and found problems. Carries the one-line summary for the JSON error line. */
class FindingsFailure extends Error {}

/**
 * A one-line progress display on a terminal's stderr: which probe step runs, n of m. Nothing in
 * a pipe or with --format json.
 */
function progressLine(io: Io, json: boolean): ((done: number, total: number, label: string) => void) | undefined {
  if (!io.progress || json) return undefined;
  return (done, total, label) => {
    if (done >= total) io.stderr('\r\x1b[2K');
    else io.stderr(`\r\x1b[2Kprobes ${done + 1}/${total} · ${terminalSafe(label.replace(/\s+/g, ' ').slice(0, 100))}`);
  };
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/**
 * `check --sandbox-env`: start the probe sandbox, print the server's environment on stdout, write
 * the checker's (admin URL and token) to a file of its own, keep serving until stopped.
 */
async function serveSandboxEnv(profile: string, contractFile: string | undefined, checkerFile: string, io: Io): Promise<number> {
  const sandbox = await startSandboxEnv(profile, contractFile);
  try {
    io.stdout(sandbox.serverEnv);
    writePrivateFile(checkerFile, sandbox.checkerEnv);
    io.stderr(
      `${CHECKER_NAME}: probe sandbox for profile ${sandbox.profile} is running; start the server with the variables above (never with ${checkerFile}), then run check --url <endpoint> --probes with both loaded. Stop with Ctrl-C.\n`,
    );
    await (io.untilStopped ?? waitForSignal)();
  } finally {
    await sandbox.close();
  }
  return EXIT.ok;
}

/** Written whole (temp file and rename) and readable by this user only. */
function writePrivateFile(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(temporary, text, { mode: 0o600 });
    renameSync(temporary, file);
  } catch (error) {
    throw new ConformError('usage', `cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function addTargetOptions(command: Command): Command {
  return command
    .option('--debug', 'show stack traces for errors')
    .option('--server <command>', 'spawn this server command and speak stdio to it (quoted, shell-like words)')
    .option('--url <url>', 'Streamable HTTP endpoint of a running server, e.g. http://127.0.0.1:3000/mcp')
    .option('--header <name=value>', 'HTTP header for --url (repeatable)', collect)
    .option('--env <name[=value]>', 'environment variable for --server (repeatable; NAME alone copies it from this shell)', collect)
    .addOption(new Option('--era <era>', 'protocol eras to speak').choices(['modern', 'legacy', 'both']).default('both'))
    .option('--timeout <ms>', 'per-request timeout in milliseconds', number, DEFAULT_TIMEOUT_MS)
    .addOption(
      new Option(
        '--max-message-bytes <size>',
        'largest message (stdio line, HTTP body, SSE event) and largest whole tools/list or prompts/list answer read from the server',
      )
        .argParser(byteSize)
        .default(DEFAULT_MAX_MESSAGE_BYTES, formatBytes(DEFAULT_MAX_MESSAGE_BYTES).replace(' ', '')),
    )
    .option(
      '--client-info <name/version>',
      'present as this client instead of the default identities (repeatable: the connections take them in turn)',
      collect,
    )
    .option(
      '--profile <name>',
      'contract profile as the contract names it (ours: full, default, read-only; phase1-default = default)',
      'default',
    )
    .option('--pack <name>', 'rule pack to run (rules/packs/: b2 is the default, generic holds any MCP server to its own snapshot)');
}

function addReportOptions(command: Command): Command {
  return command
    .option(
      '--format <format[=file]>',
      `report format: ${FORMATS.join(', ')}; NAME=FILE writes it to FILE (repeatable; at most one to stdout; default pretty)`,
      collect,
    )
    .option('--output <file>', 'write the one --format given to this file (with several formats, use --format NAME=FILE)', collect)
    .addOption(new Option('--fail-on <severity>', 'lowest severity that fails the run').choices([...SEVERITIES]).default('error'))
    .option('--verbose', 'pretty and markdown list every finding in full (by default they are bounded, with a summary first)')
    .option('--config <file>', 'config file (default: b2-mcp-conform.config.json at the git root of the working directory, when present)')
    .option('--no-config', 'ignore every config file')
    .option(
      '--allow-integrity-overrides',
      'let the config turn off, lower or suppress integrity rules (probe integrity, secret leaks, gates, tool-set changes)',
    );
}

function buildProgram(io: Io, setExit: (code: number) => void): Command {
  const program = new Command()
    .name(CHECKER_NAME)
    .description('Contract-conformance checker for Backblaze B2 MCP servers')
    .version(CHECKER_VERSION)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr, outputError: () => {} })
    .showSuggestionAfterError(true);

  const check = program
    .command('check')
    .description('check a live server (default: the bundled b2-mcp) against the frozen contract')
    .option('--fixtures <dir>', 'directory of <profile>.<era>.json fixtures (default: the bundled ones)')
    .option(
      '--contract <file>',
      'contract artifact (default: the one of the repository --fixtures belongs to, docs/generated/ or docs/tool-profile-contract.json, else the bundled one)',
    )
    .option('--probes', 'also run the live probes against a sandbox (default for the bundled server)')
    .option('--no-probes', 'skip the live probes')
    .option('--only-probes', 'run the live probes only, without the static rules (exit 4 when they are not applicable)')
    .option(
      '--probe-log-level <level>',
      'give the probed server sessions LOG_LEVEL=<level> (unset by default: a debug level tells a server it is watched)',
    )
    .option(
      '--max-duration <duration>',
      'budget for the whole run, probes included (300s, 5m, 1500ms; default 5m): probes stop with a partial report',
      duration,
    )
    .option('--probe-tool <name>', 'probe only this tool (repeatable; default: every tool the probe tables cover)', collect)
    .option(
      '--seed <n>',
      "replay a probe run: the seed draws the sessions' clients and configurations and the call order (default: a fresh one, printed in the evidence)",
      number,
    )
    .option('--sandbox-env', 'start a probe sandbox, print the environment for a server started by hand, and keep it running until stopped')
    .option(
      '--checker-env <file>',
      "with --sandbox-env: write the checker's variables (admin URL and token) to this file, never given to the server",
    )
    .option(
      '--scenarios <file>',
      'YAML or JSON file of tool calls and expected results (docs/scenario.schema.json); each unmet expectation is a finding',
    )
    .option(
      '--call-tool <name[=args.json]>',
      'call this read-only tool once (arguments from the JSON file) and check that a text block equals its structuredContent (repeatable)',
      collect,
    )
    .option('--lint [dir]', 'also lint a checkout (default: the git root of the working directory) and report both in one report');
  addReportOptions(addTargetOptions(check)).action(async (options) => {
    if (options.sandboxEnv) {
      if (options.server || options.url || options.probes !== undefined || options.onlyProbes)
        throw new ConformError(
          'usage',
          '--sandbox-env runs on its own: start the server with what it prints, then run check --url … --probes in a shell that has those variables',
        );
      if (!options.checkerEnv)
        throw new ConformError(
          'usage',
          "--sandbox-env needs --checker-env FILE: the checker's variables go there, apart from the server's",
        );
      setExit(await serveSandboxEnv(options.profile, options.contract, resolve(io.cwd, options.checkerEnv), io));
      return;
    }
    if (options.checkerEnv) throw new ConformError('usage', '--checker-env goes with --sandbox-env');
    const plan = reportPlan(options.format, options.output, io.cwd); // a bad --format/--output fails before anything is started
    const onProgress = progressLine(
      io,
      plan.some((entry) => entry.format === 'json' && entry.file === null),
    );
    const result = await checkResult(
      {
        ...targetOptionsFrom(options, io),
        profile: options.profile,
        fixtures: options.fixtures,
        contract: options.contract,
        era: options.era as EraChoice,
        timeoutMs: options.timeout,
        maxMessageBytes: options.maxMessageBytes,
        config: options.config,
        allowIntegrityOverrides: Boolean(options.allowIntegrityOverrides),
        cwd: io.cwd,
        probes: options.probes,
        onlyProbes: Boolean(options.onlyProbes),
        pack: options.pack,
        ...(options.scenarios !== undefined && { scenarios: resolve(io.cwd, options.scenarios) }),
        ...(options.callTool && { callTools: await parseToolCalls(options.callTool as string[], io.cwd) }),
        processEnv: io.env,
        ...clientInfoOf(options.clientInfo),
        probeTools: options.probeTool,
        maxDurationMs: options.maxDuration,
        probeLogLevel: options.probeLogLevel,
        probeSeed: options.seed,
        ...(onProgress && { onProgress }),
        lint: options.lint,
      },
      FLAG_NAMES,
    );
    setExit(await writeReports(result, options, io));
  });

  const snapshot = program
    .command('snapshot')
    .description('write fixtures of a live server in the generator format (pre-release review)')
    .requiredOption(
      '--out <dir>',
      'directory to write <profile>.<era>.json into (and the prompt fixture, when the server advertises prompts)',
    );
  addTargetOptions(snapshot).action(async (options) => {
    const snapshotOptions = {
      ...targetOptionsFrom(options, io),
      profile: options.profile,
      out: options.out,
      era: options.era as EraChoice,
      timeoutMs: options.timeout,
      maxMessageBytes: options.maxMessageBytes,
      ...clientInfoOf(options.clientInfo),
      ...(options.pack !== undefined && { pack: options.pack }),
    };
    const { written } = await takeSnapshot(snapshotOptions, FLAG_NAMES);
    for (const { file, items, count, hash } of written)
      io.stdout(`wrote ${file} (${count} ${items}${hash ? `, hash ${hash.slice(0, 12)}` : ''})\n`);
    setExit(EXIT.ok);
  });

  const diff = program
    .command('diff')
    .description('compare two fixture directories offline, with the same change classes as check')
    .argument('<before>', 'fixtures directory with the expected (old) fixtures')
    .argument('<after>', 'fixtures directory with the new fixtures');
  addReportOptions(diff)
    .option(
      '--contract <file>',
      'contract whose recorded renames apply (default: the one of the repository <after> or <before> belongs to, else the bundled one); the contracts beside <before> and <after> are compared with each other either way',
    )
    .option('--debug', 'show stack traces for errors')
    .action(async (before: string, after: string, options) => {
      reportPlan(options.format, options.output, io.cwd);
      const result = await diffResult({
        before,
        after,
        contract: options.contract,
        config: options.config,
        allowIntegrityOverrides: Boolean(options.allowIntegrityOverrides),
        cwd: io.cwd,
      });
      setExit(await writeReports(result, options, io));
    });

  const lint = program
    .command('lint')
    .description(
      'lint a checkout of a B2 MCP server without running it: fixtures, contract artifact, generated reference, README, docs, playbooks and manifests must agree',
    )
    .argument('[dir]', 'the checkout (default: the git root of the working directory)');
  addReportOptions(lint)
    .option('--pack <name>', 'rule pack to run (default: lint)')
    .option('--debug', 'show stack traces for errors')
    .action(async (dir: string | undefined, options) => {
      reportPlan(options.format, options.output, io.cwd);
      const result = await lintResult({
        ...(dir !== undefined ? { dir } : {}),
        ...(options.pack !== undefined ? { pack: options.pack } : {}),
        config: options.config,
        allowIntegrityOverrides: Boolean(options.allowIntegrityOverrides),
        cwd: io.cwd,
      });
      setExit(await writeReports(result, options, io));
    });

  program
    .command('rules')
    .description('list every rule with its id, severity, description and documentation')
    .addOption(new Option('--format <format>', 'output format').choices(['pretty', 'json', 'markdown']).default('pretty'))
    .action(async (options) => {
      const { renderRules } = await import('./report/rules-list.js');
      io.stdout(renderRules(options.format));
      setExit(EXIT.ok);
    });
  return program;
}

/** Errors are JSON lines when the JSON report goes to stdout (a machine reads it there). */
function wantsJson(argv: readonly string[]): boolean {
  const json = (value: string | undefined) => value === 'json';
  return argv.some(
    (arg, index) => (arg.startsWith('--format=') && json(arg.slice('--format='.length))) || (arg === '--format' && json(argv[index + 1])),
  );
}

function errorLine(code: string, message: string, json: boolean): string {
  return json
    ? `${jsonSafe({ error: { code, message } })}\n`
    : `${CHECKER_NAME}: ${code === 'findings' ? '' : 'error: '}${terminalSafe(message)}\n`;
}

/** A stack trace can quote what a server sent: each line is made terminal-safe. */
function stackLines(stack: string): string {
  return `${stack.split('\n').map(terminalSafe).join('\n')}\n`;
}

/** Colour on stdout: never with NO_COLOR, always with FORCE_COLOR (not 0), else only on a terminal. */
export function colorWanted(env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return isTTY;
}

function defaultIo(): Io {
  const env = process.env;
  const color = colorWanted(env, Boolean(process.stdout.isTTY));
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    color,
    cwd: process.cwd(),
    env,
    progress: Boolean(process.stderr.isTTY),
  };
}

/** Run the CLI and return the exit code (0 ok, 1 findings, 2 usage/config, 3 connection/protocol, 4 nothing tested). */
export async function main(argv: readonly string[] = process.argv, io: Io = defaultIo()): Promise<number> {
  const args = argv.slice(2);
  const json = wantsJson(args);
  const debug = args.includes('--debug');
  let exitCode: number = EXIT.ok;
  try {
    await buildProgram(io, (code) => (exitCode = code)).parseAsync([...args], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof FindingsFailure) {
      if (json) io.stderr(errorLine('findings', error.message, true));
      return EXIT.findings;
    }
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return EXIT.ok; // --help, --version
      const message = error.message.replace(/^error: /, '').split('\n')[0]!;
      io.stderr(errorLine('usage', message, json));
      return EXIT.usage;
    }
    if (error instanceof ConformError) {
      io.stderr(errorLine(error.code, error.message, json));
      if (debug && error.stack) io.stderr(stackLines(error.stack));
      return error.exitCode;
    }
    io.stderr(internalError(error, json, debug));
    return EXIT.usage;
  }
}

/** An error the checker did not expect: one line (its stack only with --debug), every line terminal-safe. */
function internalError(error: unknown, json: boolean, debug: boolean): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = errorLine('internal', `${message.split('\n')[0]}${debug ? '' : ' (run with --debug for details)'}`, json);
  return debug && error instanceof Error && error.stack ? `${line}${stackLines(error.stack)}` : line;
}

/**
 * What the bin prints, and exits with, for an error thrown outside `main`'s own flow (an SDK callback
 * that throws on what a server sent): the same line as any internal error, never Node's raw trace.
 */
export function crashReport(error: unknown, argv: readonly string[]): { text: string; exitCode: number } {
  const args = argv.slice(2);
  return { text: internalError(error, wantsJson(args), args.includes('--debug')), exitCode: EXIT.usage };
}

/** For the bin: report such an error that way and exit, instead of Node's default. */
export function reportCrashes(argv: readonly string[]): void {
  const crash = (error: unknown) => {
    const { text, exitCode } = crashReport(error, argv);
    process.stderr.write(text, () => process.exit(exitCode));
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
}
