import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildToolFixture, serializeFixture, toolFixtureFileName, type ToolFixture } from '../../contract/fixture.js';
import type { ListedTool, ToolSnapshot } from '../../contract/normalize.js';
import type { PromptFixture } from '../../contract/prompt-fixture.js';
import type { Observation, Observations } from '../connect/connect.js';
import type { ConnectionId } from '../connect/connections.js';
import { ConformError } from '../errors.js';
import { promptFixturePath } from '../diff/fixtures.js';
import { livePrompts, snapshotPromptFixture, type LivePrompts } from './prompts.js';
import type { Target } from '../connect/target.js';

/** One connection's tools, raw (for text rules) and normalized + hashed exactly as the generator does. */
export interface LiveSurface extends ToolSnapshot {
  connection: ConnectionId;
  observation: Observation;
  /** The tools as listed, in the server's order, as sent over the wire (every key kept). */
  listed: ListedTool[];
  fixture: ToolFixture;
  /** The server's own origin (its URL's), or null over stdio. */
  origin: string | null;
  /** Null when the server does not advertise prompts (off is conformant). */
  prompts: LivePrompts | null;
}

function snapshotObservation(observation: Observation, profile: string, target: Target): LiveSurface {
  const fixture = buildToolFixture({
    profile,
    era: observation.era,
    protocolVersion: observation.protocolVersion ?? '',
    transport: target.kind === 'http' ? 'streamable-http' : 'stdio',
    sdk: { [observation.client.package]: observation.client.version },
    capabilities: null,
    tools: observation.tools,
    wireTools: observation.wireTools,
    instructions: observation.instructions,
    serverCapabilities: observation.serverCapabilities,
    ...(observation.era === 'modern'
      ? { modern: { toolsListCacheHint: observation.toolsListCacheHint, discover: observation.discover } }
      : {}),
  });
  // The fixture holds the normalized snapshot already (names, tools, hash): no second pass.
  return {
    names: fixture.names,
    tools: fixture.tools,
    hash: fixture.hash,
    connection: observation.connection,
    observation,
    listed: observation.wireTools,
    fixture,
    origin: target.kind === 'http' ? target.url.origin : null,
    prompts: observation.prompts ? livePrompts(observation.prompts) : null,
  };
}

export function snapshotAll(observations: Observations, profile: string, target: Target): LiveSurface[] {
  return Object.values(observations).map((observation) => snapshotObservation(observation!, profile, target));
}

export interface WrittenFixture {
  file: string;
  /** What the file lists. */
  items: 'tools' | 'prompts' | 'eras';
  count: number;
  hash: string;
}

function writeFixtureFile(file: string, text: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  } catch (error) {
    throw new ConformError('usage', `cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/**
 * Write `<profile>.<era>.json` for the 2.x connections (the 1.x witness is evidence, not a
 * fixture), and, when the server advertises prompts, the prompt fixture where `check` and `diff`
 * look for it (see promptFixturePath). `knownPrompts` supplies what a listing cannot show.
 */
export function writeSnapshot(surfaces: readonly LiveSurface[], outDir: string, knownPrompts?: PromptFixture): WrittenFixture[] {
  const written: WrittenFixture[] = [];
  const eras = surfaces.filter((surface) => surface.connection !== 'witness');
  for (const surface of eras) {
    const file = join(outDir, toolFixtureFileName(surface.fixture.profile, surface.fixture.era));
    writeFixtureFile(file, serializeFixture(surface.fixture));
    written.push({ file, items: 'tools', count: surface.names.length, hash: surface.hash });
  }
  const prompting = eras.find((surface) => surface.prompts !== null);
  if (prompting) {
    const { profile, sdk } = prompting.fixture;
    const fixture = snapshotPromptFixture(prompting.prompts!.listed, { profile, sdk, ...(knownPrompts ? { known: knownPrompts } : {}) });
    const file = promptFixturePath(outDir, profile);
    writeFixtureFile(file, serializeFixture(fixture));
    written.push({ file, items: 'prompts', count: fixture.names.length, hash: fixture.hash });
  }
  return written;
}
