import type { RawFinding } from '../rules/types.js';
import { at } from './finding.js';
import { fullProfile } from './profiles.js';
import type { LintInput } from './types.js';

/** Every tool a manifest lists is in the superset profile. */
export function manifestUnknownTools(input: LintInput): RawFinding[] {
  const full = fullProfile(input);
  if (!full) return [];
  return input.manifests.flatMap(({ file, tools }) =>
    tools
      .filter(({ name }) => !full.names.includes(name))
      .map(({ name, line }) => {
        const successor = input.naming.removed.get(name);
        return at(
          file,
          line,
          { profileName: full.name, hint: successor ? `it was renamed to ${successor}` : 'remove it or add the tool' },
          { tool: name, key: name },
        );
      }),
  );
}

/** A manifest that lists tools lists every tool of the superset profile. */
export function manifestMissingTools(input: LintInput): RawFinding[] {
  const full = fullProfile(input);
  if (!full) return [];
  return input.manifests.flatMap(({ file, tools }) =>
    full.names
      .filter((name) => !tools.some((tool) => tool.name === name))
      .map((name) => at(file, tools[0]?.line ?? 1, { profileName: full.name }, { tool: name, key: name })),
  );
}
