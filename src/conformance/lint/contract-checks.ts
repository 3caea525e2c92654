import { confirmToolsOf, prefixCounts, requiredFieldsOf } from '../../contract/fixture.js';
import type { RawFinding } from '../rules/types.js';
import { at } from './finding.js';
import { fixtureProfiles, nameDifference } from './profiles.js';
import type { LintInput } from './types.js';

type Contract = NonNullable<LintInput['contract']>;
type ContractProfile = Contract['contract']['profiles'][keyof Contract['contract']['profiles']];

/** Each contract profile with the fixtures of the same name. */
function paired(input: LintInput): { name: string; profile: ContractProfile; fixture: ReturnType<typeof fixtureProfiles>[number] }[] {
  const profiles = input.contract?.contract.profiles ?? {};
  return fixtureProfiles(input).flatMap((fixture) => {
    const profile = (profiles as Record<string, ContractProfile>)[fixture.name];
    return profile ? [{ name: fixture.name, profile, fixture }] : [];
  });
}

/** The contract lists exactly the profiles that have fixtures. */
export function contractProfiles(input: LintInput): RawFinding[] {
  const { file, contract, line } = input.contract!;
  const listed = Object.keys(contract.profiles);
  const fixtures = fixtureProfiles(input);
  return [
    ...listed
      .filter((name) => !fixtures.some((fixture) => fixture.name === name))
      .map((profile) =>
        at(
          file,
          line(['profiles', profile]),
          { profileName: profile, difference: `has no fixtures in ${input.fixturesDir}` },
          { key: profile },
        ),
      ),
    ...fixtures
      .filter((fixture) => !listed.includes(fixture.name))
      .map((fixture) =>
        at(
          file,
          line(['profiles']),
          { profileName: fixture.name, difference: `has fixtures (${fixture.fixture.file}) but no entry in the contract` },
          { key: fixture.name },
        ),
      ),
  ];
}

/** The fixture files each contract profile names exist in the checkout. */
export function contractFixturePaths(input: LintInput): RawFinding[] {
  const { file, contract, line } = input.contract!;
  const present = new Set(input.fixtures.map((entry) => entry.file));
  return Object.entries(contract.profiles).flatMap(([name, profile]) =>
    Object.entries(profile.fixtures ?? {})
      .filter(([, path]) => typeof path === 'string' && !present.has(path))
      .map(([era, path]) =>
        at(
          file,
          line(['profiles', name, 'fixtures', era]),
          { profileName: name, difference: `names ${path} as its ${era} fixture, and the checkout has no such fixture` },
          { key: `${name}/fixtures/${era}` },
        ),
      ),
  );
}

/** Each profile's names and hash are its fixtures'. */
export function contractNamesAndHash(input: LintInput): RawFinding[] {
  const { file, line } = input.contract!;
  return paired(input).flatMap(({ name, profile, fixture }) => {
    const out: RawFinding[] = [];
    const difference = nameDifference(fixture.names, profile.names);
    if (difference)
      out.push(
        at(
          file,
          line(['profiles', name, 'names']),
          { profileName: name, part: 'names', difference, fixture: fixture.fixture.file },
          { key: `${name}/names`, path: `profiles.${name}.names` },
        ),
      );
    if (profile.hash !== fixture.fixture.fixture.hash) {
      out.push(
        at(
          file,
          line(['profiles', name, 'hash']),
          {
            profileName: name,
            part: 'hash',
            difference: `${profile.hash.slice(0, 12)} recorded, the fixture's is ${fixture.fixture.fixture.hash.slice(0, 12)}`,
            fixture: fixture.fixture.file,
          },
          { key: `${name}/hash`, path: `profiles.${name}.hash` },
        ),
      );
    }
    return out;
  });
}

/** Each profile's counts per prefix are those of its fixtures' names. */
export function contractCounts(input: LintInput): RawFinding[] {
  const { file, line } = input.contract!;
  return paired(input).flatMap(({ name, profile, fixture }) => {
    const actual = prefixCounts(fixture.names);
    const recorded = (profile.counts ?? {}) as Partial<typeof actual>;
    return (Object.keys(actual) as (keyof typeof actual)[])
      .filter((group) => recorded[group] !== actual[group])
      .map((group) =>
        at(
          file,
          line(['profiles', name, 'counts', group]),
          { profileName: name, group, recorded: recorded[group] ?? 'nothing', actual: actual[group] },
          { key: `${name}/${group}`, path: `profiles.${name}.counts.${group}` },
        ),
      );
  });
}

/** Each profile's required fields and confirm tools are what its fixtures' tools give. */
export function contractDerived(input: LintInput): RawFinding[] {
  const { file, line } = input.contract!;
  return paired(input).flatMap(({ name, profile, fixture }) => {
    const tools = fixture.fixture.fixture.tools;
    const lists = [
      { list: 'requiredFields', recorded: profile.requiredFields, actual: requiredFieldsOf(tools) },
      { list: 'confirmTools', recorded: profile.confirmTools, actual: confirmToolsOf(tools) },
    ];
    return lists
      .filter(({ recorded, actual }) => recorded !== undefined && JSON.stringify(recorded) !== JSON.stringify(actual))
      .map(({ list }) =>
        at(
          file,
          line(['profiles', name, list]),
          { profileName: name, list, fixture: fixture.fixture.file },
          { key: `${name}/${list}`, path: `profiles.${name}.${list}` },
        ),
      );
  });
}

/** `toolBacking` names exactly the tools of the fixtures. */
export function contractToolBacking(input: LintInput): RawFinding[] {
  const { file, contract, line } = input.contract!;
  if (!contract.toolBacking) return [];
  const backed = Object.keys(contract.toolBacking);
  const fixtureNames = [...new Set(input.fixtures.flatMap((entry) => entry.fixture.names))].sort();
  return [
    ...fixtureNames
      .filter((name) => !backed.includes(name))
      .map((tool) => at(file, line(['toolBacking']), { difference: 'has no backing category' }, { tool, key: tool })),
    ...backed
      .filter((name) => !fixtureNames.includes(name))
      .map((tool) =>
        at(file, line(['toolBacking', tool]), { difference: 'has a backing category but is in no fixture' }, { tool, key: tool }),
      ),
  ];
}

/** Each profile's `backingCounts` count its names by `toolBacking`. */
export function contractBackingCounts(input: LintInput): RawFinding[] {
  const { file, contract, line } = input.contract!;
  if (!contract.toolBacking) return [];
  const backing = contract.toolBacking as Record<string, string>;
  return paired(input).flatMap(({ name, profile, fixture }) => {
    if (!profile.backingCounts) return [];
    const actual: Record<string, number> = Object.fromEntries(Object.keys(profile.backingCounts).map((category) => [category, 0]));
    for (const tool of fixture.names) if (Object.hasOwn(backing, tool)) actual[backing[tool]!] = (actual[backing[tool]!] ?? 0) + 1;
    const recorded = profile.backingCounts as Record<string, number>;
    return Object.keys(actual)
      .filter((category) => recorded[category] !== actual[category])
      .map((category) =>
        at(
          file,
          line(['profiles', name, 'backingCounts', category]),
          { profileName: name, category, recorded: recorded[category] ?? 'nothing', actual: actual[category] },
          { key: `${name}/${category}`, path: `profiles.${name}.backingCounts.${category}` },
        ),
      );
  });
}

/** The naming block agrees with the fixtures: renamed tools' new names exist and former names do not; grandfathered names exist. */
export function contractNaming(input: LintInput): RawFinding[] {
  const { file, contract, line } = input.contract!;
  if (!contract.naming) return [];
  const names = new Set(input.fixtures.flatMap((entry) => entry.fixture.names));
  const out: RawFinding[] = [];
  contract.naming.renames.forEach(({ from, to }, index) => {
    if (names.has(from))
      out.push(
        at(
          file,
          line(['naming', 'renames', index]),
          { difference: `the former name ${from} is still in the fixtures` },
          { tool: from, key: `renames/${index}/from` },
        ),
      );
    if (!names.has(to))
      out.push(
        at(
          file,
          line(['naming', 'renames', index]),
          { difference: `the new name ${to} is in no fixture` },
          { tool: to, key: `renames/${index}/to` },
        ),
      );
  });
  contract.naming.grandfathered.forEach((name, index) => {
    if (!names.has(name))
      out.push(
        at(
          file,
          line(['naming', 'grandfathered', index]),
          { difference: `the grandfathered name ${name} is in no fixture` },
          { tool: name, key: `grandfathered/${index}` },
        ),
      );
  });
  return out;
}

/** Each prompt profile of the contract has the names and hash of its prompt fixture. */
export function contractPrompts(input: LintInput): RawFinding[] {
  const { file, contract, line } = input.contract!;
  const promptProfiles = (contract.promptProfiles ?? {}) as Record<string, { names: string[]; hash: string }>;
  return Object.entries(promptProfiles).flatMap(([name, profile]) => {
    const fixture = input.prompts.find((entry) => entry.profile === name);
    if (!fixture)
      return [at(file, line(['promptProfiles', name]), { profileName: name, difference: 'has no prompt fixture' }, { key: name })];
    const difference = nameDifference(fixture.fixture.names, profile.names);
    if (difference)
      return [
        at(
          file,
          line(['promptProfiles', name, 'names']),
          { profileName: name, difference: `names differ from ${fixture.file}: ${difference}` },
          { key: name },
        ),
      ];
    if (profile.hash !== fixture.fixture.hash)
      return [
        at(
          file,
          line(['promptProfiles', name, 'hash']),
          {
            profileName: name,
            difference: `hash ${profile.hash.slice(0, 12)} recorded, ${fixture.file} has ${fixture.fixture.hash.slice(0, 12)}`,
          },
          { key: name },
        ),
      ];
    return [];
  });
}
