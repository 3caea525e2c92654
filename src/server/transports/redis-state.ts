import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Credentials } from '../config.js';
import type { Logger } from '../logger.js';
import { credentialKey, credentialKeyUnder } from './http-credentials.js';
import type { InFlightRefusal } from './in-flight.js';
import { MemoryLimitStore, type LimitSettings, type LimitSlot, type LimitStore, type RateRefusal } from './limit-store.js';
import {
  SharedStateUnavailable,
  type RedisFailureMode,
  type RedisSettings,
  type SessionDirectory,
  type SessionHolder,
  type SharedState,
} from './shared-state.js';

/**
 * Limits and session ownership in Redis, shared by every instance that names the same server.
 * Each decision (admit: a slot and the address's token; count also: the credential's slot and
 * token) is one Lua script, so concurrent instances cannot both take the last token or slot.
 * Time is this process's clock passed into the scripts (not Redis `TIME`), so instances
 * must keep their clocks in step (NTP). A slot carries an expiry that its holder keeps pushing
 * forward while the request runs: slots of an instance that crashed free themselves.
 */

const PREFIX = 'b2-mcp:';
/** One hash slot for all in-flight keys, so a script may touch the global and a per-key set together (Redis Cluster). */
const IN_FLIGHT_ALL = `${PREFIX}{in-flight}:all`;
const DEFAULT_SLOT_TTL_MS = 30_000;
/** Commands give up after this long, so a hung Redis delays a request by at most this much. */
const COMMAND_TIMEOUT_MS = 1_000;
/** Session ids this server issues are UUIDs; anything else is not looked up. */
const SESSION_ID = /^[\x21-\x7e]{1,128}$/;

/** Keys hold digests: client addresses and credential fingerprints never reach Redis as such. */
const digest = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 32);
const inFlightKey = (key: string): string => `${PREFIX}{in-flight}:${digest(key)}`;
const bucketKey = (key: string): string => `${PREFIX}bucket:${digest(key)}`;
const sessionKey = (id: string): string => `${PREFIX}session:${id}`;
/** The HMAC key for credential fingerprints, created by the first instance and read by the others. */
const FINGERPRINT_KEY = `${PREFIX}credential-fingerprint-key`;

// Takes one token from the bucket at key `bucket` (refilled by `perMs` up to `burst` since it was last touched).
const TAKE_TOKEN = `
local function take(bucket, now, perMs, burst)
  local state = redis.call('HMGET', bucket, 'tokens', 'at')
  local tokens, at = tonumber(state[1]), tonumber(state[2])
  if tokens == nil or at == nil then tokens, at = burst, now end
  if now > at then tokens, at = math.min(burst, tokens + (now - at) * perMs), now end
  local taken = tokens >= 1
  if taken then tokens = tokens - 1 end
  redis.call('HSET', bucket, 'tokens', tostring(tokens), 'at', tostring(at))
  redis.call('PEXPIRE', bucket, math.ceil((burst - tokens) / perMs) + 1000)
  return taken
end`;

// KEYS[1] all slots, KEYS[2] the key's slots, KEYS[3] the key's bucket;
// ARGV now, slot ttl, max total, max per key, slot id, refill per ms, burst.
const ADMIT = `${TAKE_TOKEN}
local now, ttl = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 'global' end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 'key' end
if not take(KEYS[3], now, tonumber(ARGV[6]), tonumber(ARGV[7])) then return 'rate' end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[5])
redis.call('ZADD', KEYS[2], now + ttl, ARGV[5])
redis.call('PEXPIRE', KEYS[1], 2 * ttl)
redis.call('PEXPIRE', KEYS[2], 2 * ttl)
return 'ok'`;

// KEYS[1] the new key's set, KEYS[2] its bucket; ARGV now, slot ttl, max per key, slot id, refill per ms, burst.
// The slot stays counted under the keys it already has (the client address keeps counting it).
const COUNT_ALSO = `${TAKE_TOKEN}
local now, ttl = tonumber(ARGV[1]), tonumber(ARGV[2])
if not redis.call('ZSCORE', KEYS[1], ARGV[4]) then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 'key' end
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], 2 * ttl)
end
if not take(KEYS[2], now, tonumber(ARGV[5]), tonumber(ARGV[6])) then return 'rate' end
return 'ok'`;

// KEYS[1] session; ARGV instance id. Deletes the record only if this instance holds it.
const FORGET_SESSION = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

interface LimitCommands {
  admitSlot(
    all: string,
    set: string,
    bucket: string,
    now: number,
    ttlMs: number,
    maxTotal: number,
    maxPerKey: number,
    slot: string,
    perMs: number,
    burst: number,
  ): Promise<'ok' | InFlightRefusal | RateRefusal>;
  countSlotAlso(
    set: string,
    bucket: string,
    now: number,
    ttlMs: number,
    maxPerKey: number,
    slot: string,
    perMs: number,
    burst: number,
  ): Promise<'ok' | 'key' | RateRefusal>;
  forgetSession(session: string, instance: string): Promise<number>;
}

type LimitClient = Redis & LimitCommands;

/** What a Redis failure is logged as: a code or Redis's error word, never a message that could echo the URL. */
function failureReason(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown';
  const { code } = error as Error & { code?: unknown };
  if (typeof code === 'string' && /^[A-Z_]{2,32}$/.test(code)) return code;
  const word = /^([A-Z]{3,20})\b/.exec(error.message)?.[1];
  return word ?? error.name;
}

/** Logs the first failure of an outage and its end, not every failed request; tracks the writes nobody waits for. */
class Availability {
  #down = false;
  readonly #pending = new Set<Promise<void>>();

  constructor(
    private readonly logger: Logger,
    private readonly fields: Record<string, string>,
  ) {}

  failed(error: unknown): void {
    if (this.#down) return;
    this.#down = true;
    this.logger.warn('http.redis_unavailable', { ...this.fields, reason: failureReason(error) });
  }

  recovered(): void {
    if (!this.#down) return;
    this.#down = false;
    this.logger.info('http.redis_recovered', this.fields);
  }

  /** Lets a write run on without the request waiting for it; an unreachable Redis counts as an outage, never an error. */
  settle(command: Promise<unknown>): Promise<void> {
    const settled = command.then(
      () => this.recovered(),
      (error: unknown) => this.failed(error),
    );
    this.#pending.add(settled);
    void settled.finally(() => this.#pending.delete(settled));
    return settled;
  }

  /** Resolves once every write started so far has been answered (or has failed). */
  async settled(): Promise<void> {
    await Promise.all(this.#pending);
  }
}

export interface RedisStateOptions {
  limits: LimitSettings;
  redis: RedisSettings;
  sessionIdleMs: number;
  logger: Logger;
  /** Wall-clock ms, comparable across instances. */
  now?: () => number;
  /** How long a slot outlives its last refresh (its holder refreshes it every third of this). */
  slotTtlMs?: number;
}

class RedisLimitStore implements LimitStore {
  /** Slots this instance holds in Redis: slot id → the per-key sets it is counted in. */
  readonly #held = new Map<string, string[]>();
  readonly #fallback: MemoryLimitStore;
  readonly #instance = randomUUID();
  #counter = 0;

  constructor(
    private readonly client: LimitClient,
    private readonly availability: Availability,
    private readonly limits: LimitSettings,
    private readonly failure: RedisFailureMode,
    private readonly now: () => number,
    private readonly slotTtlMs: number,
  ) {
    this.#fallback = new MemoryLimitStore(limits);
  }

  get localInFlight(): number {
    return this.#held.size + this.#fallback.localInFlight;
  }

  sweep(): void {
    this.#fallback.sweep();
  }

  #succeeded<T>(value: T): T {
    this.availability.recovered();
    return value;
  }

  /** Fail-open: this instance's own limits decide. Fail-closed: the request is refused (503). */
  #unreachable<T>(error: unknown, local: () => Promise<T>): Promise<T> {
    this.availability.failed(error);
    if (this.failure === 'closed') throw new SharedStateUnavailable();
    return local();
  }

  get #refill(): [perMs: number, burst: number] {
    return [this.limits.rateLimit.perSecond / 1000, this.limits.rateLimit.burst];
  }

  async admit(key: string): Promise<LimitSlot | InFlightRefusal | RateRefusal> {
    const id = `${this.#instance}:${++this.#counter}`;
    const set = inFlightKey(key);
    const { maxInFlight, maxInFlightPerKey } = this.limits;
    let verdict: 'ok' | InFlightRefusal | RateRefusal;
    try {
      verdict = this.#succeeded(
        await this.client.admitSlot(
          IN_FLIGHT_ALL,
          set,
          bucketKey(key),
          Math.floor(this.now()),
          this.slotTtlMs,
          maxInFlight,
          maxInFlightPerKey,
          id,
          ...this.#refill,
        ),
      );
    } catch (error) {
      return this.#unreachable(error, () => this.#fallback.admit(key));
    }
    if (verdict !== 'ok') return verdict;
    this.#held.set(id, [set]);
    return this.#slot(id);
  }

  #slot(id: string): LimitSlot {
    /** A local slot taken for the new key when Redis could not be reached to move this one. */
    let local: LimitSlot | undefined;
    return {
      countAlso: async (next) => {
        const sets = this.#held.get(id);
        if (sets === undefined) return 'ok';
        const set = inFlightKey(next);
        let verdict: 'ok' | 'key' | RateRefusal;
        try {
          verdict = this.#succeeded(
            await this.client.countSlotAlso(
              set,
              bucketKey(next),
              Math.floor(this.now()),
              this.slotTtlMs,
              this.limits.maxInFlightPerKey,
              id,
              ...this.#refill,
            ),
          );
        } catch (error) {
          const fallback = await this.#unreachable(error, () => this.#fallback.admit(next));
          if (typeof fallback === 'string') return fallback === 'rate' ? 'rate' : 'key';
          local?.release();
          local = fallback;
          return 'ok';
        }
        if (verdict === 'key') return verdict;
        // Released while the script ran: take the new count back too.
        if (!this.#held.has(id)) this.#forget([set], id);
        else if (!sets.includes(set)) sets.push(set);
        return verdict;
      },
      release: () => {
        local?.release();
        local = undefined;
        const sets = this.#held.get(id);
        if (sets === undefined) return;
        this.#held.delete(id);
        this.#forget([IN_FLIGHT_ALL, ...sets], id);
      },
    };
  }

  #forget(sets: readonly string[], id: string): void {
    const pipeline = this.client.pipeline();
    for (const set of sets) pipeline.zrem(set, id);
    // Unreachable: the slot expires on its own once no longer refreshed.
    void this.availability.settle(pipeline.exec());
  }

  /** Pushes the expiry of every slot this instance holds forward (re-adding any a Redis restart lost). */
  async refresh(): Promise<void> {
    if (this.#held.size === 0) return;
    const until = Math.floor(this.now()) + this.slotTtlMs;
    const pipeline = this.client.pipeline();
    for (const [id, sets] of this.#held) {
      pipeline.zadd(IN_FLIGHT_ALL, until, id);
      for (const set of sets) pipeline.zadd(set, until, id).pexpire(set, 2 * this.slotTtlMs);
    }
    pipeline.pexpire(IN_FLIGHT_ALL, 2 * this.slotTtlMs);
    await this.availability.settle(pipeline.exec());
  }
}

class RedisSessionDirectory implements SessionDirectory {
  readonly #instance = randomUUID();

  constructor(
    private readonly client: LimitClient,
    private readonly availability: Availability,
    private readonly ttlMs: number,
  ) {}

  claim(id: string): void {
    if (SESSION_ID.test(id)) void this.availability.settle(this.client.set(sessionKey(id), this.#instance, 'PX', this.ttlMs));
  }

  forget(id: string): void {
    if (SESSION_ID.test(id)) void this.availability.settle(this.client.forgetSession(sessionKey(id), this.#instance));
  }

  async holder(id: string): Promise<SessionHolder> {
    if (!SESSION_ID.test(id)) return 'unknown';
    try {
      const holder = await this.client.get(sessionKey(id));
      this.availability.recovered();
      return holder === null ? 'unknown' : holder === this.#instance ? 'here' : 'elsewhere';
    } catch (error) {
      this.availability.failed(error);
      return 'unknown';
    }
  }
}

/** Where the log says Redis is: host and port only (the URL may carry a password). */
function redisTarget(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '6379'}`;
}

/**
 * Connects (waiting for the first connection or its failure, never longer) and returns the
 * shared state. An unreachable Redis is logged and retried in the background, never fatal.
 */
export async function connectRedisState(
  options: RedisStateOptions,
): Promise<SharedState & { limits: LimitStore & { refresh(): Promise<void> }; settled(): Promise<void> }> {
  const { redis, logger } = options;
  const availability = new Availability(logger, { redis: redisTarget(redis.url), failure: redis.failure });
  const client = new Redis(redis.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  }) as LimitClient;
  client.defineCommand('admitSlot', { numberOfKeys: 3, lua: ADMIT });
  client.defineCommand('countSlotAlso', { numberOfKeys: 2, lua: COUNT_ALSO });
  client.defineCommand('forgetSession', { numberOfKeys: 1, lua: FORGET_SESSION });
  client.on('error', (error: unknown) => availability.failed(error));
  client.on('ready', () => availability.recovered());
  await client.connect().catch((error: unknown) => availability.failed(error));

  // Until the shared fingerprint key is known (Redis unreachable since start), credentials are keyed per process.
  let fingerprintKey: Buffer | undefined;
  const loadFingerprintKey = async (): Promise<void> => {
    try {
      await client.set(FINGERPRINT_KEY, randomBytes(32).toString('hex'), 'NX');
      const stored = await client.get(FINGERPRINT_KEY);
      if (stored !== null && /^[0-9a-f]{64}$/.test(stored)) fingerprintKey = Buffer.from(stored, 'hex');
    } catch (error) {
      availability.failed(error);
    }
  };
  // A restarted (empty) Redis gets a new key, which every instance reads on reconnecting.
  client.on('ready', () => void loadFingerprintKey());
  if (client.status === 'ready') await loadFingerprintKey();
  const sharedCredentialKey = (credentials: Credentials): string =>
    fingerprintKey ? credentialKeyUnder(fingerprintKey, credentials) : credentialKey(credentials);

  const slotTtlMs = options.slotTtlMs ?? DEFAULT_SLOT_TTL_MS;
  const limits = new RedisLimitStore(client, availability, options.limits, redis.failure, options.now ?? (() => Date.now()), slotTtlMs);
  const refresher = setInterval(() => void limits.refresh(), Math.max(1, Math.floor(slotTtlMs / 3)));
  refresher.unref();
  return {
    limits,
    sessions: new RedisSessionDirectory(client, availability, options.sessionIdleMs),
    credentialKey: sharedCredentialKey,
    // Slot releases and session records written without waiting: answered, or failed into the outage log.
    settled: () => availability.settled(),
    close: async () => {
      clearInterval(refresher);
      await availability.settled();
      await client.quit().catch(() => client.disconnect());
    },
  };
}
