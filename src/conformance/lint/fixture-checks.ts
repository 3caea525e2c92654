import { confirmToolsOf, prefixCounts, requiredFieldsOf } from '../../contract/fixture.js';
import { profileHash } from '../../contract/normalize.js';
import type { RawFinding } from '../rules/types.js';
import { nameDifference } from './profiles.js';
import { at } from './finding.js';
import type { LintFixture, LintInput } from './types.js';

const short = (hash: string) => hash.slice(0, 12);

/** Each fixture's recorded hash is the hash of the tools it records (the generator's definition). */
export function fixtureHashes(input: LintInput): RawFinding[] {
  return input.fixtures.flatMap(({ file, fixture, line }) => {
    const recomputed = profileHash(
      fixture.tools.map((tool) => tool.name),
      fixture.tools,
    );
    return recomputed === fixture.hash
      ? []
      : [at(file, line(['hash']), { recorded: short(fixture.hash), recomputed: short(recomputed) }, { path: 'hash' })];
  });
}

/** A fixture records the profile and era its file name says (a copied file keeps the ones it was generated for). */
export function fixtureIdentity(input: LintInput): RawFinding[] {
  return input.fixtures.flatMap(({ file, profile, era, fixture, line }) => [
    ...(fixture.profile === profile
      ? []
      : [
          at(file, line(['profile']), { field: 'profile', recorded: fixture.profile, named: profile }, { key: 'profile', path: 'profile' }),
        ]),
    ...(fixture.era === era
      ? []
      : [at(file, line(['era']), { field: 'era', recorded: fixture.era, named: era }, { key: 'era', path: 'era' })]),
  ]);
}

/** `names` is the names of the recorded tools, sorted as they are. */
export function fixtureNames(input: LintInput): RawFinding[] {
  return input.fixtures.flatMap(({ file, fixture, line }) => {
    const difference = nameDifference(
      fixture.tools.map((tool) => tool.name),
      fixture.names,
    );
    return difference ? [at(file, line(['names']), { difference }, { path: 'names' })] : [];
  });
}

/** `counts` per prefix are those of `names`. */
export function fixtureCounts(input: LintInput): RawFinding[] {
  return input.fixtures.flatMap(({ file, fixture, line }) => {
    const actual = prefixCounts(fixture.names);
    const recorded = (fixture.counts ?? {}) as Partial<Record<keyof typeof actual, number>>;
    return (Object.keys(actual) as (keyof typeof actual)[])
      .filter((group) => recorded[group] !== actual[group])
      .map((group) =>
        at(
          file,
          line(['counts', group]),
          { group, recorded: recorded[group] ?? 'nothing', actual: actual[group] },
          { key: group, path: `counts.${group}` },
        ),
      );
  });
}

function derivedLists(entry: LintFixture): { list: string; path: (string | number)[]; recorded: unknown; actual: unknown }[] {
  const { fixture } = entry;
  const required = requiredFieldsOf(fixture.tools);
  const out = Object.keys(required)
    .filter((tool) => JSON.stringify(fixture.requiredFields?.[tool]) !== JSON.stringify(required[tool]))
    .map((tool) => ({
      list: `requiredFields.${tool}`,
      path: ['requiredFields', tool],
      recorded: fixture.requiredFields?.[tool] ?? 'nothing',
      actual: required[tool],
    }));
  const confirm = confirmToolsOf(fixture.tools);
  if (JSON.stringify(fixture.confirmTools) !== JSON.stringify(confirm))
    out.push({ list: 'confirmTools', path: ['confirmTools'], recorded: fixture.confirmTools ?? 'nothing', actual: confirm });
  return out;
}

/** `requiredFields` and `confirmTools` are what the recorded tools' schemas give. */
export function fixtureDerived(input: LintInput): RawFinding[] {
  return input.fixtures.flatMap((entry) =>
    derivedLists(entry).map(({ list, path, recorded, actual }) =>
      at(
        entry.file,
        entry.line(path),
        { list, recorded: JSON.stringify(recorded), actual: JSON.stringify(actual) },
        { key: list, path: list },
      ),
    ),
  );
}

/** The modern and legacy fixtures of a profile record the same tools and hash; a profile has both. */
export function erasAgree(input: LintInput): RawFinding[] {
  const profiles = [...new Set(input.fixtures.map((entry) => entry.profile))];
  return profiles.flatMap((profile) => {
    const modern = input.fixtures.find((entry) => entry.profile === profile && entry.era === 'modern');
    const legacy = input.fixtures.find((entry) => entry.profile === profile && entry.era === 'legacy');
    if (!modern || !legacy) {
      const present = (modern ?? legacy)!;
      return [at(present.file, 1, { profileName: profile, difference: `there is no ${modern ? 'legacy' : 'modern'} fixture beside it` })];
    }
    const names = nameDifference(modern.fixture.names, legacy.fixture.names);
    if (names)
      return [
        at(
          legacy.file,
          legacy.line(['names']),
          { profileName: profile, difference: `the legacy names differ from ${modern.file}: ${names}` },
          { path: 'names' },
        ),
      ];
    if (modern.fixture.hash !== legacy.fixture.hash) {
      return [
        at(
          legacy.file,
          legacy.line(['hash']),
          {
            profileName: profile,
            difference: `same names, but the hash ${short(legacy.fixture.hash)} differs from ${modern.file}'s ${short(modern.fixture.hash)}`,
          },
          { path: 'hash' },
        ),
      ];
    }
    return [];
  });
}

/** Each prompt fixture's recorded hash is the hash of the prompts it records. */
export function promptFixtureHashes(input: LintInput): RawFinding[] {
  return input.prompts.flatMap(({ file, fixture, line }) => {
    const recomputed = profileHash(
      fixture.prompts.map((prompt) => prompt.name),
      fixture.prompts,
      'prompts',
    );
    return recomputed === fixture.hash
      ? []
      : [at(file, line(['hash']), { recorded: short(fixture.hash), recomputed: short(recomputed) }, { path: 'hash' })];
  });
}
