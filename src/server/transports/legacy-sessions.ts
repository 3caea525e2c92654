import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport, type McpServerFactory } from '@modelcontextprotocol/server';

/**
 * Session-keeping serving for 2025-era clients over HTTP. The stateless legacy leg cannot push
 * `elicitation/create` to the client, so a client that opens with `initialize` gets a session
 * whose server instance can ask for destructive-action confirmation mid-call.
 *
 * Sessions are bounded (globally and per owner: the credential, or the client address when the
 * server uses its own key); when full, the least recently used idle session is closed to make
 * room, and idle sessions are closed by {@link LegacySessions.sweep}.
 */

interface Session {
  owner: string;
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
  ) {}

  /** Open sessions (including one being initialized). */
  get size(): number {
    return this.#all.size;
  }

  /** Borrows the owner's session `id`; a session of another owner is reported as not found. */
  resume(owner: string, id: string): LegacyLease | 'not_found' {
    const session = this.#byId.get(id);
    if (!session || session.owner !== owner) return 'not_found';
    return this.#lease(session);
  }

  /** Reserves room for a new session, built from `factory` by the lease's first (initialize) request. */
  open(owner: string, factory: McpServerFactory): LegacyLease | Exclude<LegacyRefusal, 'not_found'> {
    if (this.#all.size >= this.maxTotal && !this.#evictIdle(() => true)) return 'global';
    const owned = (s: Session): boolean => s.owner === owner;
    if ([...this.#all].filter(owned).length >= this.maxPerOwner && !this.#evictIdle(owned)) return 'key';
    const session: Session = { owner, active: 0, lastUsed: this.now() };
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

  /** Closes the least recently used idle session that `eligible` accepts; false if there is none. */
  #evictIdle(eligible: (session: Session) => boolean): boolean {
    let oldest: Session | undefined;
    for (const session of this.#all) {
      if (session.active === 0 && eligible(session) && (!oldest || session.lastUsed < oldest.lastUsed)) oldest = session;
    }
    if (!oldest) return false;
    void this.#close(oldest);
    return true;
  }

  #forget(session: Session): void {
    this.#all.delete(session);
    if (session.id !== undefined) this.#byId.delete(session.id);
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
