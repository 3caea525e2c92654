import type { Era } from '../../contract/constants.js';
import type { ToolFixture } from '../../contract/fixture.js';
import type { IdentityName } from '../connect/client-identities.js';
import type { ConnectionSettings } from '../connect/settings.js';
import { LEGACY_PROTOCOL_VERSIONS } from '../connect/connections.js';
import { argumentSteps, type ArgumentCall } from './arguments.js';
import { seededRandom } from '../../sandbox/seeded-random.js';
import { newSeed, pick, shuffled } from './draw.js';
import { judgeFormat, type FormatMode } from './format.js';
import { gateSteps, type GateRun } from './gate.js';
import { ProbeRun } from './run-state.js';
import { readMutationSteps, type ReadWindow } from './reads.js';
import {
  SANDBOX_ADMIN_VARIABLE,
  attachProbeSandbox,
  mutationMark,
  requestMark,
  sandboxServerEnv,
  startProbeSandbox,
  type ProbeSandbox,
} from './sandbox.js';
import { openSession, type ProbeServer, type ProbeSession, type SessionOutput, type SessionSpec } from './sessions.js';
import {
  fillTemplate,
  loadProbeTables,
  referencedNames,
  type Arguments,
  type GateProbeSpec,
  type ProbeTables,
  type ReadProbeSpec,
} from './table.js';
import { TargetSeeder, type TargetSpec, type TargetValues } from './targets.js';
import { judgeRelisted, judgeSurfaces } from './surface.js';
import type { ProbeEvidence, ProbeOutcome, ProgressListener } from './types.js';
import { writeSteps } from './writes.js';

export interface ProbeRequest {
  /** The key the server gets holds these capabilities; null is the full surface (with a Partner key). */
  capabilities: readonly string[] | null;
  /** The profile's fixture: which tools are gated. */
  fixture: ToolFixture;
  /** The profile's fixtures by era, to compare every session's tools/list and instructions with. */
  fixtures?: Partial<Record<Era, ToolFixture>>;
  /** Draws the sessions' clients, the other era's configuration and the call order; a fresh one when absent (printed in the evidence). */
  seed?: number;
  server: ProbeServer;
  /** Speak the modern era (else the 2025 era). */
  modern: boolean;
  /** The run's connection settings: every session's timeout, identities and read limit. */
  connection: ConnectionSettings;
  /** The checker's environment: a `--sandbox-env` sandbox is found through it. */
  env: NodeJS.ProcessEnv;
  onProgress?: ProgressListener;
  tablesDir?: string;
  /** Probe only these tools (gate and read probes); every listed tool when absent. */
  tools?: readonly string[];
  /** LOG_LEVEL for the spawned sessions; none unless asked for. */
  serverLogLevel?: string;
  /** The probes must be done by then, on the `now` clock (session start-up included). */
  deadline: number;
  /** `--max-duration` as given, for messages. */
  budgetLabel: string;
  /** The clock `deadline` is on; performance.now by default. */
  now?: () => number;
}

/** Clients that answer form elicitation, and clients that do not: each session draws one of its kind. */
const ELICITING: readonly IdentityName[] = ['claudeCode', 'vscode', 'cursor'];
const NOT_ELICITING: readonly IdentityName[] = ['claudeDesktop', 'zed'];

/**
 * The server configurations the probes need: gates and TOON, elicitation and `auto`, the block
 * policy, and JSON with the confirm policy in the other era. The seed deals the clients (both
 * clients without elicitation, two of the three with it, the last also in the other era), the
 * protocol version offered there, and sampling (declared by one of plain and block, and by one of
 * elicit and era), so a fork cannot tell which it will meet.
 */
function spawnedSessions(random: () => number, modern: boolean): SessionSpec[] {
  const [plainClient, blockClient] = shuffled(NOT_ELICITING, random);
  const [elicitClient, eraClient] = shuffled(ELICITING, random);
  const [plainSamples, elicitSamples] = [random() < 0.5, random() < 0.5];
  return [
    { name: 'plain', policy: 'confirm', outputFormat: 'toon', elicitation: false, identity: plainClient!, sampling: plainSamples },
    { name: 'elicit', policy: 'confirm', outputFormat: 'auto', elicitation: true, identity: elicitClient!, sampling: elicitSamples },
    {
      name: 'block',
      policy: 'block',
      outputFormat: 'json',
      elicitation: false,
      identity: blockClient!,
      logFile: true,
      sampling: !plainSamples,
    },
    {
      name: 'era',
      policy: 'confirm',
      outputFormat: 'json',
      elicitation: false,
      identity: eraClient!,
      modern: !modern,
      protocolVersion: pick(LEGACY_PROTOCOL_VERSIONS, random),
      sampling: !elicitSamples,
    },
  ];
}

/** A server started by hand keeps its own policy and format; it cannot be restarted with others. */
function urlSessions(random: () => number, modern: boolean): SessionSpec[] {
  const [elicitClient, eraClient] = shuffled(ELICITING, random) as [IdentityName, IdentityName];
  const samples = random() < 0.5;
  return [
    { name: 'plain', policy: null, outputFormat: null, elicitation: false, identity: pick(NOT_ELICITING, random) },
    { name: 'elicit', policy: null, outputFormat: null, elicitation: true, identity: elicitClient, sampling: samples },
    {
      name: 'era',
      policy: null,
      outputFormat: null,
      elicitation: false,
      identity: eraClient,
      modern: !modern,
      protocolVersion: pick(LEGACY_PROTOCOL_VERSIONS, random),
      sampling: !samples,
    },
  ];
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Formats the seed contract knows; a session asking for another that the server refuses falls back to the first. */
const CONTRACT_FORMATS = ['json', 'toon'] as const;

function toolNames(session: ProbeSession): Set<string> {
  return new Set(session.tools.map((tool) => tool.name));
}

async function openSessions(
  request: ProbeRequest,
  run: ProbeRun,
  env: Record<string, string>,
  random: () => number,
): Promise<Partial<Record<SessionSpec['name'], ProbeSession>>> {
  const specs = request.server.kind === 'spawn' ? spawnedSessions(random, request.modern) : urlSessions(random, request.modern);
  if (request.server.kind === 'url')
    run.skipped.push(
      'the B2_DESTRUCTIVE_POLICY=block step and the fixed output formats: a server started by hand cannot be restarted with them (its text blocks are checked in whichever format it answers)',
    );
  const open = (spec: SessionSpec, slot: number) =>
    openSession(request.server, spec, {
      env,
      connection: { ...request.connection, timeoutMs: run.requestTimeout() },
      modern: request.modern,
      slot,
      ...(request.serverLogLevel ? { logLevel: request.serverLogLevel } : {}),
    });
  const opened = await Promise.allSettled(
    specs.map(async (spec, slot) => {
      try {
        return await open(spec, slot);
      } catch (error) {
        // A server whose contract lacks this output format (e.g. `auto`) may refuse to start with it:
        // the session then runs with the contract's default, and its gate steps still run.
        if (
          request.server.kind !== 'spawn' ||
          spec.outputFormat === null ||
          (CONTRACT_FORMATS as readonly string[]).includes(spec.outputFormat)
        )
          throw error;
        const fallback = { ...spec, outputFormat: CONTRACT_FORMATS[0] };
        const session = await open(fallback, slot);
        run.skipped.push(
          `the ${spec.name} session could not start with B2_MCP_OUTPUT_FORMAT=${spec.outputFormat} (${firstLine(error)}); it ran with ${fallback.outputFormat}`,
        );
        return session;
      }
    }),
  );
  const sessions: Partial<Record<SessionSpec['name'], ProbeSession>> = {};
  opened.forEach((result, index) => {
    const spec = specs[index]!;
    if (result.status === 'fulfilled') sessions[spec.name] = result.value;
    else run.incomplete(undefined, `starting the ${spec.name} session`, result.reason);
  });
  return sessions;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200);
}

/**
 * Whether the server uses the sandbox at all: one read call must reach it. A server that ignores
 * B2_API_URL would otherwise pass every refusal probe without having been tested.
 */
async function calibrate(run: ProbeRun, session: ProbeSession, reads: ReadProbeSpec[]): Promise<boolean> {
  const read = reads.find(
    (candidate) =>
      toolNames(session).has(candidate.tool) && referencedNames(candidate.arguments).size === 0 && candidate.expect !== 'error',
  );
  if (!read || !run.step(`calibration: ${read.tool}`)) return false;
  const before = await requestMark(run.sandbox);
  await run.call(session, 'read', read.tool, read.arguments);
  const after = await requestMark(run.sandbox, before.mark);
  return after.count > 0;
}

/**
 * How often each session reads each tool: the plain session, which calls every tool most, three
 * times, the other-era session twice, the others once; a fork that changes on a later call in a
 * process meets it.
 */
const READ_REPEATS: Record<SessionSpec['name'], number> = { plain: 3, era: 2, elicit: 1, block: 1 };

function readRepeats(session: ProbeSession): number {
  return READ_REPEATS[session.spec.name];
}

/**
 * Each read of a session, as often as {@link READ_REPEATS} says, in an order drawn from the seed: the text must read back in the
 * session's format, and the mutation log's window around each call is kept, so a read that wrote
 * can be named afterwards.
 */
async function probeFormats(
  run: ProbeRun,
  session: ProbeSession,
  reads: ReadProbeSpec[],
  values: Record<string, unknown>,
  random: () => number,
  windows: ReadWindow[],
): Promise<void> {
  const mode: FormatMode = session.spec.outputFormat;
  const label = mode ?? 'as configured';
  for (const read of shuffled(
    reads.flatMap((spec) => Array<ReadProbeSpec>(readRepeats(session)).fill(spec)),
    random,
  )) {
    if (!run.step(`format ${label}: ${read.tool}`)) return;
    try {
      const from = await mutationMark(run.sandbox);
      const args = fillTemplate(read.arguments, values);
      const outcome = await run.call(session, 'read', read.tool, args);
      windows.push({ tool: read.tool, args, session, from, to: await mutationMark(run.sandbox, from) });
      const verdict = judgeFormat(outcome, mode, read.expect ?? 'result');
      run.record({ ...verdict, tool: read.tool, variant: `${label}${read.expect === 'error' ? ' (error)' : ''}` });
    } catch (error) {
      run.incomplete(read.tool, `format ${label}`, error);
    }
  }
}

/** Seed each context target the given reads refer to, once. */
async function seedReadContext(
  seeder: TargetSeeder,
  reads: ReadProbeSpec[],
  context: Record<string, TargetSpec>,
  run: ProbeRun,
): Promise<Record<string, TargetValues>> {
  const names = new Set(reads.flatMap((read) => [...referencedNames(read.arguments)]).filter((name) => name in context));
  const seeded: Record<string, TargetValues> = {};
  await Promise.all(
    [...names].map(async (name) => {
      try {
        seeded[name] = await seeder.seed(context[name]!);
      } catch (error) {
        run.incomplete(undefined, `seeding the read target "${name}"`, error);
      }
    }),
  );
  return seeded;
}

/** Run every probe against the server and return what was observed, ready for the rules. */
export async function runProbes(request: ProbeRequest): Promise<ProbeOutcome> {
  const now = request.now ?? (() => performance.now());
  const started = now();
  const seed = request.seed ?? newSeed();
  const random = seededRandom(seed);
  const tables = loadProbeTables(request.tablesDir);
  const sandbox = request.env[SANDBOX_ADMIN_VARIABLE]
    ? await attachProbeSandbox(request.env)
    : await startProbeSandbox(request.capabilities);
  const run = new ProbeRun(
    sandbox,
    { timeoutMs: request.connection.timeoutMs, deadline: request.deadline, now, budgetLabel: request.budgetLabel },
    request.onProgress,
  );
  let sessions: Partial<Record<SessionSpec['name'], ProbeSession>> = {};
  let applicable = false;
  const outputs: { session: ProbeSession; output: SessionOutput }[] = [];
  try {
    sessions = await openSessions(request, run, sandboxServerEnv(sandbox), random);
    const plain = sessions.plain;
    judgeSurfaces(run, Object.values(sessions) as ProbeSession[], request.fixtures ?? {});
    if (plain) {
      const plan = planProbes(request, run, { ...sessions, plain }, tables, random);
      applicable = await calibrate(run, plain, tables.reads);
      if (applicable) await probeAll(run, plan);
      if (applicable && !run.halted) await judgeRelisted(run, Object.values(sessions) as ProbeSession[]);
      else if (!run.halted)
        run.record({
          aspect: 'run.applicable',
          passed: false,
          detail: 'the server never contacted the sandbox at B2_API_URL, so nothing it did could be observed',
        });
    }
  } finally {
    for (const session of Object.values(sessions)) outputs.push({ session: session!, output: await session!.close() });
    await run.learnTokens().catch(() => {});
    await sandbox.close();
  }
  for (const { output } of outputs) {
    run.searchMessages(output.messages);
    run.scan('stderr', output.stderr);
    if (output.logFile) run.scan('log file (B2_LOG_FILE)', output.logFile);
  }
  if (applicable && run.counts().leaks === 0)
    run.record({
      aspect: 'secret.leak',
      passed: true,
      detail:
        'no canary, in any encoding, in any message the server sent (results, _meta, errors, notifications, requests, instructions, tools/list), its stderr or log file',
    });
  run.finish();
  return {
    observations: run.observations,
    evidence: evidenceOf(
      run,
      sandbox,
      outputs.map(({ session }) => session),
      request,
      applicable,
      now() - started,
      seed,
    ),
    scanner: run.scanner,
  };
}

type Sessions = { plain: ProbeSession; elicit?: ProbeSession; block?: ProbeSession; era?: ProbeSession };

interface Step {
  label: string;
  tool: string;
  run(): Promise<void>;
}

/**
 * What will run: the gate steps per gated tool (the tools in a drawn order), one write-effect
 * step per write tool, each session's reads (twice, in a drawn order), then one
 * undeclared-argument call per tool; sets the progress total.
 */
function planProbes(request: ProbeRequest, run: ProbeRun, sessions: Sessions, tables: ProbeTables, random: () => number) {
  const listed = toolNames(sessions.plain);
  const chosen = (tool: string) => !request.tools || request.tools.includes(tool);
  for (const tool of request.tools ?? [])
    if (!listed.has(tool)) run.skipped.push(`${tool}: --probe-tool names a tool the server does not list`);
  const gated = request.fixture.confirmTools.filter((tool) => listed.has(tool) && chosen(tool));
  const byTool = new Map(tables.gates.map((spec) => [spec.tool, spec]));
  for (const tool of gated.filter((name) => !byTool.has(name))) run.skipped.push(`${tool}: no probe arguments in rules/probes/gates.json`);
  const seeder = new TargetSeeder(run.sandbox);
  const values = { account: { accountId: run.sandbox.accountId }, time: { inOneDay: Date.now() + DAY_MS } };
  const gateRun: GateRun = { run, seeder, ...sessions, values, consent: tables.consent };
  const gates: Step[] = shuffled(gated, random)
    .map((tool) => byTool.get(tool))
    .filter((spec): spec is GateProbeSpec => spec !== undefined)
    .flatMap((spec) => gateSteps(gateRun, spec).map((step) => ({ ...step, label: `gate ${spec.tool}: ${step.label}`, tool: spec.tool })));
  const writeSpecs = shuffled(
    tables.writes.filter((spec) => listed.has(spec.tool) && chosen(spec.tool)),
    random,
  );
  const writes: Step[] = writeSteps(run, seeder, sessions.plain, writeSpecs, values);
  const reads = [sessions.plain, sessions.elicit, sessions.block, sessions.era]
    .filter((session): session is ProbeSession => session !== undefined)
    .map((session) => ({ session, reads: tables.reads.filter((read) => toolNames(session).has(read.tool) && chosen(read.tool)) }));

  // Undeclared arguments go on top of arguments known to be valid: a gate's trigger, a write's or a read's.
  let readValues: Record<string, unknown> = values;
  const argumentSources = new Map<string, () => Promise<Arguments>>();
  const fromTarget = (target: TargetSpec, template: Arguments) => async () =>
    fillTemplate(template, { ...values, target: await seeder.seed(target) });
  for (const spec of tables.gates) argumentSources.set(spec.tool, fromTarget(spec.target, spec.trigger));
  for (const spec of tables.writes) argumentSources.set(spec.tool, fromTarget(spec.target, spec.arguments));
  for (const read of [...tables.reads].reverse())
    if (read.expect !== 'error') argumentSources.set(read.tool, async () => fillTemplate(read.arguments, readValues));
  const argumentCalls: ArgumentCall[] = shuffled(
    sessions.plain.tools.filter((tool) => chosen(tool.name)),
    random,
  ).map((tool) => ({ tool, prepare: argumentSources.get(tool.name) ?? (async () => ({})) }));
  const argumentsProbed: Step[] = argumentSteps(run, sessions.plain, argumentCalls, tables.undeclared);

  run.plan(
    1 +
      gates.length +
      writes.length +
      reads.reduce((sum, entry) => sum + entry.reads.length * readRepeats(entry.session), 0) +
      argumentsProbed.length,
  );
  return {
    seeder,
    values,
    random,
    readContext: tables.readContext,
    sequential: [...gates, ...writes],
    reads,
    arguments: argumentsProbed,
    setReadValues: (seeded: Record<string, unknown>) => void (readValues = seeded),
  };
}

async function runSteps(run: ProbeRun, steps: readonly Step[]): Promise<void> {
  for (const step of steps) {
    if (!run.step(step.label)) return;
    try {
      await step.run();
    } catch (error) {
      run.incomplete(step.tool, `probe step "${step.label}"`, error);
    }
  }
}

async function probeAll(run: ProbeRun, plan: ReturnType<typeof planProbes>): Promise<void> {
  // Gates and writes change the sandbox and are judged by what changed: one call at a time.
  await runSteps(run, plan.sequential);

  // Reads must change nothing, so the sessions read in parallel; whatever changed meanwhile is pinned on a read after.
  const readContext = run.halted
    ? {}
    : await seedReadContext(
        plan.seeder,
        plan.reads.flatMap((entry) => entry.reads),
        plan.readContext,
        run,
      );
  const readValues = { ...plan.values, ...readContext };
  plan.setReadValues(readValues);
  const windows: ReadWindow[] = [];
  const phaseStart = await mutationMark(run.sandbox);
  await Promise.all(plan.reads.map(({ session, reads }) => probeFormats(run, session, reads, readValues, plan.random, windows)));
  await runSteps(run, await readMutationSteps(run, windows, phaseStart));

  await runSteps(run, plan.arguments);
}

function evidenceOf(
  run: ProbeRun,
  sandbox: ProbeSandbox,
  sessions: ProbeSession[],
  request: ProbeRequest,
  applicable: boolean,
  durationMs: number,
  seed: number,
): ProbeEvidence {
  const counts = run.counts();
  const toolsWith = (prefix: string) =>
    new Set(run.observations.filter((observation) => observation.aspect.startsWith(prefix)).map((observation) => observation.tool)).size;
  return {
    applicable,
    seed,
    combinations: sessions.map((session) =>
      [
        `${session.spec.name}: ${session.modern ? 'modern' : '2025'} era (${session.protocolVersion ?? 'version unknown'})`,
        session.client,
        `policy ${session.spec.policy ?? 'as configured'}`,
        `format ${session.spec.outputFormat ?? 'as configured'}`,
        session.spec.elicitation ? 'answers elicitation' : 'no elicitation answers',
        session.sampling ? 'declares sampling' : 'no sampling',
      ].join(', '),
    ),
    sandbox: sandbox.kind,
    sessions: sessions.map((session) => ({
      name: session.spec.name,
      client: `${session.client} (${session.spec.elicitation ? 'answers form elicitation' : 'no elicitation'})`,
      policy: session.spec.policy,
      outputFormat: session.spec.outputFormat,
      env: session.envNames,
    })),
    gate: { tools: toolsWith('gate.'), calls: counts.gate, elicitations: counts.elicitations },
    writes: { tools: toolsWith('write.'), calls: counts.write },
    arguments: { tools: toolsWith('argument.'), calls: counts.argument },
    format: { calls: counts.read, modes: sessions.map((session) => session.spec.outputFormat ?? 'as configured') },
    secrets: {
      canaries: counts.canaries,
      places: [
        'tools/list',
        'instructions',
        'results',
        'structuredContent',
        'result _meta',
        'protocol errors',
        'notifications (log, progress, list changed)',
        'elicitation and sampling requests',
        ...(request.server.kind === 'spawn' ? ['stderr'] : []),
        ...(sessions.some((session) => session.envNames.includes('B2_LOG_FILE')) ? ['log file'] : []),
        'this report',
      ],
    },
    budget: { maxDuration: request.budgetLabel, stoppedEarly: run.halted },
    skipped: run.skipped,
    passed: run.observations.filter((observation) => observation.passed).length,
    failed: run.observations.filter((observation) => !observation.passed).length,
    durationMs: Math.round(durationMs),
  };
}
