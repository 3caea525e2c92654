import type { ToolFixture } from '../../contract/fixture.js';
import type { ScopedChange } from '../rules/types.js';
import { profileSpellings } from '../connect/target.js';

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
 * Fixture files of a profile the other side has no file of at all, as that profile added or
 * removed: one change per file, keyed by the profile, so its eras make one finding with each
 * file in its scopes. (An era missing from a profile both sides have is listed as unmatched only.)
 */
export function profileSetChanges(
  before: Map<string, ToolFixture>,
  after: Map<string, ToolFixture>,
  onlyBefore: readonly string[],
  onlyAfter: readonly string[],
): ScopedChange[] {
  const lacks = (side: Map<string, ToolFixture>, profile: string) =>
    ![...side.values()].some((fixture) => profileSpellings(fixture.profile).includes(profile));
  const change = (fixture: ToolFixture, kind: 'profile-added' | 'profile-removed'): ScopedChange => {
    const tools = `${fixture.names.length} tools`;
    return {
      scope: `${fixture.profile}.${fixture.era}`,
      change: {
        kind,
        profile: fixture.profile,
        path: '',
        before: kind === 'profile-removed' ? tools : undefined,
        after: kind === 'profile-added' ? tools : undefined,
      },
    };
  };
  return [
    ...onlyBefore
      .map((name) => before.get(name)!)
      .filter((fixture) => lacks(after, fixture.profile))
      .map((fixture) => change(fixture, 'profile-removed')),
    ...onlyAfter
      .map((name) => after.get(name)!)
      .filter((fixture) => lacks(before, fixture.profile))
      .map((fixture) => change(fixture, 'profile-added')),
  ];
}
