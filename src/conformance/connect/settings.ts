import type { ClientInfo } from './client-identities.js';

/**
 * How the checker talks to a server on every connection, the probes' and scenarios' sessions
 * included: built once per run (api.ts fills in the defaults) and handed down as it is.
 */
export interface ConnectionSettings {
  /** Per-request timeout in milliseconds; also the modern version probe's. */
  readonly timeoutMs: number;
  /** `--client-info`: names and versions presented instead of the default identities' own, in turn; empty for those. */
  readonly clientInfo: readonly ClientInfo[];
  /** Largest message (stdio line, HTTP body, SSE event), and largest whole tools/list or prompts/list answer, read from the server. */
  readonly maxMessageBytes: number;
}
