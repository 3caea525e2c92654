/**
 * A wall-clock budget for one analytics call. Its `signal` aborts in-flight B2 requests when the
 * budget runs out or when the caller cancels; only the first case is a normal end of the scan
 * (the tool then reports what it has, marked truncated). A caller's cancellation propagates, and
 * so does an expiry before the scan began (nothing to report): as a 504 tool error.
 */
import { ToolError } from '../errors.js';

/** Every analytics tool stops scanning after this long (docs/contract.md §2.7). */
export const ANALYTICS_TIME_BUDGET_MS = 12_000;

class TimeBudgetExpired extends ToolError {
  constructor(budgetMs: number) {
    super(504, 'time_budget_exceeded', `B2 did not answer within the ${budgetMs / 1000} s time budget of this tool.`);
  }
}

export class ScanDeadline {
  readonly signal: AbortSignal;
  private readonly timer: NodeJS.Timeout;
  private fired = false;

  constructor(
    private readonly caller: AbortSignal,
    readonly budgetMs: number,
  ) {
    const budget = new AbortController();
    this.timer = setTimeout(() => {
      this.fired = true;
      budget.abort(new TimeBudgetExpired(budgetMs));
    }, budgetMs);
    this.timer.unref();
    this.signal = AbortSignal.any([caller, budget.signal]);
  }

  /** The budget ran out (and the caller did not cancel first). */
  get expired(): boolean {
    return this.fired && !this.caller.aborted;
  }

  /**
   * Decides what a failure during the scan means: `true` when it is the budget running out (stop
   * and report); otherwise rethrows it (a B2 error, or the caller's cancellation).
   */
  absorbExpiry(error: unknown): true {
    if (this.caller.aborted) throw this.caller.reason;
    if (this.fired) return true;
    throw error;
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}

/** Runs `scan` under a fresh deadline and always releases its timer. */
export async function withDeadline<T>(caller: AbortSignal, budgetMs: number, scan: (deadline: ScanDeadline) => Promise<T>): Promise<T> {
  const deadline = new ScanDeadline(caller, budgetMs);
  try {
    return await scan(deadline);
  } finally {
    deadline.dispose();
  }
}
