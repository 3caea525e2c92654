import type { B2NativeApi } from './b2/native-client.js';
import type { ServerConfig } from './config.js';
import type { Logger } from './logger.js';
import type { Sanitizer } from './policy/sanitize.js';
import type { S3Adapter } from './s3/adapter.js';
import type { SecretStore } from './secrets/store.js';

/**
 * What a tool handler may use; handlers never reach for process state directly. Backends are
 * typed by their own modules (`b2/`, `s3/`) and bound to the calling credential.
 */
export interface ToolContext {
  config: ServerConfig;
  logger: Logger;
  /** Aborted when the client cancels the call or the connection closes. */
  signal: AbortSignal;
  /** The credential's capabilities, or null for the full-surface override. */
  capabilities: ReadonlySet<string> | null;
  /** The native B2 client for this credential; throws `missing_credentials` when there is none. */
  b2(): B2NativeApi;
  /** The Partner (master) key's client, or the primary one when no distinct master key is set. */
  partner(): B2NativeApi;
  /** The S3 data-plane adapter for this credential, created on first use (loads the AWS SDK then). */
  s3(): Promise<S3Adapter>;
  /** The process's durable-secret sink (file ledger or inline); absent when the sink is off. */
  secrets?: SecretStore | undefined;
  /** A non-secret id of the calling credential; idempotency keys are scoped to it. */
  callerId?: string | undefined;
  /**
   * What no local file may carry to B2: the server's and the caller's key ids and keys, every
   * configured secret, and the secrets of keys and accounts this server created.
   */
  protectedValues(): readonly string[];
  /**
   * The request's sanitizer, for the one read that must look past what it returns (a ranged
   * read); everything else is sanitized by the registry, never by handlers.
   */
  redaction: Pick<Sanitizer, 'window' | 'scanMargin'>;
}
