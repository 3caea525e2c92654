import type { ListedTool } from '../../contract/normalize.js';
import { changeText, mutationText, observedCall, type Attempt } from './attempt.js';
import { errorSummary } from './results.js';
import type { ProbeRun } from './run-state.js';
import type { ProbeSession } from './sessions.js';
import type { Arguments } from './table.js';
import type { ProbeObservation } from './types.js';

/** The JSON-RPC code for invalid params. */
const INVALID_PARAMS = -32602;

/** The first candidate whose name the tool's schema does not declare, or undefined when it declares them all. */
export function undeclaredArgument(tool: ListedTool, candidates: readonly Arguments[]): Arguments | undefined {
  const declared = new Set(Object.keys((tool.inputSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {}));
  return candidates.find((candidate) => Object.keys(candidate).every((name) => !declared.has(name)));
}

/**
 * A call with an argument the schema does not declare must be refused (invalid params, or an
 * isError result) and change nothing: an unknown `force: true` is never consent.
 */
export function judgeUndeclared(
  tool: string,
  extra: string,
  { outcome, mutations, changes }: Attempt,
): Pick<ProbeObservation, 'passed' | 'detail'> {
  if (mutations.length > 0)
    return { passed: false, detail: `${tool} acted on a call with the undeclared argument ${extra}: ${mutationText(mutations)}` };
  if (changes.length > 0)
    return {
      passed: false,
      detail: `${tool} acted on a call with the undeclared argument ${extra}: the sandbox state changed (${changeText(changes)})`,
    };
  if (outcome.thrown) {
    if (outcome.thrown.includes(String(INVALID_PARAMS)))
      return { passed: true, detail: `refused with JSON-RPC ${INVALID_PARAMS} (invalid params); nothing changed` };
    return {
      passed: false,
      detail: `${tool} answered the undeclared argument ${extra} with a protocol error other than ${INVALID_PARAMS} (invalid params)`,
    };
  }
  if (!outcome.result?.isError)
    return { passed: false, detail: `${tool} accepted the undeclared argument ${extra} instead of refusing the call` };
  return { passed: true, detail: `refused with ${errorSummary(outcome)}; nothing changed` };
}

export interface ArgumentCall {
  tool: ListedTool;
  /** Valid arguments for the tool, so the undeclared one is the only thing wrong (empty when none are known). */
  prepare(): Promise<Arguments>;
}

/** One step per tool: its valid arguments plus one undeclared argument, judged by {@link judgeUndeclared}. */
export function argumentSteps(run: ProbeRun, session: ProbeSession, calls: readonly ArgumentCall[], candidates: readonly Arguments[]) {
  return calls.flatMap(({ tool, prepare }) => {
    const extra = undeclaredArgument(tool, candidates);
    if (!extra) {
      run.skipped.push(`${tool.name}: its schema declares every undeclared-argument candidate of rules/probes/writes.json`);
      return [];
    }
    const shown = Object.entries(extra)
      .map(([name, value]) => `${name}: ${JSON.stringify(value)}`)
      .join(', ');
    return [
      {
        label: `undeclared argument ${tool.name}`,
        tool: tool.name,
        run: async () => {
          const attempt = await observedCall(run, session, 'argument', tool.name, { ...(await prepare()), ...extra });
          if (attempt.outcome.timedOut) throw new Error('no answer within the timeout');
          run.record({ aspect: 'argument.undeclared', tool: tool.name, variant: shown, ...judgeUndeclared(tool.name, shown, attempt) });
        },
      },
    ];
  });
}
