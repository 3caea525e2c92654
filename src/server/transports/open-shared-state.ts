import type { Logger } from '../logger.js';
import type { LimitSettings } from './limit-store.js';
import { inProcessState, type RedisSettings, type SharedState } from './shared-state.js';

export interface SharedStateOptions {
  limits: LimitSettings;
  redis?: RedisSettings | undefined;
  /** How long a legacy session may stay idle before it is closed. */
  sessionIdleMs: number;
  logger: Logger;
}

/** In-process state, or (with Redis settings) state shared through Redis; Redis's client is loaded only then. */
export async function openSharedState(options: SharedStateOptions): Promise<SharedState> {
  if (!options.redis) return inProcessState(options.limits);
  const { connectRedisState } = await import('./redis-state.js');
  return connectRedisState({ ...options, redis: options.redis });
}
