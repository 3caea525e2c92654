import type { RawFinding } from '../rules/types.js';

/** A finding at a line of a file: its location, its scope (`file:line`) and the values messages name. */
export function at(
  file: string,
  line: number,
  data: Record<string, unknown> = {},
  extra: Omit<RawFinding, 'location' | 'scope' | 'data'> = {},
): RawFinding {
  return {
    location: { file, line },
    scope: `${file}:${line}`,
    data: { file, line, ...data },
    key: `${file}\u0000${extra.key ?? ''}`,
    ...(extra.tool !== undefined ? { tool: extra.tool } : {}),
    ...(extra.prompt !== undefined ? { prompt: extra.prompt } : {}),
    ...(extra.path !== undefined ? { path: extra.path } : {}),
  };
}
