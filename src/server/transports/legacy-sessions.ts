import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport, type McpServerFactory } from '@modelcontextprotocol/server';
import type { SessionDirectory } from './shared-state.js';

/**
 * Session-keeping serving for 2025-era clients over HTTP. The stateless legacy leg cannot push
 * `elicitation/create` to the client, so a client that opens with `initialize` gets a session
 * whose server instance can ask for destructive-action confirmation mid-call.
 *
 * Sessions are bounded (globally and per owner: the credential, or the client address when the
 * server uses its own key), and idle sessions are closed by {@link LegacySessions.sweep}. When a
 * bound is reached, eviction stays with the client that holds too much: the requesting client's
 * own least recently used idle session goes first; failing that, one of the client holding the
 * most sessions, and only while it holds at least two more than the requester. A client is the
 * owner plus its declared `clientInfo.name`, so all local clients sharing 127.0.0.1 in server
 * credential mode keep their sessions when one of them opens many.
 */

interface Session {
  owner: string;
  /** Owner plus declared client name: whose sessions eviction weighs against each other. */
  client: string;
  /** Assigned once `initialize` succeeds. */
  id?: string;
  transport?: WebStandardStreamableHTTPServerTransport;
  close?: () => Promise<void>;
  /** Requests of this session still being answered (an elicitation keeps one open). */
  active: number;
  lastUsed: number;
}

/** A session borrowed for one HTTP request; release it when the response is finished. */
export interface LegacyLease {
  fetch(request: Request): Promise<Response>;
  release(): void;
}

export type LegacyRefusal = 'not_found' | 'global' | 'key';

export class LegacySessions {
  readonly #all = new Set<Session>();
  readonly #byId = new Map<string, Session>();

  constructor(
    private readonly maxTotal: number,
    private readonly maxPerOwner: number,
    private readonly idleMs: number,
    private readonly now: () => number = () => performance.now(),
    /** Told which sessions this instance holds, so other instances can say so. */
    private readonly directory?: Pick<SessionDirectory, 'claim' | 'forget'>,
  ) {}

  /** Open sessions (including one being initialized). */
  get size(): number {
    return this.#all.size;
  }

  /** Borrows the owner's session `id`; a session of another owner is reported as not found. */
  resume(owner: string, id: string): LegacyLease | 'not_found' {
    const session = this.#byId.get(id);
    if (!session || session.owner !== owner) return 'not_found';
    this.directory?.claim(id);
    return this.#lease(session);
  }

  /** Reserves room for a new session, built from `factory` by the lease's first (initialize) request. */
  open(owner: string, factory: McpServerFactory, clientName = ''): LegacyLease | Exclude<LegacyRefusal, 'not_found'> {
    const client = `${owner}\0${clientName}`;
    if (this.#all.size >= this.maxTotal && !this.#evictFor(client, [...this.#all])) return 'global';
    const owned = [...this.#all].filter((s) => s.owner === owner);
    if (owned.length >= this.maxPerOwner && !this.#evictFor(client, owned)) return 'key';
    const session: Session = { owner, client, active: 0, lastUsed: this.now() };
    this.#all.add(session);
    const lease = this.#lease(session);
    return {
      fetch: async (request) => {
        await this.#connect(session, factory);
        return lease.fetch(request);
      },
      release: lease.release,
    };
  }

  async #connect(session: Session, factory: McpServerFactory): Promise<void> {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        session.id = id;
        this.#byId.set(id, session);
        this.directory?.claim(id);
      },
      onsessionclosed: () => this.#forget(session),
    });
    const server = await factory({ era: 'legacy' });
    await server.connect(transport);
    session.transport = transport;
    session.close = () => server.close();
  }

  #lease(session: Session): LegacyLease {
    session.active += 1;
    session.lastUsed = this.now();
    let released = false;
    return {
      fetch: (request) => {
        if (!session.transport) return Promise.reject(new Error('legacy session is closed'));
        return session.transport.handleRequest(request);
      },
      release: () => {
        if (released) return;
        released = true;
        session.active -= 1;
        session.lastUsed = this.now();
        // An initialize that failed leaves nothing worth keeping.
        if (session.id === undefined && session.active === 0) void this.#close(session);
      },
    };
  }

  /**
   * Makes room among `scope` for `client`: closes its own least recently used idle session, or
   * else one of the biggest holder's while that holds at least two more; false if neither exists.
   */
  #evictFor(client: string, scope: readonly Session[]): boolean {
    const counts = new Map<string, number>();
    for (const session of scope) counts.set(session.client, (counts.get(session.client) ?? 0) + 1);
    const mine = counts.get(client) ?? 0;
    const holders = [...counts].filter(([holder, count]) => holder === client || count >= mine + 2);
    // Own sessions first, then the biggest holders.
    holders.sort(([a, countA], [b, countB]) => Number(b === client) - Number(a === client) || countB - countA);
    for (const [holder] of holders) {
      const oldest = this.#oldestIdle(scope, holder);
      if (oldest) {
        void this.#close(oldest);
        return true;
      }
    }
    return false;
  }

  #oldestIdle(scope: readonly Session[], client: string): Session | undefined {
    let oldest: Session | undefined;
    for (const session of scope) {
      if (session.active === 0 && session.client === client && (!oldest || session.lastUsed < oldest.lastUsed)) oldest = session;
    }
    return oldest;
  }

  #forget(session: Session): void {
    this.#all.delete(session);
    if (session.id === undefined || this.#byId.get(session.id) !== session) return;
    this.#byId.delete(session.id);
    this.directory?.forget(session.id);
  }

  async #close(session: Session): Promise<void> {
    this.#forget(session);
    await session.close?.().catch(() => undefined);
  }

  /** Closes sessions idle for longer than the idle limit. */
  sweep(): void {
    const cutoff = this.now() - this.idleMs;
    for (const session of this.#all) {
      if (session.active === 0 && session.lastUsed <= cutoff) void this.#close(session);
    }
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#all].map((session) => this.#close(session)));
  }
}
