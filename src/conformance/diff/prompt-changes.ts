import type { ScopedChange } from '../rules/types.js';
import type { LiveSurface } from '../snapshot/snapshot.js';
import { diffPrompts, explainPromptDrift, observableViews, viewsHash, type PromptComparison } from '../snapshot/prompts.js';
import { findPromptFixture, type FixtureSet } from './fixtures.js';

/**
 * The prompts of each 2.x connection that advertises them, against what a listing of the prompt
 * fixture would show (no fixture: against none, so each prompt is new). A connection without the
 * prompts capability is not compared: prompts are opt-in.
 */
export function promptChanges(
  surfaces: readonly LiveSurface[],
  prompts: FixtureSet['prompts'],
): { changes: ScopedChange[]; hashes: Record<string, PromptComparison> } {
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

/** The prompt fixtures two fixture directories were compared by, and what that found. */
export interface PromptFixtureComparison {
  changes: ScopedChange[];
  hashes: Record<string, PromptComparison>;
  /** Profiles both sides have a prompt fixture of. */
  compared: string[];
  /** Profiles only one side has a prompt fixture of, with the side. */
  unmatched: string[];
}

/**
 * The prompt fixtures of every profile with tool fixtures on either side, compared where both
 * sides have one (each side's own location, see promptFixturePath). Offline both are complete
 * fixtures, so required tools, capabilities and argument constraints are compared too.
 */
export function diffPromptFixtures(beforeDir: string, afterDir: string, toolFixtureNames: readonly string[]): PromptFixtureComparison {
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
    hashes[scope] = {
      basis: 'fixture',
      expected: { source: a.file, hash: a.fixture.hash },
      found: { source: b.file, hash: b.fixture.hash },
      drift: explainPromptDrift(a.fixture, b.fixture, found),
    };
  }
  return { changes, hashes, compared, unmatched };
}
