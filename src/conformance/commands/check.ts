import { ConformError } from '../errors.js';
import { observe, type Observations, type ObserveResult } from '../connect/connect.js';
import { isJudged } from '../connect/connections.js';
import { describeTarget, resolveProfile, type Target } from '../connect/target.js';
import type { LaunchedServers } from '../connect/stdio-transport.js';
import { snapshotAll } from '../snapshot/snapshot.js';
import { explainDrift } from '../diff/diff.js';
import { comparedLookChanges, eraChanges } from '../diff/surface-changes.js';
import { promptChanges } from '../diff/prompt-changes.js';
import type { ProbeServer } from '../probes/sessions.js';
import type { ProbeObservation, ProbeOutcome } from '../probes/types.js';
import { loadScenarios, runScenarios, type ScenarioFile, type ToolCall } from '../probes/scenarios.js';
import { judge, today, type Judgement } from '../rules/judge.js';
import type { RuleContext, ScopedChange } from '../rules/types.js';
import { lintEvidence } from '../lint/repository.js';
import {
  buildEvidence,
  connectionEvidence,
  scenarioEvidence,
  type Evidence,
  type EvidenceParts,
  type HashComparison,
  type RunResult,
} from '../report/evidence.js';
import { BUNDLED } from '../package-root.js';
import { startBudget, withinBudget, type Budget } from './budget.js';
import { checkConnections, loadCheckInputs, type CheckInputs, type CheckRequest } from './check-inputs.js';
import { stopPrepared, withTarget, type Prepared } from './servers.js';

/** Check a live server against the frozen contract (or its own snapshot), probes included when asked. */
export async function checkServer(request: CheckRequest, prepared: Prepared = {}): Promise<RunResult> {
  const budget = startBudget(request.maxDurationMs, request.now);
  // Our own server knows only our profile names; any other server is checked against its contract's.
  if (!request.target) resolveProfile(request.profile);
  if (request.onlyProbes) return checkProbesOnly(request, budget);
  // Read and parse everything the run needs while the server starts, not after it answers.
  let inputs: CheckInputs;
  let scenarios: ScenarioFile | undefined;
  try {
    inputs = loadCheckInputs(request);
    scenarios = request.scenariosFile === undefined ? undefined : await loadScenarios(request.scenariosFile);
  } catch (error) {
    await stopPrepared(prepared);
    throw error;
  }
  const connections = checkConnections(request, inputs.pack);
  return withTarget(request, connections, prepared, (target, servers) =>
    checkLaunched(request, inputs, target, servers, budget, scenarios),
  );
}

function contractEvidence(inputs: CheckInputs): Evidence['contract'] {
  if (!inputs.naming) return undefined;
  return {
    file: inputs.contractFile,
    profile: inputs.profile,
    namingPolicy: inputs.naming.source,
    ...(inputs.naming.adopted.length ? { grandfatheredFormerNames: inputs.naming.adopted } : {}),
  };
}

/**
 * How the probes reach the server: the bundled b2-mcp over stdio pinned to the profile, the
 * --server command with the probe environment added, or a --url server started by hand.
 */
function probeServerOf(target: Target | null, profile: string): ProbeServer {
  if (!target)
    return {
      kind: 'spawn',
      command: process.execPath,
      args: [BUNDLED.serverEntry, 'stdio'],
      env: { B2_MCP_PROFILE: resolveProfile(profile) },
    };
  if (target.kind === 'stdio') return { kind: 'spawn', command: target.command, args: target.args, env: target.env };
  return { kind: 'url', target };
}

async function probe(request: CheckRequest, inputs: CheckInputs, budget: Budget): Promise<ProbeOutcome> {
  const { runProbes } = await import('../probes/runner.js');
  return runProbes({
    capabilities: inputs.contractProfile.capabilities,
    fixture: Object.values(inputs.fixtures.byEra)[0]!,
    fixtures: inputs.fixtures.byEra,
    ...(request.probeSeed ? { seed: request.probeSeed } : {}),
    server: probeServerOf(request.target, inputs.profile),
    modern: request.era !== 'legacy',
    connection: request.connection,
    env: request.env ?? process.env,
    ...(request.onProgress ? { onProgress: request.onProgress } : {}),
    ...(request.probeTools?.length ? { tools: request.probeTools } : {}),
    ...(request.probeLogLevel ? { serverLogLevel: request.probeLogLevel } : {}),
    deadline: budget.deadline,
    budgetLabel: budget.label,
    now: budget.now,
  });
}

/**
 * Judge, then search everything the report will carry for the probes' canaries; a hit is a
 * leak through the checker itself (the server's output ended up in a message) and is judged too.
 */
function judgeWithProbes(
  inputs: CheckInputs,
  context: RuleContext,
  request: CheckRequest,
  evidenceOf: (judged: Judgement) => Evidence,
): Judgement & { evidence: Evidence } {
  const day = request.today ?? today();
  const judgeOnce = () =>
    judge(inputs.ruleSet, context, inputs.config, day, inputs.pack, request.onlyProbes, inputs.lint ? [inputs.lint.pack] : []);
  let judged = judgeOnce();
  let evidence = evidenceOf(judged);
  if (context.probes) {
    const { scanner, observations } = context.probes;
    const leaks = scanner.scan(JSON.stringify({ findings: judged.findings, evidence }));
    if (leaks.length > 0) {
      observations.push(
        ...leaks.map(
          (leak): ProbeObservation => ({
            aspect: 'secret.leak',
            passed: false,
            variant: `this report: ${leak.canary} (${leak.encoding})`,
            detail: `the ${leak.canary} given to the server appeared in this report (masked)`,
          }),
        ),
      );
      judged = judgeOnce();
      const mask = (text: string) => scanner.mask(text);
      judged.findings = judged.findings.map((finding) => ({
        ...finding,
        message: mask(finding.message),
        fix: mask(finding.fix),
        ...(finding.text ? { text: scanner.maskValue(finding.text) } : {}),
        ...(finding.schemas ? { schemas: scanner.maskValue(finding.schemas) } : {}),
      }));
      evidence = scanner.maskValue(evidenceOf(judged));
    }
  }
  return { ...judged, evidence };
}

/** The evidence of a check: its own parts, and how it was judged. */
function checkEvidence(inputs: CheckInputs, budget: Budget, parts: EvidenceParts): (judged: Judgement) => Evidence {
  return (judged) => buildEvidence('check', judged, inputs.config, budget.now() - budget.started, { profile: inputs.profile, ...parts });
}

async function checkProbesOnly(request: CheckRequest, budget: Budget): Promise<RunResult> {
  const inputs = loadCheckInputs(request);
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
  const context: RuleContext = {
    mode: 'check',
    profile: inputs.profile,
    surfaces: [],
    contract: inputs.contract,
    naming: inputs.naming,
    changes: [],
    probes: outcome,
  };
  const { findings, evaluated, evidence } = judgeWithProbes(
    inputs,
    context,
    request,
    checkEvidence(inputs, budget, {
      target: request.target ? describeTarget(request.target) : { transport: 'stdio', server: 'b2-mcp (bundled)', env: ['B2_MCP_PROFILE'] },
      contract: contractEvidence(inputs),
      contractHash: inputs.contractProfile.hash,
      probes: outcome.evidence,
    }),
  );
  return { findings, evidence, rules: inputs.ruleSet, evaluated, ...(nothingTested ? { nothingTested } : {}) };
}

async function checkLaunched(
  request: CheckRequest,
  inputs: CheckInputs,
  target: Target,
  servers: LaunchedServers,
  budget: Budget,
  scenarioFile?: ScenarioFile,
): Promise<RunResult> {
  const { contract, contractProfile, fixtures, profile } = inputs;
  const connections = checkConnections(request, inputs.pack);

  // The probes start their own sandbox and servers; they run while the surface is listed.
  const probing = request.probes ? probe(request, inputs, budget) : undefined;
  probing?.catch(() => {});
  let observed: ObserveResult;
  try {
    observed = await withinBudget(
      observe(target, { connections, settings: request.connection }, servers),
      budget,
      "listing the server's tools",
    );
  } catch (error) {
    await probing?.catch(() => {});
    throw error;
  }
  const probes = await probing;
  const calls = await checkCallTools(request.callTools ?? [], observed.observations);
  const scenarios =
    scenarioFile || calls.length
      ? await withinBudget(
          runScenarios(scenarioFile, calls, probeServerOf(request.target, inputs.profile), {
            connection: request.connection,
            modern: connections.includes('modern'),
            now: budget.now,
          }),
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
      drift: explainDrift(
        fixture,
        surface,
        scoped.map(({ change }) => change),
      ),
    };
  }
  for (const look of compared) for (const change of comparedLookChanges(look, inputs.snapshot, fixtures)) changes.push(change);
  const prompts = promptChanges(surfaces, fixtures.prompts);
  for (const change of prompts.changes) changes.push(change);

  const context: RuleContext = {
    mode: 'check',
    profile,
    surfaces,
    looks,
    refused: observed.refused,
    contract,
    naming: inputs.naming,
    changes,
    ...(inputs.snapshot ? { snapshot: inputs.snapshot } : {}),
    ...(probes ? { probes } : {}),
    ...(scenarios ? { scenarios } : {}),
    ...(inputs.lint ? { lint: inputs.lint.input } : {}),
  };
  const modern = surfaces.find((surface) => surface.connection === 'modern');
  const { findings, evaluated, evidence } = judgeWithProbes(
    inputs,
    context,
    request,
    checkEvidence(inputs, budget, {
      target: describeTarget(target),
      connections: connectionEvidence(surfaces),
      ...(compared.length ? { comparedConnections: connectionEvidence(compared) } : {}),
      ...(observed.refused.length ? { refusedConnections: observed.refused } : {}),
      contract: contractEvidence(inputs),
      contractHash: contract ? contractProfile.hash : null,
      ...(inputs.notes.length ? { notes: inputs.notes } : {}),
      hashes,
      ...(Object.keys(prompts.hashes).length ? { promptHashes: prompts.hashes } : {}),
      cacheHints: contract?.approvedCacheHint ? { approved: contract.approvedCacheHint, modern: modern?.fixture.modern ?? null } : null,
      ...(inputs.lint ? { lint: lintEvidence(inputs.lint.input) } : {}),
      ...(probes ? { probes: probes.evidence } : {}),
      ...(scenarios ? { scenarios: scenarioEvidence(scenarios) } : {}),
    }),
  );
  return { findings, evidence, rules: inputs.ruleSet, evaluated };
}

/**
 * Every --call-tool names a listed tool that declares itself read-only: the checker calls nothing
 * that may change anything. Each call also gets the first undeclared-argument candidate of the
 * probe tables that its schema does not declare.
 */
async function checkCallTools(calls: readonly ToolCall[], observations: Observations): Promise<ToolCall[]> {
  if (calls.length === 0) return [];
  const listed = Object.values(observations).flatMap((observation) => observation!.wireTools);
  const [{ loadProbeTables }, { undeclaredArgument }] = await Promise.all([import('../probes/table.js'), import('../probes/arguments.js')]);
  const { undeclared } = loadProbeTables();
  return calls.map((call) => {
    const tool = listed.find((candidate) => candidate.name === call.tool);
    if (!tool) throw new ConformError('usage', `--call-tool ${call.tool}: the server lists no such tool`);
    if ((tool.annotations as { readOnlyHint?: unknown } | undefined)?.readOnlyHint !== true)
      throw new ConformError(
        'usage',
        `--call-tool ${call.tool}: the tool does not declare readOnlyHint true, so the checker will not call it`,
      );
    const extra = undeclaredArgument(tool, undeclared);
    return extra ? { ...call, undeclared: extra } : call;
  });
}
