import { digestChanges, type DigestChange } from '../../sandbox/evidence.js';
import type { CallKind, ProbeRun } from './run-state.js';
import { mutationMark, mutationsSince, stateDigestOf, type MutationRecord } from './sandbox.js';
import type { CallOutcome, ProbeSession } from './sessions.js';

/** One call and what it did to the sandbox, as its two records tell it: the mutation log and the state. */
export interface Attempt {
  outcome: CallOutcome;
  mutations: MutationRecord[];
  /** What the sandbox's state says changed, whatever its log says. */
  changes: DigestChange[];
}

/** Call a tool and read from both records (the mutation log and the state) what the call changed. */
export async function observedCall(
  run: ProbeRun,
  session: ProbeSession,
  kind: CallKind,
  tool: string,
  args: Record<string, unknown>,
): Promise<Attempt> {
  const [mark, before] = await Promise.all([mutationMark(run.sandbox), stateDigestOf(run.sandbox)]);
  const outcome = await run.call(session, kind, tool, args);
  const [mutations, after] = await Promise.all([mutationsSince(run.sandbox, mark), stateDigestOf(run.sandbox)]);
  return { outcome, mutations, changes: digestChanges(before, after) };
}

export function mutationText(mutations: readonly MutationRecord[]): string {
  if (mutations.length === 0) return 'no change in the sandbox';
  const operations = [...new Set(mutations.map((mutation) => mutation.operation))].join(', ');
  return `${mutations.length} change${mutations.length === 1 ? '' : 's'} in the sandbox (${operations})`;
}

/** `2 version removed, 1 bucket changed`: what a state comparison found, by kind and change. */
function changeCounts(changes: readonly DigestChange[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { kind, change } of changes) counts.set(`${kind} ${change}`, (counts.get(`${kind} ${change}`) ?? 0) + 1);
  return counts;
}

export function changeText(changes: readonly DigestChange[]): string {
  return [...changeCounts(changes)].map(([what, count]) => `${count} ${what}`).join(', ');
}
