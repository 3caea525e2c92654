import { prefixCounts, type PrefixCounts } from '../../contract/fixture.js';
import type { LintFixture, LintInput } from './types.js';

/** One profile as its fixtures record it: the modern fixture, else the legacy one. */
export interface FixtureProfile {
  name: string;
  fixture: LintFixture;
  names: string[];
  counts: PrefixCounts;
}

/** Every profile with a fixture, in file order. */
export function fixtureProfiles(input: LintInput): FixtureProfile[] {
  const byName = new Map<string, LintFixture>();
  for (const entry of input.fixtures) if (!byName.has(entry.profile) || entry.era === 'modern') byName.set(entry.profile, entry);
  return [...byName.values()].map((fixture) => ({
    name: fixture.profile,
    fixture,
    names: fixture.fixture.names,
    counts: prefixCounts(fixture.fixture.names),
  }));
}

/** The superset profile manifests are held to: `full`, else the profile with the most tools. */
export function fullProfile(input: LintInput): FixtureProfile | undefined {
  const profiles = fixtureProfiles(input);
  return profiles.find((profile) => profile.name === 'full') ?? [...profiles].sort((a, b) => b.names.length - a.names.length)[0];
}

/** Every name a profile lists (tools and prompts), in the fixtures and the contract. */
export function knownNames(input: LintInput): Set<string> {
  const names = new Set(input.fixtures.flatMap((entry) => entry.fixture.names));
  for (const entry of input.prompts) for (const name of entry.fixture.names) names.add(name);
  const contract = input.contract?.contract;
  for (const profile of Object.values(contract?.profiles ?? {})) for (const name of profile.names) names.add(name);
  for (const profile of Object.values(contract?.promptProfiles ?? {})) for (const name of profile.names ?? []) names.add(name);
  return names;
}

/** `missing a, b; extra c`: how two name lists differ, or that only their order does. */
export function nameDifference(expected: readonly string[], actual: readonly string[]): string | undefined {
  const missing = expected.filter((name) => !actual.includes(name));
  const extra = actual.filter((name) => !expected.includes(name));
  const parts = [missing.length ? `missing ${missing.join(', ')}` : '', extra.length ? `extra ${extra.join(', ')}` : ''].filter(Boolean);
  if (parts.length) return parts.join('; ');
  return expected.join('\u0000') === actual.join('\u0000') ? undefined : 'same names in another order';
}
