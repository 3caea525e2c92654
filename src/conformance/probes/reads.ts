import { mutationText, observedCall } from './attempt.js';
import type { ProbeRun } from './run-state.js';
import { mutationsSince, type MutationRecord } from './sandbox.js';
import type { ProbeSession } from './sessions.js';
import type { Arguments } from './table.js';

/** One read call of the parallel read phase, and the mutation log's sequence numbers around it. */
export interface ReadWindow {
  tool: string;
  args: Arguments;
  session: ProbeSession;
  /** The log's last sequence number before the call, and after its answer. */
  from: number;
  to: number;
}

interface Step {
  label: string;
  tool: string;
  run(): Promise<void>;
}

function judgedBy(run: ProbeRun, tool: string, mutations: readonly MutationRecord[]): void {
  run.record({
    aspect: 'read.mutation',
    tool,
    variant: 'read call',
    passed: mutations.length === 0,
    detail: mutations.length === 0 ? 'changed nothing' : `${tool} only reads, yet a call of it made ${mutationText(mutations)}`,
  });
}

/** For a mutation outside every window: in each session, the read that answered last before it. */
function lastBefore(windows: readonly ReadWindow[], seq: number): ReadWindow[] {
  const bySession = new Map<ProbeSession, ReadWindow>();
  for (const window of windows) if (window.to < seq) bySession.set(window.session, window);
  return [...bySession.values()];
}

/**
 * Judge every read tool against the mutation log of the read phase: a mutation inside the window
 * of one tool's calls only is that tool's; one that several tools' windows (or none) hold makes
 * each of them a suspect, called again alone with both records (mutation log and state) watching.
 * One verdict per tool.
 */
export async function readMutationSteps(run: ProbeRun, windows: readonly ReadWindow[], phaseStart: number): Promise<Step[]> {
  const mutations = await mutationsSince(run.sandbox, phaseStart);
  const pinned = new Map<string, MutationRecord[]>();
  const suspects = new Map<string, ReadWindow>();
  for (const mutation of mutations) {
    const holding = windows.filter((window) => window.from < mutation.seq && mutation.seq <= window.to);
    const tools = new Set(holding.map((window) => window.tool));
    if (tools.size === 1) pinned.set(holding[0]!.tool, [...(pinned.get(holding[0]!.tool) ?? []), mutation]);
    else for (const window of holding.length ? holding : lastBefore(windows, mutation.seq)) suspects.set(window.tool, window);
  }
  const tools = [...new Set(windows.map((window) => window.tool))];
  const steps: Step[] = [];
  for (const tool of tools) {
    const suspect = suspects.get(tool);
    if (pinned.has(tool) || !suspect) {
      judgedBy(run, tool, pinned.get(tool) ?? []);
      continue;
    }
    steps.push({
      label: `read ${tool} again, alone`,
      tool,
      run: async () => {
        const attempt = await observedCall(run, suspect.session, 'read', tool, suspect.args);
        judgedBy(
          run,
          tool,
          attempt.mutations.length || attempt.changes.length === 0
            ? attempt.mutations
            : [{ seq: 0, operation: `a change the log does not show (${attempt.changes.length})` }],
        );
      },
    });
  }
  return steps;
}
