import type { ToolFixture } from '../../contract/fixture.js';
import { deepEqual, joinPath } from './schema.js';
import { diffExecution } from './diff.js';
import type { Change } from './changes.js';

type Visible = Pick<ToolFixture, 'names' | 'titles' | 'instructions' | 'serverCapabilities' | 'execution' | 'icons'>;

/** The fields recorded beside the hash, as the evidence names them. */
const FIELDS = {
  titles: 'titles',
  instructions: 'instructions',
  serverCapabilities: 'server capabilities',
  execution: 'tool execution',
  icons: 'tool icons',
} as const satisfies Partial<Record<keyof Visible, string>>;

type Field = keyof typeof FIELDS;

/** The fields beside the hash a fixture does not record (it predates them): they are not compared, and the evidence says so. */
export function unrecordedFields(fixture: Partial<Visible>): string[] {
  return (Object.entries(FIELDS) as [Field, string][]).filter(([key]) => fixture[key] === undefined).map(([, field]) => field);
}

/** Whether both sides record a field, so it is compared. */
export function bothRecord(expected: Visible, live: Visible, key: Field): boolean {
  return expected[key] !== undefined && live[key] !== undefined;
}

/**
 * The prompts capability is opt-in (off is conformant) and judged by the prompt comparison, so it is
 * no change of what the server declares here.
 */
function withoutPrompts(capabilities: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const { prompts: _prompts, ...rest } = capabilities ?? {};
  return rest;
}

/** Each capability the server declares: a capability gone breaks the clients that use it; one new is an addition; a changed one (its flags) is shown before and after. */
function diffServerCapabilities(
  before: Record<string, unknown> | null | undefined,
  after: Record<string, unknown> | null | undefined,
): Change[] {
  const a = withoutPrompts(before);
  const b = withoutPrompts(after);
  const changes: Change[] = [];
  for (const name of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    const path = joinPath('serverCapabilities', name);
    if (!Object.hasOwn(b, name)) changes.push({ kind: 'server-capability-removed', path, before: a[name], after: undefined });
    else if (!Object.hasOwn(a, name)) changes.push({ kind: 'server-capability-added', path, before: undefined, after: b[name] });
    else if (!deepEqual(a[name], b[name])) changes.push({ kind: 'server-capability-changed', path, before: a[name], after: b[name] });
  }
  return changes;
}

/**
 * What the profile hash leaves out but a client sees, compared beside it: the title, `execution`
 * and `icons` of each tool both sides list (a title change is a text change, like a
 * description's), the server instructions, and the capabilities the server declares. A side that
 * does not record a field (an older fixture) is not compared on it (see unrecordedFields).
 */
export function diffVisibleFields(expected: Visible, live: Visible): Change[] {
  const changes: Change[] = [];
  const shared = expected.names.filter((name) => live.names.includes(name));
  const perTool = (key: 'titles' | 'execution' | 'icons', compare: (tool: string, before: unknown, after: unknown) => void) => {
    if (!bothRecord(expected, live, key)) return;
    for (const name of shared) {
      const before = Object.hasOwn(expected[key]!, name) ? expected[key]![name] : undefined;
      const after = Object.hasOwn(live[key]!, name) ? live[key]![name] : undefined;
      if (!deepEqual(before, after)) compare(name, before, after);
    }
  };
  perTool('titles', (tool, before, after) => changes.push({ kind: 'description-changed', tool, path: 'title', before, after }));
  perTool('execution', (tool, before, after) =>
    diffExecution(before, after, (kind, path, was, now) => changes.push({ kind, tool, path, before: was, after: now })),
  );
  perTool('icons', (tool, before, after) => changes.push({ kind: 'meta-changed', tool, path: 'icons', before, after }));
  if (expected.instructions !== undefined && live.instructions !== undefined && expected.instructions !== live.instructions) {
    changes.push({ kind: 'instructions-changed', path: 'instructions', before: expected.instructions, after: live.instructions });
  }
  if (bothRecord(expected, live, 'serverCapabilities'))
    changes.push(...diffServerCapabilities(expected.serverCapabilities, live.serverCapabilities));
  return changes;
}
