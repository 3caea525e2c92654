import { TOOL_PREFIXES, type ToolPrefix } from '../../contract/fixture.js';
import type { RawFinding } from '../rules/types.js';
import { at } from './finding.js';
import { fixtureProfiles, type FixtureProfile } from './profiles.js';
import type { LintInput } from './types.js';

const TOOL_NAME = /`((?:b2|s3|bz)_[a-z0-9_]+)`/g;

interface TableRow {
  line: number;
  counts: { total: number; b2: number; s3: number; bz: number };
  hashPrefix?: string;
}

interface Section {
  line: number;
  hash?: { value: string; line: number };
  /** Tool names listed under a prefix heading or on a prefix line, with their lines. */
  names: Map<string, number>;
  /** `### `b2_*` Tools (21)`: a count a heading states. */
  headingCounts: { prefix: ToolPrefix; count: number; line: number }[];
  lines: { text: string; line: number }[];
}

/** The summary table (`| `full` | 40 | 21 | 19 | 0 | … | `d2303ac12643` |`) and one section per profile (`## `full``). */
function parseReferenceDoc(text: string): { rows: Map<string, TableRow>; sections: Map<string, Section> } {
  const rows = new Map<string, TableRow>();
  const sections = new Map<string, Section>();
  let section: Section | undefined;
  let listPrefix: ToolPrefix | undefined;
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const row = /^\|\s*`([^`]+)`\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|(.*)$/.exec(raw);
    if (row && !section) {
      const hashPrefix = /`([0-9a-f]{6,64})`/.exec(row[6]!)?.[1];
      rows.set(row[1]!, {
        line,
        counts: { total: Number(row[2]), b2: Number(row[3]), s3: Number(row[4]), bz: Number(row[5]) },
        ...(hashPrefix ? { hashPrefix } : {}),
      });
      return;
    }
    const heading = /^(#{2,})\s+(.*)$/.exec(raw);
    if (heading && heading[1] === '##') {
      const profile = /^`([^`]+)`\s*$/.exec(heading[2]!.trim())?.[1];
      section = profile ? { line, names: new Map(), headingCounts: [], lines: [] } : undefined;
      if (profile && section) sections.set(profile, section);
      listPrefix = undefined;
      return;
    }
    if (!section) return;
    section.lines.push({ text: raw, line });
    if (heading) {
      const prefixHeading = /`(b2|s3|bz)_\*`[^(]*(?:\((\d+)\))?/.exec(heading[2]!);
      listPrefix = prefixHeading ? (prefixHeading[1] as ToolPrefix) : undefined;
      if (prefixHeading?.[2]) section.headingCounts.push({ prefix: listPrefix!, count: Number(prefixHeading[2]), line });
      return;
    }
    const hash = /(?:hash):?\s*`([0-9a-f]{64})`/i.exec(raw);
    if (hash) section.hash = { value: hash[1]!, line };
    const prefixLine = /^\s*[-*]\s+`(b2|s3|bz)_\*`:/.exec(raw);
    if (listPrefix !== undefined || prefixLine) {
      for (const match of raw.matchAll(TOOL_NAME)) if (!section.names.has(match[1]!)) section.names.set(match[1]!, line);
    }
  });
  return { rows, sections };
}

function doc(input: LintInput) {
  const reference = input.referenceDoc!;
  return { file: reference.file, ...parseReferenceDoc(reference.text), profiles: fixtureProfiles(input) };
}

/** The reference is what the repository's generator writes (our generator, recognised by its marker line). */
export function referenceDocGenerated(input: LintInput): RawFinding[] {
  const reference = input.referenceDoc!;
  if (reference.expected === undefined || reference.expected === reference.text) return [];
  const actual = reference.text.split('\n');
  const expected = reference.expected.split('\n');
  const index = expected.findIndex((line, position) => actual[position] !== line);
  const line = (index === -1 ? expected.length : index) + 1;
  return [at(reference.file, line, { contract: input.contract!.file, expectedLine: expected[line - 1] ?? '(end of file)' })];
}

/** The table lists exactly the profiles with fixtures. */
export function referenceDocProfiles(input: LintInput): RawFinding[] {
  const { file, rows, sections, profiles } = doc(input);
  if (rows.size === 0 && sections.size === 0) return [at(file, 1, { difference: 'lists no profile' })];
  const listed = new Set([...rows.keys(), ...sections.keys()]);
  return [
    ...[...listed]
      .filter((name) => !profiles.some((profile) => profile.name === name))
      .map((name) =>
        at(
          file,
          rows.get(name)?.line ?? sections.get(name)!.line,
          { profileName: name, difference: `is listed but has no fixtures in ${input.fixturesDir}` },
          { key: name },
        ),
      ),
    ...profiles
      .filter((profile) => !listed.has(profile.name))
      .map((profile) =>
        at(
          file,
          1,
          { profileName: profile.name, difference: `has fixtures (${profile.fixture.file}) but is not listed` },
          { key: profile.name },
        ),
      ),
  ];
}

function profileNamed(profiles: FixtureProfile[], name: string): FixtureProfile | undefined {
  return profiles.find((profile) => profile.name === name);
}

/** Counts per prefix, in the table and in the name-list headings, are the fixtures'. */
export function referenceDocCounts(input: LintInput): RawFinding[] {
  const { file, rows, sections, profiles } = doc(input);
  const out: RawFinding[] = [];
  for (const [name, row] of rows) {
    const profile = profileNamed(profiles, name);
    if (!profile) continue;
    for (const group of ['total', ...TOOL_PREFIXES] as const) {
      if (row.counts[group] !== profile.counts[group])
        out.push(
          at(
            file,
            row.line,
            { profileName: name, group, stated: row.counts[group], actual: profile.counts[group], fixture: profile.fixture.file },
            { key: `${name}/${group}` },
          ),
        );
    }
  }
  for (const [name, section] of sections) {
    const profile = profileNamed(profiles, name);
    if (!profile) continue;
    for (const { prefix, count, line } of section.headingCounts) {
      if (count !== profile.counts[prefix])
        out.push(
          at(
            file,
            line,
            { profileName: name, group: prefix, stated: count, actual: profile.counts[prefix], fixture: profile.fixture.file },
            { key: `${name}/${prefix}/heading` },
          ),
        );
    }
  }
  return out;
}

/** Hash prefixes in the table and full hashes in the sections are the fixtures'. */
export function referenceDocHashes(input: LintInput): RawFinding[] {
  const { file, rows, sections, profiles } = doc(input);
  const out: RawFinding[] = [];
  for (const [name, row] of rows) {
    const profile = profileNamed(profiles, name);
    if (profile && row.hashPrefix && !profile.fixture.fixture.hash.startsWith(row.hashPrefix)) {
      out.push(
        at(
          file,
          row.line,
          {
            profileName: name,
            stated: row.hashPrefix,
            actual: profile.fixture.fixture.hash.slice(0, row.hashPrefix.length),
            fixture: profile.fixture.file,
          },
          { key: `${name}/prefix` },
        ),
      );
    }
  }
  for (const [name, section] of sections) {
    const profile = profileNamed(profiles, name);
    if (profile && section.hash && section.hash.value !== profile.fixture.fixture.hash) {
      out.push(
        at(
          file,
          section.hash.line,
          {
            profileName: name,
            stated: section.hash.value.slice(0, 12),
            actual: profile.fixture.fixture.hash.slice(0, 12),
            fixture: profile.fixture.file,
          },
          { key: `${name}/hash` },
        ),
      );
    }
  }
  return out;
}

/** Each profile section lists exactly the fixtures' tool names. */
export function referenceDocNames(input: LintInput): RawFinding[] {
  const { file, sections, profiles } = doc(input);
  const out: RawFinding[] = [];
  for (const [name, section] of sections) {
    const profile = profileNamed(profiles, name);
    if (!profile || section.names.size === 0) continue;
    for (const [tool, line] of section.names)
      if (!profile.names.includes(tool))
        out.push(
          at(
            file,
            line,
            { profileName: name, difference: 'is listed but not in the fixtures', fixture: profile.fixture.file },
            { tool, key: `${name}/${tool}` },
          ),
        );
    for (const tool of profile.names)
      if (!section.names.has(tool))
        out.push(
          at(
            file,
            section.line,
            { profileName: name, difference: 'is in the fixtures but not listed', fixture: profile.fixture.file },
            { tool, key: `${name}/${tool}` },
          ),
        );
  }
  return out;
}

/** Backing counts (by each category's label in the contract) are those of the fixtures' names. */
export function referenceDocBacking(input: LintInput): RawFinding[] {
  const contract = input.contract?.contract;
  if (!contract?.toolBacking || !contract.backingCategories) return [];
  const backing = contract.toolBacking as Record<string, string>;
  const labels = Object.entries(contract.backingCategories as Record<string, { label: string }>);
  const { file, sections, profiles } = doc(input);
  const out: RawFinding[] = [];
  for (const [name, section] of sections) {
    const profile = profileNamed(profiles, name);
    if (!profile) continue;
    for (const [category, { label }] of labels) {
      const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const pattern = new RegExp(`(?:^|[\\s,(])${escaped}(?:\\s*\\([^)]*\\))?:?\\s+(\\d+)\\b`);
      const stated = section.lines.map(({ text, line }) => ({ match: pattern.exec(text), line })).find(({ match }) => match);
      if (!stated) continue;
      const actual = profile.names.filter((tool) => backing[tool] === category).length;
      if (Number(stated.match![1]) !== actual)
        out.push(
          at(file, stated.line, { profileName: name, label, stated: Number(stated.match![1]), actual }, { key: `${name}/${category}` }),
        );
    }
  }
  return out;
}
