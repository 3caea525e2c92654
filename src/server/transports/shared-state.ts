import type { Credentials } from '../config.js';
import { credentialKey } from './http-credentials.js';
import { MemoryLimitStore, type LimitSettings, type LimitStore } from './limit-store.js';

export type SessionHolder = 'here' | 'elsewhere' | 'unknown';

/** Which instance holds each legacy (2025-era) session, so another can say so instead of "not found". */
export interface SessionDirectory {
  /** Records (or refreshes) this instance as the session's holder. */
  claim(id: string): void;
  forget(id: string): void;
  holder(id: string): Promise<SessionHolder>;
}

/** What happens while the shared store cannot be reached: this instance's own limits, or 503. */
export type RedisFailureMode = 'open' | 'closed';

export interface RedisSettings {
  url: string;
  failure: RedisFailureMode;
}

/** State that several instances of `b2-mcp http` share when Redis is configured. */
export interface SharedState {
  limits: LimitStore;
  sessions: SessionDirectory;
  /** The credential's stable, non-reversible limit key: the same on every instance sharing the state. */
  credentialKey(credentials: Credentials): string;
  close(): Promise<void>;
}

/** Thrown (fail-closed mode) while the shared store is unreachable; the transport answers 503. */
export class SharedStateUnavailable extends Error {
  constructor() {
    super('Shared rate-limit store unavailable');
    this.name = 'SharedStateUnavailable';
  }
}

const NO_DIRECTORY: SessionDirectory = {
  claim: () => undefined,
  forget: () => undefined,
  holder: async () => 'unknown',
};

/** Today's behaviour: limits on this process's clock, sessions known to this process only. */
export function inProcessState(limits: LimitSettings, now?: () => number): SharedState {
  return { limits: new MemoryLimitStore(limits, now), sessions: NO_DIRECTORY, credentialKey, close: async () => undefined };
}
