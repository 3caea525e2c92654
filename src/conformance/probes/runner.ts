import type { ToolFixture } from '../../contract/fixture.js';
import type { ClientInfo } from '../client-identities.js';
import { judgeFormat, type FormatMode } from './format.js';
import { gateSteps, type GateRun } from './gate.js';
import { callSurfaces } from './results.js';
import { SANDBOX_ADMIN_VARIABLE, attachProbeSandbox, requestMark, sandboxServerEnv, startProbeSandbox, type ProbeSandbox } from './sandbox.js';
import { CanaryScanner } from './secrets.js';
import { openSession, type CallOutcome, type ProbeServer, type ProbeSession, type SessionOutput, type SessionSpec } from './sessions.js';
import { fillTemplate, loadProbeTables, referencedNames, type GateProbeSpec, type ProbeTables, type ReadProbeSpec } from './table.js';
import { TargetSeeder, type TargetSpec, type TargetValues } from './targets.js';
import type { ProbeEvidence, ProbeObservation, ProbeOutcome, ProgressListener } from './types.js';

export interface ProbeRequest {
  /** The key the server gets holds these capabilities; null is the full surface (with a Partner key). */
  capabilities: readonly string[] | null;
  /** The profile's fixture: which tools are gated. */
  fixture: ToolFixture;
  server: ProbeServer;
  /** Speak the modern era (else the 2025 era). */
  modern: boolean;
  timeoutMs: number;
  /** The checker's environment: a `--sandbox-env` sandbox is found through it. */
  env: NodeJS.ProcessEnv;
  onProgress?: ProgressListener;
  tablesDir?: string;
  /** Probe only these tools (gate and read probes); every listed tool when absent. */
  tools?: readonly string[];
  /** `--client-info` names and versions the sessions present instead of their identities' own. */
  clientInfo?: readonly ClientInfo[];
}

/** The server configurations the probes need: gates and TOON, elicitation and `auto`, the block policy and JSON. */
const SPAWNED_SESSIONS: SessionSpec[] = [
  { name: 'plain', policy: 'confirm', outputFormat: 'toon', elicitation: false, identity: 'claudeDesktop' },
  { name: 'elicit', policy: 'confirm', outputFormat: 'auto', elicitation: true, identity: 'claudeCode' },
  { name: 'block', policy: 'block', outputFormat: 'json', elicitation: false, identity: 'zed', logFile: true },
];

/** A server started by hand keeps its own policy and format; it cannot be restarted with others. */
const URL_SESSIONS: SessionSpec[] = [
  { name: 'plain', policy: null, outputFormat: null, elicitation: false, identity: 'claudeDesktop' },
  { name: 'elicit', policy: null, outputFormat: null, elicitation: true, identity: 'claudeCode' },
];

const DAY_MS = 24 * 60 * 60 * 1000;

function toolNames(session: ProbeSession): Set<string> {
  return new Set(session.tools.map((tool) => tool.name));
}

class ProbeRun {
  readonly observations: ProbeObservation[] = [];
  readonly skipped: string[] = [];
  private done = 0;
  private total = 1;
  private gateCalls = 0;
  private elicitations = 0;
  private formatCalls = 0;
  private readonly leaks = new Set<string>();
  readonly scanner: CanaryScanner;

  constructor(readonly sandbox: ProbeSandbox, private readonly onProgress: ProgressListener | undefined) {
    this.scanner = new CanaryScanner(sandbox.canaries);
  }

  plan(total: number): void {
    this.total = total;
  }

  step(label: string): void {
    this.onProgress?.(this.done, this.total, label);
    this.done++;
  }

  finish(): void {
    this.onProgress?.(this.total, this.total, 'done');
  }

  /** Record an observation; its detail is masked, whatever produced it. */
  record(observation: ProbeObservation): void {
    this.observations.push({ ...observation, detail: this.scanner.mask(observation.detail) });
  }

  incomplete(tool: string | undefined, what: string, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.record({ aspect: 'run.incomplete', passed: false, ...(tool ? { tool } : {}), variant: what, detail: `${what}: ${message.split('\n')[0]!.slice(0, 300)}` });
  }

  /** Search text for the canaries; one observation per place, canary and encoding. */
  scan(place: string, text: string, tool?: string): void {
    for (const leak of this.scanner.scan(text)) {
      const key = [tool ?? '', place, leak.canary, leak.encoding].join('\u0000');
      if (this.leaks.has(key)) continue;
      this.leaks.add(key);
      this.record({
        aspect: 'secret.leak',
        passed: false,
        ...(tool ? { tool } : {}),
        variant: `${place}: ${leak.canary} (${leak.encoding})`,
        detail: `the ${leak.canary} given to the server appeared ${leak.encoding === 'raw' ? 'verbatim' : `${leak.encoding}`} in ${tool ? `the ${place} of ${tool}` : `its ${place}`}`,
      });
    }
  }

  /**
   * Search one call for canaries. A gate call's successful structured result is also read back
   * (read calls are judged by their own probe), so no result escapes the round-trip check.
   */
  inspect(tool: string, outcome: CallOutcome, kind: 'gate' | 'read', session?: ProbeSession): void {
    if (kind === 'gate') {
      this.gateCalls++;
      this.elicitations += outcome.elicitations.length;
    } else this.formatCalls++;
    for (const { place, text } of callSurfaces(outcome)) this.scan(place, text, tool);
    if (kind !== 'read' && session && outcome.result && !outcome.result.isError && outcome.result.structuredContent !== undefined) {
      const verdict = judgeFormat(outcome, session.spec.outputFormat, 'result');
      this.record({ ...verdict, tool, variant: `${session.spec.outputFormat ?? 'as configured'} (${kind} call)` });
    }
  }

  counts() {
    return { gateCalls: this.gateCalls, elicitations: this.elicitations, formatCalls: this.formatCalls, leaks: this.leaks.size };
  }
}

async function openSessions(request: ProbeRequest, run: ProbeRun, env: Record<string, string>): Promise<Partial<Record<SessionSpec['name'], ProbeSession>>> {
  const specs = request.server.kind === 'spawn' ? SPAWNED_SESSIONS : URL_SESSIONS;
  if (request.server.kind === 'url') run.skipped.push('the B2_DESTRUCTIVE_POLICY=block step and the fixed output formats: a server started by hand cannot be restarted with them (its text blocks are checked in whichever format it answers)');
  const opened = await Promise.allSettled(
    specs.map((spec, slot) => openSession(request.server, spec, { env, timeoutMs: request.timeoutMs, modern: request.modern, slot, ...(request.clientInfo ? { clientInfo: request.clientInfo } : {}) })),
  );
  const sessions: Partial<Record<SessionSpec['name'], ProbeSession>> = {};
  opened.forEach((result, index) => {
    const spec = specs[index]!;
    if (result.status === 'fulfilled') sessions[spec.name] = result.value;
    else run.incomplete(undefined, `starting the ${spec.name} session`, result.reason);
  });
  return sessions;
}

/**
 * Whether the server uses the sandbox at all: one read call must reach it. A server that ignores
 * B2_API_URL would otherwise pass every refusal probe without having been tested.
 */
async function calibrate(run: ProbeRun, session: ProbeSession, reads: ReadProbeSpec[]): Promise<boolean> {
  const read = reads.find((candidate) => toolNames(session).has(candidate.tool) && referencedNames(candidate.arguments).size === 0 && candidate.expect !== 'error');
  if (!read) return false;
  run.step(`calibration: ${read.tool}`);
  const before = await requestMark(run.sandbox);
  const outcome = await session.call(read.tool, read.arguments);
  run.inspect(read.tool, outcome, 'read');
  const after = await requestMark(run.sandbox, before.mark);
  return after.count > 0;
}

async function probeFormats(run: ProbeRun, session: ProbeSession, reads: ReadProbeSpec[], values: Record<string, unknown>): Promise<void> {
  const mode: FormatMode = session.spec.outputFormat;
  const label = mode ?? 'as configured';
  for (const read of reads) {
    run.step(`format ${label}: ${read.tool}`);
    try {
      const outcome = await session.call(read.tool, fillTemplate(read.arguments, values));
      run.inspect(read.tool, outcome, 'read');
      const verdict = judgeFormat(outcome, mode, read.expect ?? 'result');
      run.record({ ...verdict, tool: read.tool, variant: `${label}${read.expect === 'error' ? ' (error)' : ''}` });
    } catch (error) {
      run.incomplete(read.tool, `format ${label}`, error);
    }
  }
}

/** Seed each context target the given reads refer to, once. */
async function seedReadContext(seeder: TargetSeeder, reads: ReadProbeSpec[], context: Record<string, TargetSpec>, run: ProbeRun): Promise<Record<string, TargetValues>> {
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
  const started = performance.now();
  const tables = loadProbeTables(request.tablesDir);
  const sandbox = request.env[SANDBOX_ADMIN_VARIABLE] ? await attachProbeSandbox(request.env) : await startProbeSandbox(request.capabilities);
  const run = new ProbeRun(sandbox, request.onProgress);
  let sessions: Partial<Record<SessionSpec['name'], ProbeSession>> = {};
  let applicable = false;
  const outputs: { session: ProbeSession; output: SessionOutput }[] = [];
  try {
    sessions = await openSessions(request, run, sandboxServerEnv(sandbox));
    const plain = sessions.plain;
    for (const session of Object.values(sessions)) run.scan('tools/list', JSON.stringify(session!.tools));
    if (plain) {
      const plan = planProbes(request, run, { ...sessions, plain }, tables);
      applicable = await calibrate(run, plain, tables.reads);
      if (applicable) await probeAll(run, tables, plan);
      else run.record({ aspect: 'run.applicable', passed: false, detail: 'the server never contacted the sandbox at B2_API_URL, so nothing it did could be observed' });
    }
  } finally {
    for (const session of Object.values(sessions)) outputs.push({ session: session!, output: await session!.close() });
    await sandbox.close();
  }
  for (const { output } of outputs) {
    run.scan('stderr', output.stderr);
    if (output.logFile) run.scan('log file (B2_LOG_FILE)', output.logFile);
  }
  if (applicable && run.counts().leaks === 0) run.record({ aspect: 'secret.leak', passed: true, detail: 'no canary in any result, tools/list, elicitation message, stderr or log file' });
  run.finish();
  return { observations: run.observations, evidence: evidenceOf(run, sandbox, outputs.map(({ session }) => session), request.server.kind === 'spawn', applicable, performance.now() - started), scanner: run.scanner };
}

type Sessions = { plain: ProbeSession; elicit?: ProbeSession; block?: ProbeSession };

/** What will run: the gate steps per gated tool and each session's reads; sets the progress total. */
function planProbes(request: ProbeRequest, run: ProbeRun, sessions: Sessions, tables: ProbeTables) {
  const listed = toolNames(sessions.plain);
  const chosen = (tool: string) => !request.tools || request.tools.includes(tool);
  for (const tool of request.tools ?? []) if (!listed.has(tool)) run.skipped.push(`${tool}: --probe-tool names a tool the server does not list`);
  const gated = request.fixture.confirmTools.filter((tool) => listed.has(tool) && chosen(tool));
  const byTool = new Map(tables.gates.map((spec) => [spec.tool, spec]));
  for (const tool of gated.filter((name) => !byTool.has(name))) run.skipped.push(`${tool}: no probe arguments in rules/probes/gates.json`);
  const seeder = new TargetSeeder(run.sandbox);
  const values = { account: { accountId: run.sandbox.accountId }, time: { inOneDay: Date.now() + DAY_MS } };
  const gateRun: GateRun = {
    sandbox: run.sandbox,
    seeder,
    ...sessions,
    values,
    record: (observation) => run.record(observation),
    inspect: (tool, outcome, session) => run.inspect(tool, outcome, 'gate', session),
  };
  const gates = gated
    .map((tool) => byTool.get(tool))
    .filter((spec): spec is GateProbeSpec => spec !== undefined)
    .map((spec) => ({ tool: spec.tool, steps: gateSteps(gateRun, spec) }));
  const reads = [sessions.plain, sessions.elicit, sessions.block]
    .filter((session): session is ProbeSession => session !== undefined)
    .map((session) => ({ session, reads: tables.reads.filter((read) => toolNames(session).has(read.tool) && chosen(read.tool)) }));
  run.plan(1 + gates.reduce((sum, gate) => sum + gate.steps.length, 0) + reads.reduce((sum, entry) => sum + entry.reads.length, 0));
  return { seeder, values, gates, reads };
}

async function probeAll(run: ProbeRun, tables: ProbeTables, plan: ReturnType<typeof planProbes>): Promise<void> {
  for (const { tool, steps } of plan.gates) {
    for (const step of steps) {
      run.step(`gate ${tool}: ${step.label}`);
      try {
        await step.run();
      } catch (error) {
        run.incomplete(tool, `gate probe step "${step.label}"`, error);
      }
    }
  }

  // Reads change nothing, so the sessions read in parallel.
  const { seeder, values } = plan;
  const readContext = await seedReadContext(seeder, plan.reads.flatMap((entry) => entry.reads), tables.readContext, run);
  const readValues = { ...values, ...readContext };
  await Promise.all(plan.reads.map(({ session, reads }) => probeFormats(run, session, reads, readValues)));
}

function evidenceOf(run: ProbeRun, sandbox: ProbeSandbox, sessions: ProbeSession[], spawned: boolean, applicable: boolean, durationMs: number): ProbeEvidence {
  const counts = run.counts();
  const gated = new Set(run.observations.filter((observation) => observation.aspect.startsWith('gate.')).map((observation) => observation.tool));
  return {
    applicable,
    sandbox: sandbox.kind,
    sessions: sessions.map((session) => ({
      name: session.spec.name,
      client: `${session.client} (${session.spec.elicitation ? 'answers form elicitation' : 'no elicitation'})`,
      policy: session.spec.policy,
      outputFormat: session.spec.outputFormat,
      env: session.envNames,
    })),
    gate: { tools: gated.size, calls: counts.gateCalls, elicitations: counts.elicitations },
    format: { calls: counts.formatCalls, modes: sessions.map((session) => session.spec.outputFormat ?? 'as configured') },
    secrets: {
      canaries: sandbox.canaries.length,
      places: [
        'tools/list',
        'results',
        'structuredContent',
        'elicitation messages',
        ...(spawned ? ['stderr'] : []),
        ...(sessions.some((session) => session.envNames.includes('B2_LOG_FILE')) ? ['log file'] : []),
        'this report',
      ],
    },
    skipped: run.skipped,
    passed: run.observations.filter((observation) => observation.passed).length,
    failed: run.observations.filter((observation) => !observation.passed).length,
    durationMs: Math.round(durationMs),
  };
}
