import { judgeFormat } from './format.js';
import { joinedStrings, messageSurfaces } from './messages.js';
import { issuedTokens, type ProbeSandbox } from './sandbox.js';
import { CanaryScanner, type Leak } from './secrets.js';
import type { CallOutcome, ProbeSession, ReceivedMessage } from './sessions.js';
import type { ProbeObservation, ProgressListener } from './types.js';

/** After this many probe calls in a row time out, the server is stalling: the rest is skipped. */
export const CONSECUTIVE_TIMEOUT_LIMIT = 3;

export interface RunLimits {
  /** Per call. */
  timeoutMs: number;
  /** When the probes must be done, on the `now` clock. */
  deadline: number;
  now: () => number;
  /** `--max-duration` as the user gave it, for messages. */
  budgetLabel: string;
}

/** What the calls of one probe are, for the evidence counts. */
export type CallKind = 'gate' | 'read' | 'write' | 'argument';

/**
 * The state of one probe run: observations, progress, the time budget and the canaries. Every
 * call to the server goes through {@link ProbeRun.call}, which bounds it by the budget, counts
 * timeouts, learns the tokens the sandbox issued meanwhile and searches the answer for canaries.
 */
export class ProbeRun {
  readonly observations: ProbeObservation[] = [];
  readonly skipped: string[] = [];
  readonly scanner: CanaryScanner;
  private done = 0;
  private total = 1;
  private readonly calls: Record<CallKind, number> = { gate: 0, read: 0, write: 0, argument: 0 };
  private elicitations = 0;
  private readonly leaks = new Set<string>();
  private timeoutsInARow = 0;
  private halt: string | undefined;

  constructor(
    readonly sandbox: ProbeSandbox,
    private readonly limits: RunLimits,
    private readonly onProgress: ProgressListener | undefined,
  ) {
    this.scanner = new CanaryScanner(sandbox.canaries);
  }

  plan(total: number): void {
    this.total = total;
  }

  /**
   * Start the next step, or refuse to when the run must stop (the budget ran out, or the server
   * stalled): then false, and the step is counted as not run.
   */
  step(label: string): boolean {
    if (!this.halt && this.limits.now() >= this.limits.deadline)
      this.halt = `the probe time budget (--max-duration ${this.limits.budgetLabel}) ran out`;
    if (this.halt) return false;
    this.onProgress?.(this.done, this.total, label);
    this.done++;
    return true;
  }

  get halted(): boolean {
    return this.halt !== undefined;
  }

  /** Close the run: one incomplete observation for whatever a stop left out. */
  finish(): void {
    if (this.halt) {
      const left = this.total - this.done;
      this.record({
        aspect: 'run.incomplete',
        passed: false,
        variant: 'stopped early',
        detail: `${this.halt}; ${left} of ${this.total} probe steps did not run`,
      });
    }
    this.onProgress?.(this.total, this.total, 'done');
  }

  /** How long the next request to the server may take: the per-request timeout, cut to what the budget has left. */
  requestTimeout(): number {
    return Math.max(1, Math.min(this.limits.timeoutMs, Math.floor(this.limits.deadline - this.limits.now())));
  }

  /** Call a tool, bounded by the budget, and inspect the answer (canaries, and the text of structured results). */
  async call(session: ProbeSession, kind: CallKind, tool: string, args: Record<string, unknown>): Promise<CallOutcome> {
    const outcome = await session.call(tool, args, this.requestTimeout());
    this.calls[kind]++;
    if (kind === 'gate') this.elicitations += outcome.elicitations.length;
    if (outcome.timedOut) {
      this.timeoutsInARow++;
      if (this.timeoutsInARow >= CONSECUTIVE_TIMEOUT_LIMIT && !this.halt) {
        this.halt = `${this.timeoutsInARow} probe calls in a row got no answer within ${this.requestTimeout() < this.limits.timeoutMs ? 'the time left' : `--timeout ${this.limits.timeoutMs} ms`} (the last: ${tool})`;
      }
    } else this.timeoutsInARow = 0;
    await this.learnTokens();
    this.inspect(tool, outcome, kind, session);
    return outcome;
  }

  /** Tokens the sandbox issued to the server's keys are canaries from the moment they exist. */
  async learnTokens(): Promise<void> {
    const tokens = await issuedTokens(this.sandbox);
    this.scanner.add(tokens.map((value) => ({ name: 'B2 token', value })));
  }

  /** Record an observation; its detail is masked, whatever produced it. */
  record(observation: ProbeObservation): void {
    this.observations.push({ ...observation, detail: this.scanner.mask(observation.detail) });
  }

  incomplete(tool: string | undefined, what: string, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.record({
      aspect: 'run.incomplete',
      passed: false,
      ...(tool ? { tool } : {}),
      variant: what,
      detail: `${what}: ${message.split('\n')[0]!.slice(0, 300)}`,
    });
  }

  /** Search text for the canaries; one observation per place, canary and encoding. */
  scan(place: string, text: string, tool?: string): void {
    for (const leak of this.scanner.scan(text)) this.reportLeak(place, leak, tool);
  }

  /**
   * The one search over everything the server sent (results with their `_meta`, errors,
   * notifications, requests, instructions, tools/list), run once every token the sandbox issued
   * is known. Each part of a message is searched by its place, then all its strings run together,
   * for a secret split across neighbouring fields; then the messages of one call run together, for
   * one split across them (a log line and the result).
   */
  searchMessages(received: readonly ReceivedMessage[]): void {
    let call: { tool: string; messages: ReceivedMessage[]; found: Set<string> } | undefined;
    const endCall = () => {
      if (call && call.messages.length > 1) {
        const joined = call.messages.map(({ message }) => joinedStrings(message)).join('');
        for (const leak of this.scanner.scan(joined))
          if (!call.found.has(leak.canary)) this.reportLeak('messages of one call (split across messages)', leak, call.tool);
      }
      call = undefined;
    };
    for (const entry of received) {
      if (entry.tool !== call?.tool) endCall();
      if (entry.tool && !call) call = { tool: entry.tool, messages: [], found: new Set() };
      call?.messages.push(entry);
      for (const canary of this.searchMessage(entry)) call?.found.add(canary);
    }
    endCall();
  }

  /** One message, part by part and then its strings run together; the canaries it holds. */
  private searchMessage({ message, tool }: ReceivedMessage): Set<string> {
    const found = new Set<string>();
    const search = (place: string, text: string) => {
      for (const leak of this.scanner.scan(text)) {
        if (found.has(leak.canary) && place.endsWith('(split across fields)')) continue;
        found.add(leak.canary);
        this.reportLeak(place, leak, tool);
      }
    };
    const surfaces = messageSurfaces(message);
    for (const { place, text } of surfaces) search(place, text);
    for (const { place, value } of surfaces)
      if (value !== null && typeof value === 'object') search(`${place} (split across fields)`, joinedStrings(value));
    if (surfaces.length > 1) search('message (split across fields)', joinedStrings(message));
    return found;
  }

  private reportLeak(place: string, leak: Leak, tool: string | undefined): void {
    const key = [tool ?? '', place, leak.canary, leak.encoding].join('\u0000');
    if (this.leaks.has(key)) return;
    this.leaks.add(key);
    this.record({
      aspect: 'secret.leak',
      passed: false,
      ...(tool ? { tool } : {}),
      variant: `${place}: ${leak.canary} (${leak.encoding})`,
      detail: `the ${leak.canary} given to the server appeared ${leak.encoding === 'raw' ? 'verbatim' : `${leak.encoding}`} in ${tool ? `the ${place} of ${tool}` : `its ${place}`}`,
    });
  }

  /** Judge the text of every successful structured result, whatever the call was (read calls are judged by their own probe, with its expectation). */
  private inspect(tool: string, outcome: CallOutcome, kind: CallKind, session: ProbeSession): void {
    if (kind !== 'read' && outcome.result && !outcome.result.isError && outcome.result.structuredContent !== undefined) {
      const verdict = judgeFormat(outcome, session.spec.outputFormat, 'result');
      this.record({ ...verdict, tool, variant: `${session.spec.outputFormat ?? 'as configured'} (${kind} call)` });
    }
  }

  counts() {
    return { ...this.calls, elicitations: this.elicitations, leaks: this.leaks.size, canaries: this.scanner.canaryCount };
  }
}
