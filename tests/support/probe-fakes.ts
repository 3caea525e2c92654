import { ProbeRun, type RunLimits } from '../../src/conformance/probes/run-state.js';
import type { ProbeSandbox } from '../../src/conformance/probes/sandbox.js';
import type { Canary } from '../../src/conformance/probes/secrets.js';
import type { CallOutcome, ElicitAnswer, ProbeSession, SessionSpec } from '../../src/conformance/probes/sessions.js';

/**
 * In-process stand-ins for the probes' I/O: a sandbox whose admin API is a mutation log, a state
 * digest and issued tokens held in memory, and a session whose server is a function. The probe
 * code under test (steps, judgements, the run) is the real one.
 */
export class FakeSandbox {
  readonly mutations: { seq: number; operation: string }[] = [];
  readonly digest: Record<string, string> = {};
  readonly tokens: string[] = [];
  /** What `POST /describe` states about a digest name. */
  readonly facts: Record<string, Record<string, unknown>> = {};
  readonly canaries: Canary[];

  constructor(canaries: Canary[] = []) {
    this.canaries = canaries;
  }

  /** What a server call does to the sandbox: log operations, and/or change the state behind the log's back. */
  apply(effect: SandboxEffect = {}): void {
    for (const operation of effect.log ?? []) this.mutations.push({ seq: this.mutations.length + 1, operation });
    for (const [key, print] of Object.entries(effect.state ?? {})) {
      if (print === null) delete this.digest[key];
      else this.digest[key] = print;
    }
    this.tokens.push(...(effect.issue ?? []));
  }

  asProbeSandbox(): ProbeSandbox {
    const admin = async <T>(method: string, path: string, body?: Record<string, unknown>): Promise<T> => {
      const url = new URL(path, 'http://sandbox.invalid');
      if (method === 'POST' && url.pathname === '/describe')
        return {
          things: Object.fromEntries(
            (body!.names as string[]).filter((name) => name in this.facts).map((name) => [name, this.facts[name]]),
          ),
        } as T;
      if (method === 'GET' && url.pathname === '/mutations')
        return { mutations: this.mutations.filter((record) => record.seq > Number(url.searchParams.get('since'))) } as T;
      if (method === 'GET' && url.pathname === '/digest') return { digest: { ...this.digest } } as T;
      if (method === 'GET' && url.pathname === '/tokens') return { tokens: [...this.tokens] } as T;
      throw new Error(`the fake sandbox has no ${method} ${path}`);
    };
    return {
      kind: 'in-process',
      apiUrl: 'http://sandbox.invalid',
      accountId: 'acct',
      serverKey: { applicationKeyId: 'kid', applicationKey: 'secret' },
      canaries: this.canaries,
      admin,
      close: async () => {},
    } as ProbeSandbox;
  }
}

export interface SandboxEffect {
  log?: string[];
  /** Digest entries to set (`bucket:name` → print), or to remove (null). */
  state?: Record<string, string | null>;
  issue?: string[];
}

/** What the fake server does with one call: its answer, and what it does to the sandbox. */
export type FakeServer = (call: { tool: string; args: Record<string, unknown>; answer: ElicitAnswer; session: SessionSpec['name'] }) => {
  outcome: Omit<CallOutcome, 'elicitations'> & { elicitations?: string[] };
  effect?: SandboxEffect;
};

export interface FakeSession extends ProbeSession {
  readonly calls: { tool: string; args: Record<string, unknown>; answer: ElicitAnswer; timeoutMs?: number }[];
}

export function fakeSession(sandbox: FakeSandbox, server: FakeServer, spec: Partial<SessionSpec> = {}): FakeSession {
  let answer: ElicitAnswer = 'decline';
  const full: SessionSpec = {
    name: 'plain',
    policy: 'confirm',
    outputFormat: 'json',
    elicitation: false,
    identity: 'vscode',
    ...spec,
  } as SessionSpec;
  const calls: FakeSession['calls'] = [];
  return {
    spec: full,
    client: 'fake',
    tools: [],
    envNames: [],
    modern: true,
    sampling: false,
    instructions: null,
    calls,
    answer(next) {
      answer = next;
    },
    async relist() {
      return [];
    },
    async call(tool, args, timeoutMs) {
      calls.push({ tool, args, answer, timeoutMs });
      const { outcome, effect } = server({ tool, args, answer, session: full.name });
      sandbox.apply(effect);
      return { elicitations: [], ...outcome };
    },
    async close() {
      return { stderr: '', logFile: '', messages: [] };
    },
  };
}

/** A clock the test moves by hand. */
export function manualClock(start = 1_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

export function probeRun(
  sandbox: FakeSandbox,
  limits: Partial<RunLimits> = {},
  onProgress?: (done: number, total: number, label: string) => void,
): ProbeRun {
  const clock = manualClock();
  return new ProbeRun(
    sandbox.asProbeSandbox(),
    { timeoutMs: 5_000, deadline: clock.now() + 60_000, now: clock.now, budgetLabel: '60s', ...limits },
    onProgress,
  );
}

export const text = (value: string, isError = false) => ({
  result: { content: [{ type: 'text' as const, text: value }], ...(isError ? { isError: true } : {}) },
});
export const REFUSAL = text('B2 Error [destructive_confirmation_required] (HTTP 409): Confirmation required.', true);
