import { join } from 'node:path';
import type { ProfileName } from '../contract/constants.js';
import type { ToolFixture } from '../contract/fixture.js';
import { applySuppressions, loadConfig, severityResolver, type ConformConfig } from './config.js';
import { observe } from './connect.js';
import { CONNECTIONS_FOR, ERA_OF, type ConnectionId, type EraChoice } from './connections.js';
import { diffModernBlock, diffTools, explainDrift } from './diff.js';
import { ConformError } from './errors.js';
import { configEvidence, connectionEvidence, type Evidence, type HashComparison } from './evidence.js';
import { listFixtureFiles, loadContract, loadFixtureSet } from './fixtures.js';
import { sortFindings, type Finding } from './findings.js';
import { BUNDLED, toolVersions } from './package-root.js';
import { evaluate, loadRules, type RuleSet } from './rules/engine.js';
import type { RuleContext, ScopedChange } from './rules/types.js';
import { snapshotAll, writeSnapshot, type LiveSurface } from './snapshot.js';
import { launchServers, stopServers, type LaunchedServers } from './stdio-transport.js';
import { startBundledServer, type BundledServer } from './bundled.js';
import { describeTarget, resolveProfile, type Target } from './target.js';

/** The outcome every report renders. */
export interface RunResult {
  findings: Finding[];
  evidence: Evidence;
  rules: RuleSet;
  /** Ids of the rules that ran (enabled and applicable). */
  evaluated: string[];
}

export interface CheckRequest {
  /** As typed by the user; aliases are resolved here. */
  profile: string;
  /** Null checks the bundled b2-mcp pinned to the profile. */
  target: Target | null;
  fixturesDir?: string;
  contractFile?: string;
  era: EraChoice;
  timeoutMs: number;
  configFile?: string;
  rulesDir?: string;
  cwd?: string;
  /** YYYY-MM-DD; suppressions expire after it. Defaults to today (UTC). */
  today?: string;
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** Evaluate the rules, apply the config's suppressions, then the rules about suppressions. */
function judge(ruleSet: RuleSet, context: RuleContext, config: ConformConfig, day: string) {
  const severityOf = severityResolver(config, context.mode);
  const main = evaluate(ruleSet, context, severityOf, 'findings');
  const { findings, outcome } = applySuppressions(main.findings, config.suppressions, day);
  const meta = evaluate(ruleSet, { ...context, suppressions: outcome }, severityOf, 'suppressions');
  const evaluated = [...main.evaluated, ...meta.evaluated];
  if (evaluated.length === 0) throw new ConformError('nothing-tested', 'every rule that applies is turned off; nothing was tested');
  return { findings: sortFindings([...findings, ...meta.findings]), outcome, evaluated };
}

function eraChanges(surface: LiveSurface, fixture: ToolFixture): ScopedChange[] {
  const changes = diffTools(fixture.tools, surface.tools);
  if (fixture.era === 'modern') changes.push(...diffModernBlock(fixture.modern, surface.fixture.modern));
  return changes.map((change) => ({ scope: surface.connection, change }));
}

/** Servers the caller started early for this run, so their start-up overlaps its own. */
export interface Prepared {
  /** stdio targets: one process per connection. */
  launched?: LaunchedServers;
  /** No target: the bundled server. */
  bundled?: BundledServer;
}

/**
 * Run `body` against the request's target (the bundled server when there is none), then stop
 * whatever was started for it, whatever happens.
 */
async function withTarget<T>(
  request: { target: Target | null; era: EraChoice; timeoutMs: number },
  profile: ProfileName,
  connections: readonly ConnectionId[],
  prepared: Prepared,
  body: (target: Target, servers: LaunchedServers) => Promise<T>,
): Promise<T> {
  const bundled = request.target ? undefined : (prepared.bundled ?? startBundledServer(profile, request.timeoutMs));
  const servers = prepared.launched ?? (request.target ? launchServers(request.target, connections) : {});
  try {
    return await body(request.target ?? (await bundled!.ready), servers);
  } finally {
    await Promise.all([stopServers(servers), bundled?.stop()]);
  }
}

/** Check a live server against the frozen contract. */
export async function runCheck(request: CheckRequest, prepared: Prepared = {}): Promise<RunResult> {
  const started = performance.now();
  const profile = resolveProfile(request.profile);
  const connections = CONNECTIONS_FOR[request.era];
  return withTarget(request, profile, connections, prepared, (target, servers) => checkLaunched(request, profile, target, servers, started));
}

async function checkLaunched(request: CheckRequest, profile: ProfileName, target: Target, servers: LaunchedServers, started: number): Promise<RunResult> {
  const ruleSet = loadRules(request.rulesDir);
  const config = loadConfig(request.configFile, ruleSet, request.cwd);
  const contract = loadContract(request.contractFile ?? BUNDLED.contractFile);
  const contractProfile = contract.profiles[profile];
  if (!contractProfile) throw new ConformError('usage', `the contract has no profile "${profile}"`);
  const connections = CONNECTIONS_FOR[request.era];
  const eras = [...new Set(connections.map((connection) => ERA_OF[connection]))];
  const fixtures = loadFixtureSet(request.fixturesDir ?? BUNDLED.fixturesDir, profile, eras);

  const observations = await observe(target, { connections, timeoutMs: request.timeoutMs }, servers);
  const surfaces = snapshotAll(observations, profile, target);
  if (surfaces.every((surface) => surface.names.length === 0)) {
    throw new ConformError('nothing-tested', 'the server listed no tools; nothing was tested');
  }

  const changes: ScopedChange[] = [];
  const hashes: Record<string, HashComparison> = {};
  for (const surface of surfaces) {
    if (surface.connection === 'witness') continue;
    const fixture = fixtures.byEra[surface.observation.era]!;
    const scoped = eraChanges(surface, fixture);
    changes.push(...scoped);
    hashes[surface.connection] = {
      expected: { source: fixtures.files[fixture.era]!, hash: fixture.hash },
      found: { source: `live ${surface.connection}`, hash: surface.hash },
      drift: explainDrift(fixture, surface, scoped.map(({ change }) => change)),
    };
  }

  const context: RuleContext = { mode: 'check', profile, surfaces, contract, changes };
  const { findings, outcome, evaluated } = judge(ruleSet, context, config, request.today ?? today());
  const modern = surfaces.find((surface) => surface.connection === 'modern');
  const evidence: Evidence = {
    command: 'check',
    versions: toolVersions(),
    profile,
    target: describeTarget(target),
    connections: connectionEvidence(surfaces),
    contractHash: contractProfile.hash,
    hashes,
    cacheHints: { approved: contract.approvedCacheHint, modern: modern?.fixture.modern ?? null },
    config: configEvidence(config, findings, outcome),
    rulesEvaluated: evaluated.length,
    durationMs: Math.round(performance.now() - started),
  };
  return { findings, evidence, rules: ruleSet, evaluated };
}

export interface DiffRequest {
  before: string;
  after: string;
  configFile?: string;
  rulesDir?: string;
  cwd?: string;
  today?: string;
}

/** Compare two fixture directories offline, file by file, with the same change classes as `check`. */
export function runDiff(request: DiffRequest): RunResult {
  const started = performance.now();
  const ruleSet = loadRules(request.rulesDir);
  const config = loadConfig(request.configFile, ruleSet, request.cwd);
  const before = listFixtureFiles(request.before);
  const after = listFixtureFiles(request.after);
  const common = [...before.keys()].filter((name) => after.has(name));
  if (common.length === 0) throw new ConformError('nothing-tested', `no fixture file name is present in both ${request.before} and ${request.after}; nothing was compared`);

  const changes: ScopedChange[] = [];
  const hashes: Record<string, HashComparison> = {};
  for (const name of common) {
    const a = before.get(name)!;
    const b = after.get(name)!;
    const scope = name.replace(/\.json$/, '');
    const found = [...diffTools(a.tools, b.tools), ...diffModernBlock(a.modern, b.modern)];
    changes.push(...found.map((change) => ({ scope, change })));
    hashes[scope] = { expected: { source: join(request.before, name), hash: a.hash }, found: { source: join(request.after, name), hash: b.hash }, drift: explainDrift(a, b, found) };
  }
  const onlyOneSide = [...before.keys(), ...after.keys()].filter((name) => !common.includes(name));
  const context: RuleContext = { mode: 'diff', profile: '*', surfaces: [], changes };
  const { findings, outcome, evaluated } = judge(ruleSet, context, config, request.today ?? today());
  const evidence: Evidence = {
    command: 'diff',
    versions: toolVersions(),
    profile: null,
    target: { before: request.before, after: request.after, compared: common, unmatched: [...new Set(onlyOneSide)] },
    connections: {},
    contractHash: null,
    hashes,
    cacheHints: null,
    config: configEvidence(config, findings, outcome),
    rulesEvaluated: evaluated.length,
    durationMs: Math.round(performance.now() - started),
  };
  return { findings, evidence, rules: ruleSet, evaluated };
}

export interface SnapshotRequest {
  profile: string;
  target: Target | null;
  outDir: string;
  era: EraChoice;
  timeoutMs: number;
}

/** Write fixtures of a live server in the generator's format (the 1.x witness is not needed). */
export async function runSnapshot(request: SnapshotRequest): Promise<{ written: string[]; surfaces: LiveSurface[] }> {
  const profile = resolveProfile(request.profile);
  const connections = CONNECTIONS_FOR[request.era].filter((connection) => connection !== 'witness');
  return withTarget(request, profile, connections, {}, async (target, servers) => {
    const observations = await observe(target, { connections, timeoutMs: request.timeoutMs }, servers);
    const surfaces = snapshotAll(observations, profile, target);
    if (surfaces.every((surface) => surface.names.length === 0)) throw new ConformError('nothing-tested', 'the server listed no tools; nothing to snapshot');
    return { written: writeSnapshot(surfaces, request.outDir), surfaces };
  });
}

