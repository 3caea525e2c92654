import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildToolFixture, serializeFixture, toolFixtureFileName, type ToolFixture } from '../contract/fixture.js';
import type { ListedTool, ToolSnapshot } from '../contract/normalize.js';
import type { Observation, Observations } from './connect.js';
import type { ConnectionId } from './connections.js';
import { ConformError } from './errors.js';
import type { Target } from './target.js';

/** One connection's tools, raw (for text rules) and normalized + hashed exactly as the generator does. */
export interface LiveSurface extends ToolSnapshot {
  connection: ConnectionId;
  observation: Observation;
  /** The tools as listed, in the server's order. */
  listed: ListedTool[];
  fixture: ToolFixture;
}

export function snapshotObservation(observation: Observation, profile: string, target: Target): LiveSurface {
  const fixture = buildToolFixture({
    profile,
    era: observation.era,
    protocolVersion: observation.protocolVersion ?? '',
    transport: target.kind === 'http' ? 'streamable-http' : 'stdio',
    sdk: { [observation.client.package]: observation.client.version },
    capabilities: null,
    tools: observation.tools,
    ...(observation.era === 'modern' ? { modern: { toolsListCacheHint: observation.toolsListCacheHint, discover: observation.discover } } : {}),
  });
  // The fixture holds the normalized snapshot already (names, tools, hash): no second pass.
  return { names: fixture.names, tools: fixture.tools, hash: fixture.hash, connection: observation.connection, observation, listed: observation.tools, fixture };
}

export function snapshotAll(observations: Observations, profile: string, target: Target): LiveSurface[] {
  return Object.values(observations).map((observation) => snapshotObservation(observation!, profile, target));
}

/** Write `<profile>.<era>.json` for the 2.x connections (the 1.x witness is evidence, not a fixture). */
export function writeSnapshot(surfaces: readonly LiveSurface[], outDir: string): string[] {
  try {
    mkdirSync(outDir, { recursive: true });
  } catch (error) {
    throw new ConformError('usage', `cannot create output directory ${outDir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const written: string[] = [];
  for (const surface of surfaces) {
    if (surface.connection === 'witness') continue;
    const file = join(outDir, toolFixtureFileName(surface.fixture.profile, surface.fixture.era));
    writeFileSync(file, serializeFixture(surface.fixture));
    written.push(file);
  }
  return written;
}
