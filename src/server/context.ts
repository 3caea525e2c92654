import type { Logger } from './logger.js';
import type { ServerConfig } from './config.js';

/** What a tool handler may use; handlers never reach for process state directly. */
export interface ToolContext {
  config: ServerConfig;
  logger: Logger;
  /** Aborted when the client cancels the call or the connection closes. */
  signal: AbortSignal;
}
