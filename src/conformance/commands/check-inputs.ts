import type { LoadedContract, LoadedContractProfile } from '../../contract/artifact.js';
import type { ProfileName } from '../../contract/constants.js';
import { ConformError } from '../errors.js';
import { CONNECTIONS_FOR, ERA_OF, isJudged, type ConnectionId, type EraChoice } from '../connect/connections.js';
import type { ConnectionSettings } from '../connect/settings.js';
import { resolveContractProfile, type Target } from '../connect/target.js';
import { readSnapshotManifest, type SnapshotManifest } from '../snapshot/manifest.js';
import { contractGaps, contractInUse, loadFixtureSet, type FixtureSet } from '../diff/fixtures.js';
import type { PolicyInUse } from '../diff/naming-policy.js';
import { unrecordedNotes } from '../diff/surface-changes.js';
import type { ProgressListener } from '../probes/types.js';
import type { ToolCall } from '../probes/scenarios.js';
import { checkProbeTools } from '../probes/probe-tools.js';
import { loadConfig, type ConformConfig } from '../rules/config.js';
import { loadRules, selectPack, type PackDefinition, type RuleSet } from '../rules/engine.js';
import type { JudgeSettings } from '../rules/judge.js';
import { lintPack, lintRoot } from '../lint/pack.js';
import { readRepository } from '../lint/repository.js';
import type { LintInput } from '../lint/types.js';
import { BUNDLED } from '../package-root.js';

export interface CheckRequest extends JudgeSettings {
  /** As typed by the user; aliases are resolved here. */
  profile: string;
  /** Null checks the bundled b2-mcp pinned to the profile. */
  target: Target | null;
  fixturesDir?: string | undefined;
  contractFile?: string | undefined;
  era: EraChoice;
  /** How every connection, probe session and scenario session talks to the server. */
  connection: ConnectionSettings;
  /** Run the live probes against a sandbox too (the API turns this on for the bundled server). */
  probes?: boolean | undefined;
  /** Judge the probes only: no static rules, and exit 4 when the probes are not applicable. */
  onlyProbes?: boolean | undefined;
  /** The checker's environment: a sandbox kept by `check --sandbox-env` is found through it. */
  env?: NodeJS.ProcessEnv | undefined;
  /** Called as probe steps start (the CLI draws a progress line on a terminal). */
  onProgress?: ProgressListener | undefined;
  /** Probe only these tools. */
  probeTools?: string[] | undefined;
  /** LOG_LEVEL for the probed server sessions (unset unless asked for). */
  probeLogLevel?: string | undefined;
  /** `--seed`: replays a probe run's drawn sessions and call order (a fresh seed when absent). */
  probeSeed?: number | undefined;
  /** The whole run's budget (default DEFAULT_MAX_DURATION_MS): the probes stop at it with a partial report; a static listing past it fails. */
  maxDurationMs?: number | undefined;
  /** The clock the budget is measured on (performance.now by default). */
  now?: (() => number) | undefined;
  /** The rule pack (rules/packs/*.json) to run; default: the pack marked default. */
  pack?: string | undefined;
  /** A scenario file (YAML or JSON, docs/scenario.schema.json): its calls run and are judged too. */
  scenariosFile?: string | undefined;
  /** Read-only tools the checker may call once each; a text block of each structured result must equal it. */
  callTools?: ToolCall[] | undefined;
  /** `--lint`: also lint this checkout (relative to `cwd`; default the git root of `cwd`), in the same report. */
  lint?: { dir?: string | undefined } | undefined;
}

/** Everything a check reads before it looks at a server. */
export interface CheckInputs {
  ruleSet: RuleSet;
  pack: PackDefinition;
  config: ConformConfig;
  /** The contract the server is held to; none when the pack's baseline is the server's own snapshot. */
  contract: LoadedContract | undefined;
  contractFile: string;
  contractProfile: LoadedContractProfile;
  /** The naming policy in use; none when held to a snapshot. */
  naming: PolicyInUse | undefined;
  /** The profile as the contract names it (held to a snapshot: as given). */
  profile: string;
  fixtures: FixtureSet;
  notes: string[];
  /** Held to a snapshot: its manifest, when it has one. */
  snapshot: SnapshotManifest | undefined;
  /** `check --lint`: the checkout and the lockstep pack, judged with the check in one report. */
  lint: { input: LintInput; pack: PackDefinition } | undefined;
}

/**
 * The connections a check opens: every one of the eras asked for, or, held to a snapshot, only
 * those of the eras the snapshot recorded the server offering, and of the compared-only ones
 * those the server answered then (older snapshots did not record the looks).
 */
export function checkConnections(request: CheckRequest, pack: PackDefinition): ConnectionId[] {
  const asked = CONNECTIONS_FOR[request.era];
  if (pack.baseline !== 'snapshot' || !request.fixturesDir) return asked;
  const manifest = readSnapshotManifest(request.fixturesDir);
  if (!manifest) return asked;
  const recorded = manifest.looks;
  return asked.filter(
    (connection) => manifest.eras.includes(ERA_OF[connection]) && (isJudged(connection) || !recorded || recorded[connection] !== undefined),
  );
}

/** What every check loads before it looks at a server (with --lint, the checkout too). */
export function loadCheckInputs(request: CheckRequest): CheckInputs {
  const inputs = loadJudgedInputs(request);
  const { lint } = request;
  return {
    ...inputs,
    lint:
      lint === undefined
        ? undefined
        : { input: readRepository(lintRoot(lint.dir, request.cwd ?? process.cwd())), pack: lintPack(inputs.ruleSet) },
  };
}

function loadJudgedInputs(request: CheckRequest): Omit<CheckInputs, 'lint'> {
  const ruleSet = loadRules(request.rulesDir);
  const pack = selectPack(ruleSet, request.pack);
  const config = loadConfig(request.configFile, ruleSet, request.cwd, { allowIntegrityOverrides: request.allowIntegrityOverrides });
  const { file: contractFile, contract, naming } = contractInUse(request.contractFile, request.fixturesDir ? [request.fixturesDir] : []);
  const eras = [...new Set(checkConnections(request, pack).map((connection) => ERA_OF[connection]))];
  if (pack.baseline === 'snapshot') {
    if (!request.fixturesDir)
      throw new ConformError(
        'usage',
        `--pack ${pack.name} holds a server to its own snapshot: take one with snapshot --pack ${pack.name} --out DIR, then pass --fixtures DIR`,
      );
    const fixtures = loadFixtureSet(request.fixturesDir, request.profile, eras);
    const contractProfile =
      contract.profiles[resolveContractProfile('default', Object.keys(contract.profiles), contractFile) as ProfileName];
    const snapshot = readSnapshotManifest(request.fixturesDir);
    return {
      ruleSet,
      pack,
      config,
      contract: undefined,
      contractFile,
      contractProfile,
      naming: undefined,
      profile: request.profile,
      fixtures,
      notes: [...eraNotes(request, eras), ...unrecordedNotes(fixtures)],
      snapshot,
    };
  }
  const profile = resolveContractProfile(request.profile, Object.keys(contract.profiles), contractFile);
  const contractProfile = contract.profiles[profile as ProfileName];
  const fixtures = loadFixtureSet(request.fixturesDir ?? BUNDLED.fixturesDir, profile, eras, contractProfile.fixtures ?? {});
  checkProbeTools(request.probeTools ?? [], profile, fixtures);
  return {
    ruleSet,
    pack,
    config,
    contract,
    contractFile,
    contractProfile,
    naming,
    profile,
    fixtures,
    notes: [...contractGaps(contract, contractFile), ...unrecordedNotes(fixtures)],
    snapshot: undefined,
  };
}

/** A server checked in fewer eras than asked, because its snapshot recorded only those: a note, not a failure. */
function eraNotes(request: CheckRequest, eras: readonly string[]): string[] {
  const asked = [...new Set(CONNECTIONS_FOR[request.era].map((connection) => ERA_OF[connection]))];
  const missing = asked.filter((era) => !eras.includes(era));
  return missing.length
    ? [`the snapshot records that the server does not offer the ${missing.join(' and ')} era; it was checked in ${eras.join(' and ')} only`]
    : [];
}
