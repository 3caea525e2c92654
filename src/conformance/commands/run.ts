import { join } from 'node:path';
import type { ProfileName } from '../../contract/constants.js';
import type { ToolFixture } from '../../contract/fixture.js';
import type { LoadedContract, ToolRename } from '../../contract/artifact.js';
import { loadConfig } from '../rules/config.js';
import { judge, today, type JudgeSettings } from '../rules/judge.js';
import { lintPack, lintRoot } from '../lint/pack.js';
import { lintEvidence, readRepository } from '../lint/repository.js';
import type { LintInput } from '../lint/types.js';
import { observe, type ConnectOptions } from '../connect/connect.js';
import { CONNECTIONS_FOR, CONNECTION_SPECS, ERA_OF, isJudged, type ConnectionId, type EraChoice } from '../connect/connections.js';
import { diffModernBlock, diffTools, explainDrift, type Change, type DiffOptions } from '../diff/diff.js';
import { counterpartOf, diffContracts, keyCapabilitiesChange, sdkChanges } from '../diff/contract.js';
import { ConformError } from '../errors.js';
import { configEvidence, connectionEvidence, type Evidence, type HashComparison } from '../report/evidence.js';
import { protocolVersionsOf, readSnapshotManifest, recordedSurface, recordLooks, writeSnapshotManifest, type SnapshotManifest } from '../snapshot/manifest.js';
import { noEraAccepted } from '../connect/diagnosis.js';
import { contractBeside, contractGaps, findPromptFixture, listFixtureFiles, loadContract, loadFixtureSet, type FixtureSet } from '../diff/fixtures.js';
import { namingPolicyFor, type PolicyInUse } from '../diff/naming-policy.js';
import type { Finding } from '../rules/findings.js';
import { BUNDLED, toolVersions } from '../package-root.js';
import type { ProbeServer } from '../probes/sessions.js';
import type { ProbeObservation, ProbeOutcome, ProgressListener } from '../probes/types.js';
import { loadRules, selectPack, type PackDefinition, type RuleSet } from '../rules/engine.js';
import type { RuleContext, ScopedChange } from '../rules/types.js';
import { diffPrompts, explainPromptDrift, observableViews, viewsHash, type PromptComparison } from '../snapshot/prompts.js';
import { bothRecord, diffVisibleFields, unrecordedFields } from '../diff/visible-fields.js';
import { loadScenarios, runScenarios, type ScenarioFile, type ScenarioOutcome, type ToolCall } from '../probes/scenarios.js';
import { snapshotAll, writeSnapshot, type LiveSurface, type WrittenFixture } from '../snapshot/snapshot.js';
import { launchServers, stopServers, type LaunchedServers } from '../connect/stdio-transport.js';
import { startBundledServer, type BundledServer } from '../connect/bundled.js';
import type { ClientInfo } from '../connect/client-identities.js';
import { describeTarget, profileSpellings, resolveContractProfile, resolveProfile, type Target } from '../connect/target.js';

/** The outcome every report renders. */
export interface RunResult {
  findings: Finding[];
  evidence: Evidence;
  rules: RuleSet;
  /** Ids of the rules that ran (enabled and applicable). */
  evaluated: string[];
  /** Set when the run tested nothing (the probes were not applicable with `onlyProbes`): why. The reports are still written; the exit code is 4. */
  nothingTested?: string;
}

/** `--max-duration`'s default: the whole run, probes included. */
export const DEFAULT_MAX_DURATION_MS = 5 * 60_000;

/** `5 min`, `90 s`, `1500 ms`: a duration as messages show it. */
export function durationLabel(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

export interface CheckRequest extends JudgeSettings {
  /** As typed by the user; aliases are resolved here. */
  profile: string;
  /** Null checks the bundled b2-mcp pinned to the profile. */
  target: Target | null;
  fixturesDir?: string;
  contractFile?: string;
  era: EraChoice;
  timeoutMs: number;
  /** Run the live probes against a sandbox too (the CLI turns this on for the bundled server). */
  probes?: boolean;
  /** Judge the probes only: no static rules, and exit 4 when the probes are not applicable. */
  onlyProbes?: boolean;
  /** The checker's environment: a sandbox kept by `check --sandbox-env` is found through it. */
  env?: NodeJS.ProcessEnv;
  /** Called as probe steps start (the CLI draws a progress line on a terminal). */
  onProgress?: ProgressListener;
  /** Probe only these tools. */
  probeTools?: string[];
  /** Present these client names and versions instead of the default identities' (in turn). */
  clientInfo?: ClientInfo[];
  /** Largest message, and largest whole tools/list or prompts/list answer, read from the server (default 16 MiB). */
  maxMessageBytes?: number;
  /** LOG_LEVEL for the probed server sessions (unset unless asked for). */
  probeLogLevel?: string;
  /** `--seed`: replays a probe run's drawn sessions and call order (a fresh seed when absent). */
  probeSeed?: number;
  /** The whole run's budget (default {@link DEFAULT_MAX_DURATION_MS}): the probes stop at it with a partial report; a static listing past it fails. */
  maxDurationMs?: number;
  /** The clock the budget is measured on (performance.now by default). */
  now?: () => number;
  /** The rule pack (rules/packs/*.json) to run; default: the pack marked default. */
  pack?: string;
  /** A scenario file (YAML or JSON, docs/scenario.schema.json): its calls run and are judged too. */
  scenariosFile?: string;
  /** Read-only tools the checker may call once each; a text block of each structured result must equal it. */
  callTools?: ToolCall[];
  /** `--lint`: also lint this checkout (relative to `cwd`; default the git root of `cwd`), in the same report. */
  lint?: { dir?: string };
}

/** The description texts of listed tools, by name. */
function descriptionsOf(listed: LiveSurface['listed']): Record<string, string> {
  return Object.fromEntries(listed.map((tool) => [tool.name, typeof tool.description === 'string' ? tool.description : '']));
}

/**
 * Every change between two fixtures of one era: the tools (with their description texts where a
 * side knows them), what is recorded beside the hash, and the modern block.
 */
function fixtureChanges(expected: ToolFixture, found: ToolFixture, renames: readonly ToolRename[], descriptions: DiffOptions['descriptions']): Change[] {
  const changes = [...diffTools(expected.tools, found.tools, { renames, descriptions }), ...diffVisibleFields(expected, found)];
  for (const change of diffModernBlock(expected.modern, found.modern, { capabilities: !bothRecord(expected, found, 'serverCapabilities') })) changes.push(change);
  return changes;
}

function eraChanges(surface: LiveSurface, fixture: ToolFixture, naming: PolicyInUse | undefined): ScopedChange[] {
  const changes = fixtureChanges(fixture, surface.fixture, naming?.policy.renames ?? [], { ...(fixture.descriptions ? { before: fixture.descriptions } : {}), after: descriptionsOf(surface.listed) });
  return changes.map((change) => ({ scope: surface.connection, change }));
}

/** The fields an expected fixture does not record, so a check does not compare them (a note each). */
function unrecordedNotes(fixtures: FixtureSet): string[] {
  return Object.entries(fixtures.files).flatMap(([era, file]) => {
    const missing = unrecordedFields(fixtures.byEra[era as keyof typeof fixtures.byEra]!);
    return missing.length ? [`${missing.join(', ')}: not recorded in the fixture ${file}, not compared`] : [];
  });
}

/**
 * Held to a snapshot, each compared-only look it recorded (another protocol version, another
 * capability set) is diffed like a judged era: the whole surface it was shown then, rebuilt from
 * the reference's fixture and what it alone was shown, against its surface now. A tool shown only
 * to clients that declare a capability is compared like any other; a change every client sees is
 * the judged eras' finding too (one finding, with every scope it was seen in).
 */
function comparedLookChanges(look: LiveSurface, snapshot: SnapshotManifest | undefined, fixtures: FixtureSet): ScopedChange[] {
  const record = snapshot?.looks?.[look.connection];
  const reference = record && fixtures.byEra[ERA_OF[record.reference]];
  if (!record || !reference) return [];
  return diffTools(recordedSurface(record, reference.tools), look.tools).map((change) => ({ scope: look.connection, change }));
}

/**
 * The prompts of each 2.x connection that advertises them, against what a listing of the prompt
 * fixture would show (no fixture: against none, so each prompt is new). A connection without the
 * prompts capability is not compared: prompts are opt-in.
 */
function promptChanges(surfaces: readonly LiveSurface[], prompts: FixtureSet['prompts']): { changes: ScopedChange[]; hashes: Record<string, PromptComparison> } {
  const expected = observableViews(prompts.fixture);
  const expectedSide = { names: expected.map((view) => view.name), hash: viewsHash(expected) };
  const changes: ScopedChange[] = [];
  const hashes: Record<string, PromptComparison> = {};
  for (const surface of surfaces) {
    if (surface.connection === 'witness' || !surface.prompts) continue;
    const found = diffPrompts(expected, surface.prompts.views);
    for (const change of found) changes.push({ scope: surface.connection, change });
    hashes[surface.connection] = {
      basis: 'listed',
      expected: { source: prompts.fixture ? prompts.file : `${prompts.file} (missing)`, hash: expectedSide.hash },
      found: { source: `live ${surface.connection}`, hash: surface.prompts.hash },
      drift: explainPromptDrift(expectedSide, surface.prompts, found),
    };
  }
  return { changes, hashes };
}

/** Servers the caller started early for this run, so their start-up overlaps its own. */
export interface Prepared {
  /** stdio targets: one process per connection. */
  launched?: LaunchedServers;
  /** No target: the bundled server. */
  bundled?: BundledServer;
}

/** How a check or a snapshot connects. */
function connectOptions(request: { timeoutMs: number; clientInfo?: ClientInfo[]; maxMessageBytes?: number }, connections: readonly ConnectionId[]): ConnectOptions {
  return {
    connections,
    timeoutMs: request.timeoutMs,
    ...(request.clientInfo ? { clientInfo: request.clientInfo } : {}),
    ...(request.maxMessageBytes ? { maxMessageBytes: request.maxMessageBytes } : {}),
  };
}

/**
 * Run `body` against the request's target (the bundled server when there is none), then stop
 * whatever was started for it, whatever happens.
 */
async function withTarget<T>(
  request: { target: Target | null; era: EraChoice; timeoutMs: number; maxMessageBytes?: number; profile: string },
  connections: readonly ConnectionId[],
  prepared: Prepared,
  body: (target: Target, servers: LaunchedServers) => Promise<T>,
): Promise<T> {
  const bundled = request.target ? undefined : (prepared.bundled ?? startBundledServer(resolveProfile(request.profile), request.timeoutMs));
  const servers = prepared.launched ?? (request.target ? launchServers(request.target, connections, request.maxMessageBytes) : {});
  try {
    return await body(request.target ?? (await bundled!.ready), servers);
  } finally {
    await Promise.all([stopServers(servers), bundled?.stop()]);
  }
}

/** Check a live server against the frozen contract. */
export async function runCheck(request: CheckRequest, prepared: Prepared = {}): Promise<RunResult> {
  const now = request.now ?? (() => performance.now());
  const started = now();
  const budget: Budget = { now, deadline: started + (request.maxDurationMs ?? DEFAULT_MAX_DURATION_MS), label: durationLabel(request.maxDurationMs ?? DEFAULT_MAX_DURATION_MS) };
  // Our own server knows only our profile names; any other server is checked against its contract's.
  if (!request.target) resolveProfile(request.profile);
  if (request.onlyProbes) return checkProbesOnly(request, started, budget);
  // Read and parse everything the run needs while the server starts, not after it answers.
  let inputs: ReturnType<typeof loadInputs>;
  let scenarios: ScenarioFile | undefined;
  try {
    inputs = loadInputs(request);
    scenarios = request.scenariosFile === undefined ? undefined : await loadScenarios(request.scenariosFile);
  } catch (error) {
    await Promise.all([stopServers(prepared.launched ?? {}), prepared.bundled?.stop()]);
    throw error;
  }
  const connections = checkConnections(request, inputs.pack);
  return withTarget(request, connections, prepared, (target, servers) => checkLaunched(request, inputs, target, servers, started, budget, scenarios));
}

/**
 * The connections a check opens: every one of the eras asked for, or, held to a snapshot, only
 * those of the eras the snapshot recorded the server offering, and of the compared-only ones
 * those the server answered then (older snapshots did not record the looks).
 */
function checkConnections(request: CheckRequest, pack: PackDefinition): ConnectionId[] {
  const asked = CONNECTIONS_FOR[request.era];
  if (pack.baseline !== 'snapshot' || !request.fixturesDir) return asked;
  const manifest = readSnapshotManifest(request.fixturesDir);
  if (!manifest) return asked;
  const recorded = manifest.looks;
  return asked.filter((connection) => manifest.eras.includes(ERA_OF[connection]) && (isJudged(connection) || !recorded || recorded[connection] !== undefined));
}

/** When the run must be over, on its clock. */
interface Budget {
  now: () => number;
  deadline: number;
  label: string;
}

/** `work`, or a timeout error once the budget is spent (the listing of a server that never answers cannot hold the run). */
async function withinBudget<T>(work: Promise<T>, budget: Budget, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ConformError('timeout', `the run went past --max-duration ${budget.label} while ${what}`)), Math.max(0, budget.deadline - budget.now()));
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Edit distance, for the suggestion an unknown --probe-tool gets. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_value, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** Every --probe-tool must name a tool of the profile: a typo would otherwise probe nothing and pass. */
function checkProbeTools(request: CheckRequest, profile: string, fixtures: FixtureSet): void {
  const known = [...new Set(Object.values(fixtures.byEra).flatMap((fixture) => fixture!.tools.map((tool) => tool.name)))];
  for (const name of request.probeTools ?? []) {
    if (known.includes(name)) continue;
    const closest = [...known].sort((a, b) => distance(name, a) - distance(name, b))[0];
    throw new ConformError('usage', `--probe-tool "${name}" is not a tool of profile ${profile}${closest ? ` (did you mean ${closest}?)` : ''}`);
  }
}

/**
 * The contract a run uses: --contract, else the one of the repository the fixtures come from,
 * else the bundled one; with the naming policy it publishes (or the bundled one's, see namingPolicyFor).
 */
export function contractInUse(contractFile: string | undefined, fixturesDirs: readonly string[]) {
  const file = contractFile ?? fixturesDirs.map(contractBeside).find((found) => found !== undefined) ?? BUNDLED.contractFile;
  const contract = loadContract(file);
  const naming = namingPolicyFor(contract, file === BUNDLED.contractFile ? contract : loadContract(BUNDLED.contractFile));
  return { file, contract, naming };
}

/** What every check loads before it looks at a server (with --lint, the checkout too). */
function loadInputs(request: CheckRequest) {
  const inputs = loadCheckInputs(request);
  return { ...inputs, ...lintInputs(request, inputs.ruleSet) };
}

/** `check --lint`: the checkout and the lockstep pack, judged with the check in one report. */
function lintInputs(request: CheckRequest, ruleSet: RuleSet): { lint?: { input: LintInput; pack: PackDefinition } } {
  if (request.lint === undefined) return {};
  return { lint: { input: readRepository(lintRoot(request.lint.dir, request.cwd ?? process.cwd())), pack: lintPack(ruleSet) } };
}

function loadCheckInputs(request: CheckRequest) {
  const ruleSet = loadRules(request.rulesDir);
  const pack = selectPack(ruleSet, request.pack);
  const config = loadConfig(request.configFile, ruleSet, request.cwd, { allowIntegrityOverrides: request.allowIntegrityOverrides });
  const { file: contractFile, contract, naming } = contractInUse(request.contractFile, request.fixturesDir ? [request.fixturesDir] : []);
  const eras = [...new Set(checkConnections(request, pack).map((connection) => ERA_OF[connection]))];
  if (pack.baseline === 'snapshot') {
    if (!request.fixturesDir) throw new ConformError('usage', `--pack ${pack.name} holds a server to its own snapshot: take one with snapshot --pack ${pack.name} --out DIR, then pass --fixtures DIR`);
    const fixtures = loadFixtureSet(request.fixturesDir, request.profile, eras);
    const contractProfile = contract.profiles[resolveContractProfile('default', Object.keys(contract.profiles), contractFile) as ProfileName];
    const snapshot = readSnapshotManifest(request.fixturesDir);
    return { ruleSet, pack, config, contract: undefined, contractFile, contractProfile, naming: undefined, profile: request.profile, fixtures, notes: [...eraNotes(request, eras), ...unrecordedNotes(fixtures)], ...(snapshot ? { snapshot } : {}) };
  }
  const profile = resolveContractProfile(request.profile, Object.keys(contract.profiles), contractFile);
  const contractProfile = contract.profiles[profile as ProfileName];
  const fixtures = loadFixtureSet(request.fixturesDir ?? BUNDLED.fixturesDir, profile, eras, contractProfile.fixtures ?? {});
  checkProbeTools(request, profile, fixtures);
  return { ruleSet, pack, config, contract, contractFile, contractProfile, naming, profile, fixtures, notes: [...contractGaps(contract, contractFile), ...unrecordedNotes(fixtures)], snapshot: undefined as SnapshotManifest | undefined };
}

/** A server checked in fewer eras than asked, because its snapshot recorded only those: a note, not a failure. */
function eraNotes(request: CheckRequest, eras: readonly string[]): string[] {
  const asked = [...new Set(CONNECTIONS_FOR[request.era].map((connection) => ERA_OF[connection]))];
  const missing = asked.filter((era) => !eras.includes(era));
  return missing.length ? [`the snapshot records that the server does not offer the ${missing.join(' and ')} era; it was checked in ${eras.join(' and ')} only`] : [];
}

function contractEvidence(inputs: ReturnType<typeof loadInputs>): Evidence['contract'] {
  if (!inputs.naming) return undefined;
  return { file: inputs.contractFile, profile: inputs.profile, namingPolicy: inputs.naming.source, ...(inputs.naming.adopted.length ? { grandfatheredFormerNames: inputs.naming.adopted } : {}) };
}

/**
 * How the probes reach the server: the bundled b2-mcp over stdio pinned to the profile, the
 * --server command with the probe environment added, or a --url server started by hand.
 */
function probeServerOf(target: Target | null, profile: string): ProbeServer {
  if (!target) return { kind: 'spawn', command: process.execPath, args: [BUNDLED.serverEntry, 'stdio'], env: { B2_MCP_PROFILE: resolveProfile(profile) } };
  if (target.kind === 'stdio') return { kind: 'spawn', command: target.command, args: target.args, env: target.env };
  return { kind: 'url', target };
}

async function probe(request: CheckRequest, inputs: ReturnType<typeof loadInputs>, budget: Budget): Promise<ProbeOutcome> {
  const { runProbes } = await import('../probes/runner.js');
  return runProbes({
    capabilities: inputs.contractProfile.capabilities,
    fixture: Object.values(inputs.fixtures.byEra)[0]!,
    fixtures: inputs.fixtures.byEra,
    ...(request.probeSeed ? { seed: request.probeSeed } : {}),
    server: probeServerOf(request.target, inputs.profile),
    modern: request.era !== 'legacy',
    timeoutMs: request.timeoutMs,
    env: request.env ?? process.env,
    ...(request.onProgress ? { onProgress: request.onProgress } : {}),
    ...(request.probeTools?.length ? { tools: request.probeTools } : {}),
    ...(request.clientInfo ? { clientInfo: request.clientInfo } : {}),
    ...(request.probeLogLevel ? { serverLogLevel: request.probeLogLevel } : {}),
    ...(request.maxMessageBytes ? { maxMessageBytes: request.maxMessageBytes } : {}),
    deadline: budget.deadline,
    budgetLabel: budget.label,
    now: budget.now,
  });
}

/**
 * Judge, then search everything the report will carry for the probes' canaries; a hit is a
 * leak through the checker itself (the server's output ended up in a message) and is judged too.
 */
function judgeWithProbes(inputs: ReturnType<typeof loadInputs>, context: RuleContext, request: CheckRequest, evidenceOf: (judged: ReturnType<typeof judge>) => Evidence) {
  const day = request.today ?? today();
  let judged = judge(inputs.ruleSet, context, inputs.config, day, inputs.pack, request.onlyProbes, inputs.lint ? [inputs.lint.pack] : []);
  let evidence = evidenceOf(judged);
  if (context.probes) {
    const leaks = context.probes.scanner.scan(JSON.stringify({ findings: judged.findings, evidence }));
    if (leaks.length > 0) {
      context.probes.observations.push(
        ...leaks.map((leak): ProbeObservation => ({ aspect: 'secret.leak', passed: false, variant: `this report: ${leak.canary} (${leak.encoding})`, detail: `the ${leak.canary} given to the server appeared in this report (masked)` })),
      );
      judged = judge(inputs.ruleSet, context, inputs.config, day, inputs.pack, request.onlyProbes, inputs.lint ? [inputs.lint.pack] : []);
      const mask = (text: string) => context.probes!.scanner.mask(text);
      judged.findings = judged.findings.map((finding) => ({
        ...finding,
        message: mask(finding.message),
        fix: mask(finding.fix),
        ...(finding.text ? { text: Object.fromEntries(Object.entries(finding.text).map(([side, text]) => [side, mask(text)])) } : {}),
        ...(finding.schemas ? { schemas: context.probes!.scanner.maskValue(finding.schemas) } : {}),
      }));
      evidence = context.probes.scanner.maskValue(evidenceOf(judged));
    }
  }
  return { ...judged, evidence };
}

async function checkProbesOnly(request: CheckRequest, started: number, budget: Budget): Promise<RunResult> {
  const inputs = loadInputs(request);
  const { profile } = inputs;
  const outcome = await probe(request, inputs, budget);
  if (!outcome.evidence.sessions.some((session) => session.name === 'plain')) {
    const reason = outcome.observations.find((observation) => observation.aspect === 'run.incomplete');
    throw new ConformError('connect', `the server could not be started or reached for the probes (${reason?.detail ?? 'no session'})`);
  }
  let nothingTested: string | undefined;
  if (!outcome.evidence.applicable) {
    const reason = outcome.observations.find((observation) => !observation.passed && observation.aspect.startsWith('run.'));
    nothingTested = `probes not applicable: ${reason?.detail ?? 'the server never contacted the sandbox'}; nothing was tested`;
  }
  const context: RuleContext = { mode: 'check', profile, surfaces: [], contract: inputs.contract, naming: inputs.naming, changes: [], probes: outcome };
  const { findings, evaluated, evidence } = judgeWithProbes(inputs, context, request, ({ findings, outcome: suppressed, evaluated }) => ({
    command: 'check',
    versions: toolVersions(),
    profile,
    target: request.target ? describeTarget(request.target) : { transport: 'stdio', server: 'b2-mcp (bundled)', env: ['B2_MCP_PROFILE'] },
    connections: {},
    contract: contractEvidence(inputs),
    contractHash: inputs.contractProfile.hash,
    hashes: {},
    cacheHints: null,
    config: configEvidence(inputs.config, findings, suppressed),
    rulesEvaluated: evaluated.length,
    probes: outcome.evidence,
    durationMs: Math.round(budget.now() - started),
  }));
  return { findings, evidence, rules: inputs.ruleSet, evaluated, ...(nothingTested ? { nothingTested } : {}) };
}

async function checkLaunched(request: CheckRequest, inputs: ReturnType<typeof loadInputs>, target: Target, servers: LaunchedServers, started: number, budget: Budget, scenarioFile?: ScenarioFile): Promise<RunResult> {
  const { contract, contractProfile, fixtures, profile } = inputs;
  const connections = checkConnections(request, inputs.pack);

  // The probes start their own sandbox and servers; they run while the surface is listed.
  const probing = request.probes ? probe(request, inputs, budget) : undefined;
  probing?.catch(() => {});
  let observed: Awaited<ReturnType<typeof observe>>;
  try {
    observed = await withinBudget(observe(target, connectOptions(request, connections), servers), budget, "listing the server's tools");
  } catch (error) {
    await probing?.catch(() => {});
    throw error;
  }
  const probes = await probing;
  const calls = await checkCallTools(request.callTools ?? [], observed.observations);
  const scenarios = scenarioFile || calls.length
    ? await withinBudget(
        runScenarios(scenarioFile, calls, probeServerOf(request.target, inputs.profile), { timeoutMs: request.timeoutMs, modern: connections.includes('modern'), now: budget.now, ...(request.clientInfo ? { clientInfo: request.clientInfo } : {}), ...(request.maxMessageBytes ? { maxMessageBytes: request.maxMessageBytes } : {}) }),
        budget,
        'running the scenarios',
      )
    : undefined;
  // Every look is compared with the others; the judged ones are also held to the fixtures and rules.
  const looks = snapshotAll(observed.observations, profile, target);
  const surfaces = looks.filter((look) => isJudged(look.connection));
  const compared = looks.filter((look) => !isJudged(look.connection));
  if (surfaces.every((surface) => surface.names.length === 0)) {
    throw new ConformError('nothing-tested', 'the server listed no tools; nothing was tested');
  }

  const changes: ScopedChange[] = [];
  const hashes: Record<string, HashComparison> = {};
  for (const surface of surfaces) {
    if (surface.connection === 'witness') continue;
    const fixture = fixtures.byEra[surface.observation.era]!;
    const scoped = eraChanges(surface, fixture, inputs.naming);
    for (const change of scoped) changes.push(change); // one per tool of a list of any length: no spread into arguments
    hashes[surface.connection] = {
      expected: { source: fixtures.files[fixture.era]!, hash: fixture.hash },
      found: { source: `live ${surface.connection}`, hash: surface.hash },
      drift: explainDrift(fixture, surface, scoped.map(({ change }) => change)),
    };
  }
  for (const look of compared) for (const change of comparedLookChanges(look, inputs.snapshot, fixtures)) changes.push(change);
  const prompts = promptChanges(surfaces, fixtures.prompts);
  for (const change of prompts.changes) changes.push(change);

  const context: RuleContext = { mode: 'check', profile, surfaces, looks, refused: observed.refused, contract, naming: inputs.naming, changes, ...(inputs.snapshot ? { snapshot: inputs.snapshot } : {}), ...(probes ? { probes } : {}), ...(scenarios ? { scenarios } : {}), ...(inputs.lint ? { lint: inputs.lint.input } : {}) };
  const modern = surfaces.find((surface) => surface.connection === 'modern');
  const { findings, evaluated, evidence } = judgeWithProbes(inputs, context, request, ({ findings, outcome, evaluated }) => ({
    command: 'check',
    versions: toolVersions(),
    profile,
    target: describeTarget(target),
    connections: connectionEvidence(surfaces),
    ...(compared.length ? { comparedConnections: connectionEvidence(compared) } : {}),
    ...(observed.refused.length ? { refusedConnections: observed.refused } : {}),
    ...(inputs.contract ? { contract: contractEvidence(inputs), contractHash: contractProfile.hash } : { contractHash: null }),
    ...(inputs.notes.length ? { notes: inputs.notes } : {}),
    hashes,
    ...(Object.keys(prompts.hashes).length ? { promptHashes: prompts.hashes } : {}),
    cacheHints: contract?.approvedCacheHint ? { approved: contract.approvedCacheHint, modern: modern?.fixture.modern ?? null } : null,
    config: configEvidence(inputs.config, findings, outcome),
    rulesEvaluated: evaluated.length,
    ...(inputs.lint ? { lint: lintEvidence(inputs.lint.input) } : {}),
    ...(probes ? { probes: probes.evidence } : {}),
    ...(scenarios ? { scenarios: scenarioEvidence(scenarios) } : {}),
    durationMs: Math.round(budget.now() - started),
  }));
  return { findings, evidence, rules: inputs.ruleSet, evaluated };
}

function scenarioEvidence(outcome: ScenarioOutcome): NonNullable<Evidence['scenarios']> {
  const cases = new Set(outcome.observations.map((observation) => observation.scenario));
  const failedCases = new Set(outcome.observations.filter((observation) => !observation.passed).map((observation) => observation.scenario));
  return { ...(outcome.file ? { file: outcome.file } : {}), cases: cases.size, failedCases: failedCases.size, expectations: outcome.observations.length, calls: outcome.calls };
}

/**
 * Every --call-tool names a listed tool that declares itself read-only: the checker calls nothing
 * that may change anything. Each call also gets the first undeclared-argument candidate of the
 * probe tables that its schema does not declare.
 */
async function checkCallTools(calls: readonly ToolCall[], observations: Awaited<ReturnType<typeof observe>>['observations']): Promise<ToolCall[]> {
  if (calls.length === 0) return [];
  const listed = Object.values(observations).flatMap((observation) => observation!.wireTools);
  const [{ loadProbeTables }, { undeclaredArgument }] = await Promise.all([import('../probes/table.js'), import('../probes/arguments.js')]);
  const { undeclared } = loadProbeTables();
  return calls.map((call) => {
    const tool = listed.find((candidate) => candidate.name === call.tool);
    if (!tool) throw new ConformError('usage', `--call-tool ${call.tool}: the server lists no such tool`);
    if ((tool.annotations as { readOnlyHint?: unknown } | undefined)?.readOnlyHint !== true) throw new ConformError('usage', `--call-tool ${call.tool}: the tool does not declare readOnlyHint true, so the checker will not call it`);
    const extra = undeclaredArgument(tool, undeclared);
    return extra ? { ...call, undeclared: extra } : call;
  });
}

export interface DiffRequest extends JudgeSettings {
  before: string;
  after: string;
  /** Whose recorded renames apply; default: the contract beside `after`, else beside `before`, else the bundled one. */
  contractFile?: string;
  /** The rule pack to run; default: the pack marked default. */
  pack?: string;
}

/** Compare two fixture directories offline, file by file, with the same change classes as `check`, and the contracts beside them. */
export function runDiff(request: DiffRequest): RunResult {
  const started = performance.now();
  const ruleSet = loadRules(request.rulesDir);
  const config = loadConfig(request.configFile, ruleSet, request.cwd, { allowIntegrityOverrides: request.allowIntegrityOverrides });
  const { file: contractFile, naming } = contractInUse(request.contractFile, [request.after, request.before]);
  const before = listFixtureFiles(request.before);
  const after = listFixtureFiles(request.after);
  const pairs = pairFixtureFiles([...before.keys()], [...after.keys()]);
  if (pairs.length === 0) throw new ConformError('nothing-tested', `no fixture file name is present in both ${request.before} and ${request.after}; nothing was compared`);

  const changes: ScopedChange[] = [];
  const hashes: Record<string, HashComparison> = {};
  // The fields one side lacks, grouped: `titles, instructions: not recorded in the older fixtures (a.json, b.json)`.
  const unrecorded = new Map<string, string[]>();
  const noteUnrecorded = (fields: readonly string[], side: string, file: string) => {
    if (fields.length === 0) return;
    const what = `${fields.join(', ')}: not recorded in the ${side}`;
    unrecorded.set(what, [...(unrecorded.get(what) ?? []), file]);
  };
  for (const { before: beforeName, after: afterName, scope } of pairs) {
    const a = before.get(beforeName)!;
    const b = after.get(afterName)!;
    const found = fixtureChanges(a, b, naming.policy.renames, { ...(a.descriptions ? { before: a.descriptions } : {}), ...(b.descriptions ? { after: b.descriptions } : {}) });
    const capabilities = keyCapabilitiesChange(b.profile, a.capabilities ?? null, b.capabilities ?? null);
    if (capabilities) found.push(capabilities);
    found.push(...sdkChanges(a.sdk, b.sdk));
    for (const change of found) changes.push({ scope, change });
    hashes[scope] = { expected: { source: join(request.before, beforeName), hash: a.hash }, found: { source: join(request.after, afterName), hash: b.hash }, drift: explainDrift(a, b, found) };
    const [onlyA, onlyB] = [unrecordedFields(a), unrecordedFields(b)];
    noteUnrecorded(onlyA.filter((field) => !onlyB.includes(field)), 'older fixtures', beforeName);
    noteUnrecorded(onlyB.filter((field) => !onlyA.includes(field)), 'newer fixtures', afterName);
  }
  const paired = new Set(pairs.flatMap((pair) => [`before/${pair.before}`, `after/${pair.after}`]));
  const onlyBefore = [...before.keys()].filter((name) => !paired.has(`before/${name}`));
  const onlyAfter = [...after.keys()].filter((name) => !paired.has(`after/${name}`));
  for (const change of profileSetChanges(before, after, onlyBefore, onlyAfter)) changes.push(change);
  const renames = new Map(changes.filter(({ change }) => change.kind === 'tool-renamed').map(({ change }) => [String(change.before), String(change.after)]));
  const contracts = contractComparison(request.before, request.after, renames);
  for (const change of contracts.changes) changes.push({ scope: 'contract', change });
  const prompts = diffPromptFixtures(request.before, request.after, [...before.keys(), ...after.keys()]);
  for (const change of prompts.changes) changes.push(change);
  const context: RuleContext = { mode: 'diff', profile: '*', surfaces: [], changes };
  const { findings, outcome, evaluated } = judge(ruleSet, context, config, request.today ?? today(), selectPack(ruleSet, request.pack));
  const notes = [...[...unrecorded].map(([what, files]) => `${what} (${files.join(', ')}), not compared`), ...contracts.notes];
  const evidence: Evidence = {
    command: 'diff',
    versions: toolVersions(),
    profile: null,
    target: {
      before: request.before,
      after: request.after,
      compared: pairs.map(({ scope }) => `${scope}.json`),
      unmatched: [...onlyBefore.map((name) => `${name} (before only)`), ...onlyAfter.map((name) => `${name} (after only)`)],
      ...(prompts.compared.length || prompts.unmatched.length ? { promptsCompared: prompts.compared, promptsUnmatched: prompts.unmatched } : {}),
    },
    connections: {},
    contract: { file: contractFile, profile: null, namingPolicy: naming.source },
    contractHash: null,
    ...(notes.length ? { notes } : {}),
    hashes,
    ...(prompts.compared.length ? { promptHashes: prompts.hashes } : {}),
    cacheHints: null,
    config: configEvidence(config, findings, outcome),
    rulesEvaluated: evaluated.length,
    durationMs: Math.round(performance.now() - started),
  };
  return { findings, evidence, rules: ruleSet, evaluated };
}

/**
 * Fixture files of a profile the other side has no file of at all, as that profile added or
 * removed: one change per file, keyed by the profile, so its eras make one finding with each
 * file in its scopes. (An era missing from a profile both sides have is listed as unmatched only.)
 */
function profileSetChanges(before: Map<string, ToolFixture>, after: Map<string, ToolFixture>, onlyBefore: readonly string[], onlyAfter: readonly string[]): ScopedChange[] {
  const lacks = (side: Map<string, ToolFixture>, profile: string) => ![...side.values()].some((fixture) => profileSpellings(fixture.profile).includes(profile));
  const change = (fixture: ToolFixture, kind: 'profile-added' | 'profile-removed'): ScopedChange => {
    const tools = `${fixture.names.length} tools`;
    return { scope: `${fixture.profile}.${fixture.era}`, change: { kind, profile: fixture.profile, path: '', before: kind === 'profile-removed' ? tools : undefined, after: kind === 'profile-added' ? tools : undefined } };
  };
  return [
    ...onlyBefore.map((name) => before.get(name)!).filter((fixture) => lacks(after, fixture.profile)).map((fixture) => change(fixture, 'profile-removed')),
    ...onlyAfter.map((name) => after.get(name)!).filter((fixture) => lacks(before, fixture.profile)).map((fixture) => change(fixture, 'profile-added')),
  ];
}

/**
 * The contract artifacts of the repositories the two directories belong to, compared: each profile
 * one lists and the other does not, then what both list (see diffContracts), each renamed tool
 * under its new name. A side without a usable contract, or a part one contract lacks, is a note.
 */
function contractComparison(beforeDir: string, afterDir: string, renames: ReadonlyMap<string, string>): { changes: Change[]; notes: string[] } {
  const read = (dir: string): { file?: string; contract?: LoadedContract; problem: string } => {
    const file = contractBeside(dir);
    if (file === undefined) return { problem: `no contract artifact beside ${dir}` };
    try {
      return { file, contract: loadContract(file), problem: '' };
    } catch (error) {
      return { file, problem: (error as Error).message };
    }
  };
  const a = read(beforeDir);
  const b = read(afterDir);
  if (!a.contract || !b.contract) {
    // Neither side has a contract at all: a plain fixtures diff, nothing to say.
    const problems = [a, b].filter((side) => !side.contract).map((side) => side.problem);
    return { changes: [], notes: a.file || b.file ? [`the contract artifacts were not compared: ${problems.join('; ')}`] : [] };
  }
  if (a.file === b.file) return { changes: [], notes: [] };
  const { changes, unrecorded } = diffContracts(a.contract, b.contract, renames);
  const tools = (contract: LoadedContract, name: string) => `${contract.profiles[name as ProfileName].names.length} tools`;
  for (const name of Object.keys(a.contract.profiles).filter((name) => counterpartOf(name, b.contract!) === undefined)) changes.push({ kind: 'profile-removed', profile: name, path: '', before: tools(a.contract, name), after: undefined });
  for (const name of Object.keys(b.contract.profiles).filter((name) => counterpartOf(name, a.contract!) === undefined)) changes.push({ kind: 'profile-added', profile: name, path: '', before: undefined, after: tools(b.contract, name) });
  const notes = unrecorded.map(({ part, missingIn }) => `${part}: not recorded in the ${missingIn === 'before' ? 'older' : 'newer'} contract (${missingIn === 'before' ? a.file : b.file}), not compared`);
  return { changes, notes };
}

/**
 * Which fixture files of two directories compare with each other: the same file name, else the
 * same era under another spelling of the profile (`phase1-default.modern.json` and
 * `default.modern.json`). The scope is the after side's file stem.
 */
export function pairFixtureFiles(before: readonly string[], after: readonly string[]): { before: string; after: string; scope: string }[] {
  const pairs: { before: string; after: string; scope: string }[] = [];
  const taken = new Set<string>();
  const exact = before.filter((name) => after.includes(name));
  for (const name of exact) taken.add(name);
  for (const name of before) {
    let match: string | undefined = exact.includes(name) ? name : undefined;
    if (match === undefined) {
      const [profile, era] = name.split('.') as [string, string];
      match = profileSpellings(profile)
        .map((spelling) => `${spelling}.${era}.json`)
        .find((candidate) => after.includes(candidate) && !taken.has(candidate) && !before.includes(candidate));
      if (match === undefined) continue;
      taken.add(match);
    }
    pairs.push({ before: name, after: match, scope: match.replace(/\.json$/, '') });
  }
  return pairs;
}

/**
 * The prompt fixtures of every profile with tool fixtures on either side, compared where both
 * sides have one (each side's own location, see promptFixturePath). Offline both are complete
 * fixtures, so required tools, capabilities and argument constraints are compared too.
 */
function diffPromptFixtures(beforeDir: string, afterDir: string, toolFixtureNames: readonly string[]) {
  const profiles = [...new Set(toolFixtureNames.map((name) => name.split('.')[0]!))].sort();
  const changes: ScopedChange[] = [];
  const hashes: Record<string, PromptComparison> = {};
  const compared: string[] = [];
  const unmatched: string[] = [];
  for (const profile of profiles) {
    const a = findPromptFixture(beforeDir, profile);
    const b = findPromptFixture(afterDir, profile);
    if (!a.fixture || !b.fixture) {
      if (a.fixture || b.fixture) unmatched.push(`${profile} (${a.fixture ? 'before' : 'after'} only)`);
      continue;
    }
    compared.push(profile);
    const scope = `${profile}.prompts`;
    const found = diffPrompts(a.fixture.prompts, b.fixture.prompts);
    for (const change of found) changes.push({ scope, change });
    hashes[scope] = { basis: 'fixture', expected: { source: a.file, hash: a.fixture.hash }, found: { source: b.file, hash: b.fixture.hash }, drift: explainPromptDrift(a.fixture, b.fixture, found) };
  }
  return { changes, hashes, compared, unmatched };
}

export interface SnapshotRequest {
  profile: string;
  target: Target | null;
  outDir: string;
  era: EraChoice;
  timeoutMs: number;
  clientInfo?: ClientInfo[];
  maxMessageBytes?: number;
  /** A pack with a snapshot baseline names the fixtures as given and records which eras the server offers. */
  pack?: string;
}

/**
 * The prompt fixture a snapshot takes what a listing cannot show from: the one already at the
 * destination, else the bundled one of the profile.
 */
function knownPromptFixture(outDir: string, profile: ProfileName) {
  return findPromptFixture(outDir, profile).fixture ?? findPromptFixture(BUNDLED.fixturesDir, profile).fixture;
}

/** Write fixtures of a live server in the generator's format (the 1.x witness is not needed). */
export async function runSnapshot(request: SnapshotRequest): Promise<{ written: WrittenFixture[]; surfaces: LiveSurface[] }> {
  const pack = selectPack(loadRules(), request.pack);
  if (pack.baseline === 'snapshot') return snapshotOwnBaseline(request, pack);
  const profile = resolveProfile(request.profile);
  const connections = CONNECTIONS_FOR[request.era].filter((connection) => isJudged(connection) && CONNECTION_SPECS[connection].sdk === '2.x');
  return withTarget(request, connections, {}, async (target, servers) => {
    const { observations, refused } = await observe(target, connectOptions(request, connections), servers);
    const eraRefusals = refused.filter((refusal) => isJudged(refusal.connection) && refusal.chosenVersion === undefined);
    if (eraRefusals.length > 0) throw noEraAccepted(eraRefusals);
    const surfaces = snapshotAll(observations, profile, target);
    if (surfaces.every((surface) => surface.names.length === 0)) throw new ConformError('nothing-tested', 'the server listed no tools; nothing to snapshot');
    const known = surfaces.some((surface) => surface.prompts) ? knownPromptFixture(request.outDir, profile) : undefined;
    return { written: writeSnapshot(surfaces, request.outDir, known), surfaces };
  });
}

/**
 * A snapshot that is its own baseline: an era the server refuses is recorded as not offered (in
 * the manifest beside the fixtures) instead of failing, and so are the protocol versions it
 * accepted and what the compared-only looks (other versions, other capability sets) were shown.
 */
async function snapshotOwnBaseline(request: SnapshotRequest, pack: PackDefinition): Promise<{ written: WrittenFixture[]; surfaces: LiveSurface[] }> {
  const connections = CONNECTIONS_FOR[request.era].filter((connection) => CONNECTION_SPECS[connection].sdk === '2.x');
  return withTarget(request, connections, {}, async (target, servers) => {
    const { observations, refused } = await observe(target, connectOptions(request, connections), servers);
    const looks = snapshotAll(observations, request.profile, target);
    const surfaces = looks.filter((look) => isJudged(look.connection));
    for (const surface of surfaces) surface.fixture.descriptions = descriptionsOf(surface.listed);
    if (surfaces.every((surface) => surface.names.length === 0)) throw new ConformError('nothing-tested', 'the server listed no tools; nothing to snapshot');
    const notOffered = refused.filter((refusal) => isJudged(refusal.connection) && refusal.chosenVersion === undefined).map((refusal) => ({ era: ERA_OF[refusal.connection], reason: refusal.reason }));
    const written = writeSnapshot(surfaces, request.outDir);
    written.push(
      writeSnapshotManifest(request.outDir, {
        pack: pack.name,
        profile: request.profile,
        eras: surfaces.map((surface) => surface.observation.era),
        notOffered,
        protocolVersions: protocolVersionsOf(looks, refused),
        looks: recordLooks(looks),
      }),
    );
    return { written, surfaces };
  });
}
