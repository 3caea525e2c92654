import type { ToolPrefix } from '../../contract/fixture.js';
import type { RawFinding } from '../rules/types.js';
import { at } from './finding.js';
import { lineOfOffset } from './lines.js';
import { fixtureProfiles, knownNames } from './profiles.js';
import type { LintInput, LintText } from './types.js';

/** A tool-shaped name: `b2_`, `s3_` or `bz_` and lowercase words, not part of a path, a variable, a pattern or a wildcard (`s3_presign_*`). */
const TOOL_SHAPED = /(?<![A-Za-z0-9_\-./$^])((?:b2|s3|bz)_[a-z0-9]+(?:_[a-z0-9]+)*)(?![A-Za-z0-9_*-])/g;

/**
 * Tool counts stated in prose, each with what it is a count of: a named profile's total
 * (`40 tools in the `full` profile`, `the `default` (37)`, `the full 40`, a table row `| `full` | 40 |`), some
 * profile's count of a prefix (`19 s3_* tools`), or some profile's total (`40 tools`, `reports 37`).
 * A bare count below the smallest profile's total counts a subset (`gate calls on 15 tools`) and
 * is not judged.
 */
const COUNT_CLAIMS: { pattern: RegExp; count: number; profile?: number; prefix?: number; bare?: true }[] = [
  { pattern: /\b(\d+) (?:MCP )?tools in the `?([a-z0-9-]+)`? profile/g, count: 1, profile: 2 },
  { pattern: /`([a-z0-9-]+)`(?: profile)? \((\d+)\)/g, count: 2, profile: 1 },
  { pattern: /^\|\s*`([a-z0-9-]+)`\s*\|\s*(\d+)\s*\|/gm, count: 2, profile: 1 },
  { pattern: /(?<![\d,.])\b(\d+) `?(b2|s3|bz)_\*`? tools\b/g, count: 1, prefix: 2 },
  { pattern: /(?<![\d,.])\b(\d+) (?:MCP )?tools\b(?! in the `?[a-z0-9-]+`? profile)/g, count: 1, bare: true },
  { pattern: /\bthe (full) (\d+)\b/g, count: 2, profile: 1 },
  { pattern: /\breports (\d+)\b/g, count: 1, bare: true },
];

/** Prose held to the fixtures' counts: everything but the generated reference, which has its own rules. */
function countedProse(input: LintInput): LintText[] {
  return input.prose.filter((text) => text.file !== input.referenceDoc?.file);
}

/** Tool counts stated in README, docs and playbooks are counts the fixtures hold. */
export function proseToolCounts(input: LintInput): RawFinding[] {
  const profiles = fixtureProfiles(input);
  const totals = profiles.map((profile) => `${profile.counts.total} (${profile.name})`).join(', ');
  const smallest = Math.min(...profiles.map((profile) => profile.counts.total));
  const out: RawFinding[] = [];
  for (const { file, text } of countedProse(input)) {
    const claimed = new Set<number>();
    for (const { pattern, count, profile: profileGroup, prefix: prefixGroup, bare } of COUNT_CLAIMS) {
      for (const match of text.matchAll(pattern)) {
        const offset = match.index! + match[0].indexOf(match[count]!);
        if (claimed.has(offset)) continue;
        const stated = Number(match[count]);
        const named = profileGroup ? profiles.find((profile) => profile.name === match[profileGroup]) : undefined;
        if (profileGroup && !named) continue; // not a profile of this checkout (a table of something else)
        if (bare && stated < smallest) continue;
        claimed.add(offset);
        const prefix = prefixGroup ? (match[prefixGroup] as ToolPrefix) : undefined;
        const fits = named
          ? named.counts.total === stated
          : profiles.some((profile) => (prefix ? profile.counts[prefix] : profile.counts.total) === stated);
        if (fits) continue;
        const expected = named
          ? `${named.counts.total} (${named.name})`
          : prefix
            ? profiles.map((profile) => `${profile.counts[prefix]} (${profile.name})`).join(', ')
            : totals;
        out.push(
          at(
            file,
            lineOfOffset(text, offset),
            { stated: match[0].trim(), expected, what: prefix ? `${prefix}_* tools` : 'tools' },
            { key: `${offset}` },
          ),
        );
      }
    }
  }
  return out;
}

/**
 * Counts per backing category stated in prose, by the label the contract gives the category
 * (`Native B2 SDK (`@backblaze-labs/b2-sdk`) (17)`, `AWS S3 SDK: 19`): each must be some
 * profile's count of that category's tools.
 */
export function proseBackingCounts(input: LintInput): RawFinding[] {
  const contract = input.contract?.contract;
  if (!contract?.toolBacking || !contract.backingCategories) return [];
  const backing = contract.toolBacking as Record<string, string>;
  const profiles = fixtureProfiles(input);
  const out: RawFinding[] = [];
  for (const [category, { label }] of Object.entries(contract.backingCategories as Record<string, { label: string }>)) {
    const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pattern = new RegExp(
      `${escaped}(?:\\*\\*)?(?: \\([^()\\n]*[^()\\d\\n][^()\\n]*\\))*(?:\\*\\*)?(?: \\((\\d+)\\)|: (\\d+)\\b)`,
      'g',
    );
    const counts = profiles.map((profile) => ({
      name: profile.name,
      count: profile.names.filter((tool) => backing[tool] === category).length,
    }));
    for (const { file, text } of countedProse(input)) {
      for (const match of text.matchAll(pattern)) {
        const stated = Number(match[1] ?? match[2]);
        if (counts.some(({ count }) => count === stated)) continue;
        const offset = match.index! + match[0].length - 1;
        out.push(
          at(
            file,
            lineOfOffset(text, offset),
            { label, stated, expected: counts.map(({ name, count }) => `${count} (${name})`).join(', ') },
            { key: `${category}/${offset}` },
          ),
        );
      }
    }
  }
  return out;
}

/** Every tool-shaped name in a text, with its line and the text of that line. */
function mentions({ text }: LintText): { name: string; line: number; lineText: string }[] {
  const lines = text.split('\n');
  return lines.flatMap((lineText, index) =>
    [...lineText.matchAll(TOOL_SHAPED)].map((match) => ({ name: match[1]!, line: index + 1, lineText })),
  );
}

/** A name in prose that no profile lists is a finding; a retired one is its own rule, with its successor as the fix. */
export function proseUnknownNames(input: LintInput): RawFinding[] {
  const known = knownNames(input);
  return input.prose.flatMap((text) =>
    mentions(text)
      .filter(({ name }) => !known.has(name) && !input.naming.removed.has(name))
      .map(({ name, line }) => at(text.file, line, {}, { tool: name, key: name })),
  );
}

/** A retired name in prose; not when the same line names its successor (that line documents the rename). */
export function proseRetiredNames(input: LintInput): RawFinding[] {
  const known = knownNames(input);
  return input.prose.flatMap((text) =>
    mentions(text).flatMap(({ name, line, lineText }) => {
      const successor = input.naming.removed.get(name);
      if (successor === undefined || known.has(name) || lineText.includes(successor)) return [];
      return [at(text.file, line, { successor }, { tool: name, key: name })];
    }),
  );
}
