import type { ToolFixture } from '../../contract/fixture.js';
import type { ToolRename } from '../../contract/artifact.js';
import { ERA_OF } from '../connect/connections.js';
import type { LiveSurface } from '../snapshot/snapshot.js';
import { recordedSurface, type SnapshotManifest } from '../snapshot/manifest.js';
import type { ScopedChange } from '../rules/types.js';
import { diffModernBlock, diffTools, type DiffOptions } from './diff.js';
import type { Change } from './changes.js';
import type { FixtureSet } from './fixtures.js';
import type { PolicyInUse } from './naming-policy.js';
import { bothRecord, diffVisibleFields, unrecordedFields } from './visible-fields.js';

/** The description texts of listed tools, by name. */
export function descriptionsOf(listed: LiveSurface['listed']): Record<string, string> {
  return Object.fromEntries(listed.map((tool) => [tool.name, typeof tool.description === 'string' ? tool.description : '']));
}

/**
 * Every change between two fixtures of one era: the tools (with their description texts where a
 * side knows them), what is recorded beside the hash, and the modern block.
 */
export function fixtureChanges(
  expected: ToolFixture,
  found: ToolFixture,
  renames: readonly ToolRename[],
  descriptions: DiffOptions['descriptions'],
): Change[] {
  const changes = [...diffTools(expected.tools, found.tools, { renames, descriptions }), ...diffVisibleFields(expected, found)];
  for (const change of diffModernBlock(expected.modern, found.modern, { capabilities: !bothRecord(expected, found, 'serverCapabilities') }))
    changes.push(change);
  return changes;
}

/** A judged surface against its era's fixture, each change scoped by the connection. */
export function eraChanges(surface: LiveSurface, fixture: ToolFixture, naming: PolicyInUse | undefined): ScopedChange[] {
  const changes = fixtureChanges(fixture, surface.fixture, naming?.policy.renames ?? [], {
    before: fixture.descriptions,
    after: descriptionsOf(surface.listed),
  });
  return changes.map((change) => ({ scope: surface.connection, change }));
}

/** The fields an expected fixture does not record, so a check does not compare them (a note each). */
export function unrecordedNotes(fixtures: FixtureSet): string[] {
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
export function comparedLookChanges(look: LiveSurface, snapshot: SnapshotManifest | undefined, fixtures: FixtureSet): ScopedChange[] {
  const record = snapshot?.looks?.[look.connection];
  const reference = record && fixtures.byEra[ERA_OF[record.reference]];
  if (!record || !reference) return [];
  return diffTools(recordedSurface(record, reference.tools), look.tools).map((change) => ({ scope: look.connection, change }));
}
