import { ConformError } from '../errors.js';

/** `--max-duration`'s default: the whole run, probes included. */
const DEFAULT_MAX_DURATION_MS = 5 * 60_000;

/** When the run started and must be over, on its clock. */
export interface Budget {
  now: () => number;
  started: number;
  deadline: number;
  /** `--max-duration` as messages show it. */
  label: string;
}

/** `5 min`, `90 s`, `1500 ms`: a duration as messages show it. */
function durationLabel(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

/** A run's budget, starting now on `now` (performance.now by default). */
export function startBudget(maxDurationMs = DEFAULT_MAX_DURATION_MS, now: () => number = () => performance.now()): Budget {
  const started = now();
  return { now, started, deadline: started + maxDurationMs, label: durationLabel(maxDurationMs) };
}

/** `work`, or a timeout error once the budget is spent (the listing of a server that never answers cannot hold the run). */
export async function withinBudget<T>(work: Promise<T>, budget: Budget, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new ConformError('timeout', `the run went past --max-duration ${budget.label} while ${what}`)),
      Math.max(0, budget.deadline - budget.now()),
    );
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
