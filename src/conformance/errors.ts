/** Why a run stopped before (or instead of) producing a verdict; each maps to one exit code. */
export type FailureCode = 'usage' | 'config' | 'connect' | 'protocol' | 'timeout' | 'server-exited' | 'nothing-tested';

export const EXIT = {
  ok: 0,
  findings: 1,
  usage: 2,
  connect: 3,
  nothingTested: 4,
} as const;

const EXIT_BY_CODE: Record<FailureCode, number> = {
  usage: EXIT.usage,
  config: EXIT.usage,
  connect: EXIT.connect,
  protocol: EXIT.connect,
  timeout: EXIT.connect,
  'server-exited': EXIT.connect,
  'nothing-tested': EXIT.nothingTested,
};

/** An expected failure with a one-line, user-facing message (never a stack trace). */
export class ConformError extends Error {
  readonly code: FailureCode;
  readonly exitCode: number;

  constructor(code: FailureCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConformError';
    this.code = code;
    this.exitCode = EXIT_BY_CODE[code];
  }
}
