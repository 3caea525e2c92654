import { ConformError } from '../errors.js';
import type { FixtureSet } from '../diff/fixtures.js';

/** Edit distance, for the suggestion an unknown --probe-tool gets. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_value, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** Every --probe-tool must name a tool of the profile: a typo would otherwise probe nothing and pass. */
export function checkProbeTools(names: readonly string[], profile: string, fixtures: FixtureSet): void {
  const known = [...new Set(Object.values(fixtures.byEra).flatMap((fixture) => fixture!.tools.map((tool) => tool.name)))];
  for (const name of names) {
    if (known.includes(name)) continue;
    const closest = [...known].sort((a, b) => distance(name, a) - distance(name, b))[0];
    throw new ConformError(
      'usage',
      `--probe-tool "${name}" is not a tool of profile ${profile}${closest ? ` (did you mean ${closest}?)` : ''}`,
    );
  }
}
