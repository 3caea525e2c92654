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
 * bound is reached, eviction weighs only what a client cannot choose for itself: at the owner's
 * bound, the owner's own least recently used idle session goes; at the global bound, one of the
 * requester's client address, else one of the address holding the most sessions, and only while
 * it holds at least two more than the requester's. A declared `clientInfo.name` plays no part (a
 * client could declare a new one per session), and neither does a credential at the global bound
 * (in `headers` mode a client can make up as many as it likes).
 */

interface Session {
  owner: string;
  /** The client address it was opened from: whose sessions eviction weighs against each other at the global bound. */
  address: string;
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
  open(owner: string, address: string, factory: McpServerFactory): LegacyLease | Exclude<LegacyRefusal, 'not_found'> {
    if (this.#all.size >= this.maxTotal && !this.#evictForAddress(address)) return 'global';
    const owned = [...this.#all].filter((s) => s.owner === owner);
    if (owned.length >= this.maxPerOwner && !this.#closeOldestIdle(owned)) return 'key';
    const session: Session = { owner, address, active: 0, lastUsed: this.now() };
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
   * Makes room for a session from `address`: closes that address's least recently used idle
   * session, or else one of the biggest holder's while that holds at least two more; false if
   * neither exists.
   */
  #evictForAddress(address: string): boolean {
    const byAddress = new Map<string, Session[]>();
    for (const session of this.#all) byAddress.set(session.address, [...(byAddress.get(session.address) ?? []), session]);
    const mine = byAddress.get(address)?.length ?? 0;
    const holders = [...byAddress].filter(([holder, held]) => holder === address || held.length >= mine + 2);
    // The requester's own address first, then the biggest holders.
    holders.sort(([a, heldA], [b, heldB]) => Number(b === address) - Number(a === address) || heldB.length - heldA.length);
    return holders.some(([, held]) => this.#closeOldestIdle(held));
  }

  /** Closes the least recently used idle session among `scope`; false if all are busy. */
  #closeOldestIdle(scope: readonly Session[]): boolean {
    let oldest: Session | undefined;
    for (const session of scope) {
      if (session.active === 0 && (!oldest || session.lastUsed < oldest.lastUsed)) oldest = session;
    }
    if (oldest) void this.#close(oldest);
    return oldest !== undefined;
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
