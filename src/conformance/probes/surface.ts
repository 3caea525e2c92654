import type { Era } from '../../contract/constants.js';
import type { ToolFixture } from '../../contract/fixture.js';
import { snapshotTools, type NormalizedTool } from '../../contract/normalize.js';
import { diffTools } from '../diff/diff.js';
import type { Change } from '../diff/changes.js';
import type { ProbeRun } from './run-state.js';
import type { ProbeSession } from './sessions.js';

/** How many differences one observation names. */
const SHOWN_CHANGES = 3;

function changeText(change: Change): string {
  return `${change.kind}${change.path ? ` at ${change.path}` : ''}`;
}

function sessionLabel(session: ProbeSession, when = ''): string {
  return `${session.spec.name} session (${session.client}, ${session.modern ? 'modern' : '2025'} era, with credentials${when})`;
}

/** One observation per tool whose definition differs, or one pass for the session. */
function compareTools(
  run: ProbeRun,
  session: ProbeSession,
  expected: readonly NormalizedTool[],
  against: string,
  listed = session.tools,
  when = '',
): void {
  const changes = diffTools(expected, snapshotTools(listed).tools);
  if (changes.length === 0) {
    run.record({ aspect: 'surface.tools', passed: true, variant: sessionLabel(session, when), detail: `tools/list equals ${against}` });
    return;
  }
  const byTool = new Map<string, Change[]>();
  for (const change of changes) byTool.set(change.tool ?? '', [...(byTool.get(change.tool ?? '') ?? []), change]);
  for (const [tool, toolChanges] of byTool) {
    const shown = toolChanges.slice(0, SHOWN_CHANGES).map(changeText).join('; ');
    const more = toolChanges.length > SHOWN_CHANGES ? ` and ${toolChanges.length - SHOWN_CHANGES} more` : '';
    run.record({
      aspect: 'surface.tools',
      passed: false,
      ...(tool ? { tool } : {}),
      variant: sessionLabel(session, when),
      detail: `its tools/list differs from ${against}: ${shown}${more}`,
    });
  }
}

function compareInstructions(run: ProbeRun, session: ProbeSession, expected: string | null, against: string): void {
  const same = (session.instructions ?? null) === expected;
  run.record({
    aspect: 'surface.instructions',
    passed: same,
    variant: sessionLabel(session),
    detail: same
      ? `instructions equal ${against}`
      : `its instructions differ from ${against} (${expected === null ? 'none expected' : `${expected.length} characters expected`}, ${session.instructions === null ? 'none' : `${session.instructions.length} characters`} given)`,
  });
}

/** Fixtures are recorded with the contract's default output format; instructions may name the format a session runs with. */
const FIXTURE_FORMATS: readonly (string | null)[] = ['json', null];

/**
 * Every probe session saw one surface: its tools/list (with the sandbox's credentials, as its
 * client, in its era) equals the fixture of that era, or the first session's when there is none.
 * Its instructions equal the fixture's when it runs in the format fixtures are recorded in, and
 * else those of the first session in its format. No tool demands task execution.
 */
export function judgeSurfaces(run: ProbeRun, sessions: readonly ProbeSession[], fixtures: Partial<Record<Era, ToolFixture>>): void {
  const first = sessions[0];
  if (!first) return;
  for (const session of sessions) {
    const era: Era = session.modern ? 'modern' : 'legacy';
    const fixture = fixtures[era];
    if (fixture) compareTools(run, session, fixture.tools, `the ${era} fixture`);
    else if (session !== first) compareTools(run, session, snapshotTools(first.tools).tools, `the ${sessionLabel(first)}'s`);
    const format = session.spec.outputFormat;
    const sameFormat = sessions.find((other) => other.spec.outputFormat === format)!;
    if (fixture && fixture.instructions !== undefined && FIXTURE_FORMATS.includes(format))
      compareInstructions(run, session, fixture.instructions, `the ${era} fixture's`);
    else if (session !== sameFormat) compareInstructions(run, session, sameFormat.instructions, `the ${sessionLabel(sameFormat)}'s`);
  }
  const required = new Set<string>();
  for (const session of sessions) {
    for (const tool of session.tools) {
      const execution = (tool as { execution?: { taskSupport?: unknown } }).execution;
      if (execution?.taskSupport !== 'required' || required.has(tool.name)) continue;
      required.add(tool.name);
      run.record({
        aspect: 'surface.task-required',
        passed: false,
        tool: tool.name,
        variant: sessionLabel(session),
        detail: `${tool.name} is listed with execution.taskSupport "required": a client that does not run tasks cannot call it, and one that does gets its effects after the call was judged`,
      });
    }
  }
}

/**
 * After the probes, each session lists its tools again: a surface that changes with uptime or
 * with the calls made must still equal the one the session started with.
 */
export async function judgeRelisted(run: ProbeRun, sessions: readonly ProbeSession[]): Promise<void> {
  await Promise.all(
    sessions.map(async (session) => {
      try {
        const listed = await session.relist(run.requestTimeout());
        compareTools(
          run,
          session,
          snapshotTools(session.tools).tools,
          'the list it got at start',
          listed,
          ', listed again after the probes',
        );
      } catch (error) {
        run.incomplete(undefined, `listing the ${session.spec.name} session's tools again`, error);
      }
    }),
  );
}
