import type { ProfileName } from '../../contract/constants.js';
import { ConformError } from '../errors.js';
import { observe } from '../connect/connect.js';
import { CONNECTIONS_FOR, CONNECTION_SPECS, ERA_OF, isJudged, type ConnectionId, type EraChoice } from '../connect/connections.js';
import type { ConnectionSettings } from '../connect/settings.js';
import { noEraAccepted } from '../connect/diagnosis.js';
import { resolveProfile, type Target } from '../connect/target.js';
import type { LaunchedServers } from '../connect/stdio-transport.js';
import { snapshotAll, writeSnapshot, type LiveSurface, type WrittenFixture } from '../snapshot/snapshot.js';
import { protocolVersionsOf, recordLooks, writeSnapshotManifest } from '../snapshot/manifest.js';
import { findPromptFixture } from '../diff/fixtures.js';
import { descriptionsOf } from '../diff/surface-changes.js';
import { loadRules, selectPack, type PackDefinition } from '../rules/engine.js';
import { BUNDLED } from '../package-root.js';
import { withTarget } from './servers.js';

export interface SnapshotRequest {
  profile: string;
  target: Target | null;
  outDir: string;
  era: EraChoice;
  connection: ConnectionSettings;
  /** A pack with a snapshot baseline names the fixtures as given and records which eras the server offers. */
  pack?: string | undefined;
}

/** What a snapshot wrote, and the surfaces it wrote them from. */
export interface SnapshotTaken {
  written: WrittenFixture[];
  surfaces: LiveSurface[];
}

/**
 * The prompt fixture a snapshot takes what a listing cannot show from: the one already at the
 * destination, else the bundled one of the profile.
 */
function knownPromptFixture(outDir: string, profile: ProfileName) {
  return findPromptFixture(outDir, profile).fixture ?? findPromptFixture(BUNDLED.fixturesDir, profile).fixture;
}

function listAll(request: SnapshotRequest, target: Target, connections: readonly ConnectionId[], servers: LaunchedServers) {
  return observe(target, { connections, settings: request.connection }, servers);
}

/** Write fixtures of a live server in the generator's format (the 1.x witness is not needed). */
export async function snapshotServer(request: SnapshotRequest): Promise<SnapshotTaken> {
  const pack = selectPack(loadRules(), request.pack);
  if (pack.baseline === 'snapshot') return snapshotOwnBaseline(request, pack);
  const profile = resolveProfile(request.profile);
  const connections = CONNECTIONS_FOR[request.era].filter(
    (connection) => isJudged(connection) && CONNECTION_SPECS[connection].sdk === '2.x',
  );
  return withTarget(request, connections, {}, async (target, servers) => {
    const { observations, refused } = await listAll(request, target, connections, servers);
    const eraRefusals = refused.filter((refusal) => isJudged(refusal.connection) && refusal.chosenVersion === undefined);
    if (eraRefusals.length > 0) throw noEraAccepted(eraRefusals);
    const surfaces = snapshotAll(observations, profile, target);
    if (surfaces.every((surface) => surface.names.length === 0))
      throw new ConformError('nothing-tested', 'the server listed no tools; nothing to snapshot');
    const known = surfaces.some((surface) => surface.prompts) ? knownPromptFixture(request.outDir, profile) : undefined;
    return { written: writeSnapshot(surfaces, request.outDir, known), surfaces };
  });
}

/**
 * A snapshot that is its own baseline: an era the server refuses is recorded as not offered (in
 * the manifest beside the fixtures) instead of failing, and so are the protocol versions it
 * accepted and what the compared-only looks (other versions, other capability sets) were shown.
 */
async function snapshotOwnBaseline(request: SnapshotRequest, pack: PackDefinition): Promise<SnapshotTaken> {
  const connections = CONNECTIONS_FOR[request.era].filter((connection) => CONNECTION_SPECS[connection].sdk === '2.x');
  return withTarget(request, connections, {}, async (target, servers) => {
    const { observations, refused } = await listAll(request, target, connections, servers);
    const looks = snapshotAll(observations, request.profile, target);
    const surfaces = looks.filter((look) => isJudged(look.connection));
    for (const surface of surfaces) surface.fixture.descriptions = descriptionsOf(surface.listed);
    if (surfaces.every((surface) => surface.names.length === 0))
      throw new ConformError('nothing-tested', 'the server listed no tools; nothing to snapshot');
    const notOffered = refused
      .filter((refusal) => isJudged(refusal.connection) && refusal.chosenVersion === undefined)
      .map((refusal) => ({ era: ERA_OF[refusal.connection], reason: refusal.reason }));
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
