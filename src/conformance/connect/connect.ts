import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { Client as WitnessClient } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Transport as WitnessTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Era } from '../../contract/constants.js';
import type { CacheHint, ModernBlock } from '../../contract/fixture.js';
import { stable, type ListedTool } from '../../contract/normalize.js';
import { DeadlineError, eraRefusal, explainFailure, noEraAccepted, type Failure } from './diagnosis.js';
import { boundedFetch, type HttpTrace } from './http-reading.js';
import { toolVersions } from '../package-root.js';
import {
  declinedRequests,
  presentedIdentity,
  type ClientIdentity,
  type ClientInfo,
  type IdentityCapabilities,
  type ServerRequestMethod,
} from './client-identities.js';
import { CONNECTIONS, CONNECTION_SPECS, ERA_OF, LEGACY_PROTOCOL_VERSIONS, isJudged, type ConnectionId } from './connections.js';
import type { ListedPrompt } from '../snapshot/prompts.js';
import { ReadBudget, type BoundedPart } from './reading-limits.js';
import { dialectOutputValidator } from './schema-dialects.js';
import { launchServers, type ChildDiagnostics, type ChildStdioTransport, type LaunchedServers } from './stdio-transport.js';
import type { ConnectionSettings } from './settings.js';
import { redact, secretValuesOf, type Target } from './target.js';

/** Everything one connection saw, in the order the server sent it. */
export interface Observation {
  connection: ConnectionId;
  era: Era;
  /** The client package and version that made this connection. */
  client: { package: string; version: string };
  /** Who the connection presented as: the `clientInfo` and capabilities it sent. */
  identity: { clientInfo: ClientInfo; capabilities: IdentityCapabilities };
  /** The protocol version the connection offered. */
  offeredVersion: string;
  protocolVersion: string | null;
  serverInfo: { name: string; version: string } | null;
  /** The server's `instructions` (from `server/discover` in the modern era, from `initialize` in the 2025 era); null when none. */
  instructions: string | null;
  /** The capabilities the server declared (`initialize`, or `server/discover` in the modern era); null when none. */
  serverCapabilities: Record<string, unknown> | null;
  /** Modern only: the `server/discover` summary, shaped like a fixture's modern block. */
  discover: ModernBlock['discover'];
  /** Modern only: the cache hint on the `tools/list` result. */
  toolsListCacheHint: CacheHint | null;
  tools: ListedTool[];
  /**
   * The same tools as they came over the wire, every key kept: the SDK clients drop keys they do
   * not know (and the modern one `execution`), but another client may pass them to its model.
   */
  wireTools: ListedTool[];
  /** The prompts as listed, or null when the server does not advertise the prompts capability (it is then not asked). */
  prompts: ListedPrompt[] | null;
  timings: { connectMs: number; listToolsMs: number; listPromptsMs?: number };
  /** Tool parts that nested too deep to be read; each was replaced by a stand-in (schema/limits reports them). */
  bounded: BoundedPart[];
}

export interface ConnectOptions {
  connections: readonly ConnectionId[];
  settings: ConnectionSettings;
}

export type Observations = Partial<Record<ConnectionId, Observation>>;

/**
 * A connection whose protocol version the server did not accept: it refused the connection, or
 * answered with another version (the look is then kept, at that version). A server may speak only
 * some protocol versions; a judged connection refused is an era the server does not offer.
 */
export interface Refusal {
  connection: ConnectionId;
  offeredVersion: string;
  identity: ClientInfo;
  reason: string;
  /** The version the server chose instead, when it answered with one. */
  chosenVersion?: string;
}

export interface ObserveResult {
  observations: Observations;
  refused: Refusal[];
}

interface Session {
  connect(): Promise<void>;
  listTools(): Promise<{ tools: ListedTool[]; wireTools: ListedTool[]; cacheHint: CacheHint | null }>;
  /** Null without the prompts capability: prompts are opt-in, and a server without them is not asked. */
  listPrompts(): Promise<ListedPrompt[] | null>;
  describe(): Pick<Observation, 'protocolVersion' | 'serverInfo' | 'instructions' | 'serverCapabilities' | 'discover'>;
  close(): Promise<void>;
  /** Rejects when the server side breaks (exit, stdout garbage, a reading bound); never resolves. */
  broken: Promise<never>;
  /** What this connection reads the server within. */
  budget: ReadBudget;
  diagnostics?: ChildDiagnostics;
  /** HTTP only: the answers that were not MCP messages. */
  http?: HttpTrace;
}

/** The identity a connection presents, with `--client-info` applied (overrides go to the connections in their fixed order). */
function identityOf(connection: ConnectionId, overrides: readonly ClientInfo[] = []): ClientIdentity {
  const spec = CONNECTION_SPECS[connection];
  const identity = presentedIdentity(spec.identity, CONNECTIONS.indexOf(connection), overrides);
  return spec.capabilities ? { ...identity, capabilities: spec.capabilities } : identity;
}

/**
 * Connect every requested way in parallel, list the tools, and close again. For stdio, the
 * server processes may have been launched earlier (see launchServers) to overlap their start-up.
 * A compared-only connection that fails, and a judged one whose protocol version the server
 * does not offer, are reported as refused; a judged connection that fails otherwise fails the
 * run, and so does a run in which the server accepted no judged connection at all (naming each
 * one's own cause).
 */
export async function observe(
  target: Target,
  options: ConnectOptions,
  launched: LaunchedServers = launchServers(target, options.connections, options.settings.maxMessageBytes),
): Promise<ObserveResult> {
  const sessions = options.connections.map((connection) => {
    const identity = identityOf(connection, options.settings.clientInfo);
    return { connection, identity, session: openSession(connection, identity, target, options.settings, launched[connection]) };
  });
  const failures: Failure[] = [];
  const refused: Refusal[] = [];
  let closing: Promise<unknown> | undefined;
  const closeAll = () => (closing ??= Promise.allSettled(sessions.map(({ session }) => session.close())));
  const settled = await Promise.allSettled(
    sessions.map(({ connection, identity, session }) =>
      observeOne(connection, identity, session, options.settings.timeoutMs).catch((error: unknown) => {
        const notOffered = isJudged(connection) ? eraRefusal(connection, error, session.diagnostics, target) : undefined;
        if (!isJudged(connection) || notOffered) {
          // Once the run is failing anyway, the others' errors are only the closing.
          if (!closing)
            refused.push({
              connection,
              offeredVersion: CONNECTION_SPECS[connection].protocolVersion,
              identity: identity.clientInfo,
              reason: notOffered ?? refusalReason(error, session.diagnostics, target),
            });
          void session.close();
          throw error;
        }
        failures.push({ connection, error, diagnostics: session.diagnostics, budget: session.budget, http: session.http });
        void closeAll(); // one broken look is enough: stop the others instead of waiting them out
        throw error;
      }),
    ),
  );
  await closeAll();
  if (failures.length > 0) {
    // Prefer a failure the server itself explains (a broken bound, exit, bad stdout, spawn error, an HTTP answer that is no MCP message).
    const explained =
      failures.find(({ budget }) => budget.exceeded) ??
      failures.find(
        ({ diagnostics }) => diagnostics && (diagnostics.exit || diagnostics.spawnError || diagnostics.badStdoutLine !== undefined),
      ) ??
      failures.find(({ http }) => http && http.odd.length > 0);
    throw explainFailure(explained ?? failures[0]!, target, options.settings.timeoutMs);
  }
  const observations: Observations = {};
  for (const result of settled) {
    if (result.status === 'fulfilled') observations[result.value.connection] = result.value;
  }
  const judged = options.connections.filter(isJudged);
  if (judged.length > 0 && !judged.some((connection) => observations[connection]))
    throw noEraAccepted(refused.filter((refusal) => isJudged(refusal.connection)));
  for (const observation of Object.values(observations)) {
    if (observation!.protocolVersion !== null && observation!.protocolVersion !== observation!.offeredVersion) {
      const { connection, offeredVersion, protocolVersion, identity } = observation!;
      refused.push({
        connection,
        offeredVersion,
        identity: identity.clientInfo,
        reason: `it answered with MCP ${protocolVersion}`,
        chosenVersion: protocolVersion!,
      });
    }
  }
  refused.sort((a, b) => CONNECTIONS.indexOf(a.connection) - CONNECTIONS.indexOf(b.connection));
  return { observations, refused };
}

/** Why a server turned a connection down, in one clean line. */
function refusalReason(error: unknown, diagnostics: ChildDiagnostics | undefined, target: Target): string {
  if (diagnostics?.exit)
    return `the server exited ${diagnostics.exit.signal ? `on ${diagnostics.exit.signal}` : `with code ${diagnostics.exit.code}`}`;
  const message = redact(error instanceof Error ? error.message : String(error), secretValuesOf(target))
    .replace(/\s+/g, ' ')
    .trim();
  return message.slice(0, 200) || 'no answer';
}

async function observeOne(connection: ConnectionId, identity: ClientIdentity, session: Session, timeoutMs: number): Promise<Observation> {
  const guard = deadline(2 * timeoutMs + 1000);
  try {
    const started = performance.now();
    await Promise.race([session.connect(), session.broken, guard.expired]);
    const connected = performance.now();
    session.budget.beginListing('tools/list');
    const listed = await Promise.race([session.listTools(), session.broken, guard.expired]);
    const done = performance.now();
    session.budget.beginListing('prompts/list');
    const prompts = await Promise.race([session.listPrompts(), session.broken, guard.expired]);
    session.budget.endListing();
    const timings = { connectMs: round(connected - started), listToolsMs: round(done - connected) };
    return {
      connection,
      era: ERA_OF[connection],
      client: clientOf(connection),
      identity: { clientInfo: { ...identity.clientInfo }, capabilities: stable(identity.capabilities) as IdentityCapabilities },
      offeredVersion: CONNECTION_SPECS[connection].protocolVersion,
      ...session.describe(),
      toolsListCacheHint: listed.cacheHint,
      tools: listed.tools,
      wireTools: listed.wireTools,
      prompts,
      timings: prompts ? { ...timings, listPromptsMs: round(performance.now() - done) } : timings,
      bounded: session.budget.bounded,
    };
  } finally {
    guard.cancel();
  }
}

function clientOf(connection: ConnectionId): { package: string; version: string } {
  const name = CONNECTION_SPECS[connection].sdk === '1.x' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/client';
  return { package: name, version: toolVersions()[name] ?? 'unknown' };
}

/** The request headers of an HTTP connection: the user's --header values, then the identity's User-Agent. */
function httpHeaders(target: Extract<Target, { kind: 'http' }>, identity: ClientIdentity): Record<string, string> {
  const headers = Object.fromEntries(Object.entries(target.headers).filter(([name]) => name.toLowerCase() !== 'user-agent'));
  const userAgent = Object.entries(target.headers).find(([name]) => name.toLowerCase() === 'user-agent')?.[1] ?? identity.userAgent;
  return { ...headers, 'user-agent': userAgent };
}

function openSession(
  connection: ConnectionId,
  identity: ClientIdentity,
  target: Target,
  settings: ConnectionSettings,
  stdio: ChildStdioTransport | undefined,
): Session {
  if (target.kind === 'stdio' && !stdio) throw new Error(`no server process launched for the ${connection} connection`);
  // A pre-launched child reads within its own budget; an HTTP connection gets one here.
  const budget = stdio?.budget ?? new ReadBudget(settings.maxMessageBytes);
  return CONNECTION_SPECS[connection].sdk === '1.x'
    ? witnessSession(identity, target, settings.timeoutMs, stdio, budget)
    : currentSdkSession(connection, identity, target, settings.timeoutMs, stdio, budget);
}

/** How a session learns that its server side broke: the child's own failures (which include a broken bound), or the budget's. */
function brokenOf(
  stdio: ChildStdioTransport | undefined,
  budget: ReadBudget,
  http: HttpTrace,
): Pick<Session, 'broken' | 'budget' | 'diagnostics' | 'http'> {
  return { broken: stdio?.broken ?? budget.broken, budget, ...(stdio ? { diagnostics: stdio.diagnostics } : { http }) };
}

/** Answer what the identity's capabilities invite the server to ask, as a user who shares nothing and declines. */
function answerServerRequests(
  identity: ClientIdentity,
  register: (method: ServerRequestMethod, answer: () => Record<string, unknown>) => void,
): void {
  for (const { method, answer } of declinedRequests(identity)) register(method, answer);
}

function currentSdkSession(
  connection: ConnectionId,
  identity: ClientIdentity,
  target: Target,
  timeoutMs: number,
  stdio: ChildStdioTransport | undefined,
  budget: ReadBudget,
): Session {
  const http: HttpTrace = { odd: [] };
  const spec = CONNECTION_SPECS[connection];
  const client = new Client(
    { ...identity.clientInfo },
    {
      capabilities: structuredClone(identity.capabilities),
      versionNegotiation: spec.era === 'modern' ? { mode: { pin: spec.protocolVersion }, probe: { timeoutMs } } : { mode: 'legacy' },
      // Offered first, then every other released 2025-era version the server may choose instead.
      ...(spec.era === 'legacy'
        ? {
            supportedProtocolVersions: [
              spec.protocolVersion,
              ...LEGACY_PROTOCOL_VERSIONS.filter((version) => version !== spec.protocolVersion),
            ],
          }
        : {}),
    },
  );
  answerServerRequests(identity, (method, answer) => client.setRequestHandler(method, async () => answer() as never));
  const tap = new WireTap();
  const transport: Transport = tap.tapped(
    target.kind === 'stdio'
      ? stdio!
      : new StreamableHTTPClientTransport(target.url, {
          fetch: boundedFetch(budget, http),
          requestInit: { headers: httpHeaders(target, identity) },
        }),
  );
  return {
    connect: () => client.connect(transport, { timeout: timeoutMs }),
    async listTools() {
      // A server without the tools capability has no tools (and the client would log to stdout).
      if (!client.getServerCapabilities()?.tools) return { tools: [], wireTools: [], cacheHint: null };
      tap.toolPages = [];
      const result = await tap.orWire(client.listTools(undefined, { cacheMode: 'bypass', timeout: timeoutMs }));
      const hinted = result as { ttlMs?: unknown; cacheScope?: unknown };
      const cacheHint =
        typeof hinted.ttlMs === 'number' && typeof hinted.cacheScope === 'string'
          ? { ttlMs: hinted.ttlMs, cacheScope: hinted.cacheScope }
          : null;
      const tools = tap.withDropped(result.tools as ListedTool[]);
      return { tools, wireTools: tap.wireTools(tools), cacheHint };
    },
    async listPrompts() {
      // Modern: the server/discover capabilities; legacy: the initialize result's.
      if (!client.getServerCapabilities()?.prompts) return null;
      const result = await client.listPrompts(undefined, { cacheMode: 'bypass', timeout: timeoutMs });
      return result.prompts as ListedPrompt[];
    },
    describe() {
      const info = client.getServerVersion();
      const discover = client.getDiscoverResult();
      return {
        protocolVersion: client.getNegotiatedProtocolVersion() ?? null,
        serverInfo: info ? { name: info.name, version: info.version } : null,
        instructions: instructionsOf(client.getInstructions()),
        serverCapabilities: capabilitiesOf(client.getServerCapabilities()),
        discover: discover
          ? {
              supportedVersions: [...discover.supportedVersions],
              capabilities: stable(discover.capabilities),
              ttlMs: typeof discover.ttlMs === 'number' ? discover.ttlMs : null,
              cacheScope: typeof discover.cacheScope === 'string' ? discover.cacheScope : null,
            }
          : null,
      };
    },
    close: () => client.close().catch(() => {}),
    ...brokenOf(stdio, budget, http),
  };
}

/** The 1.x HTTP transport, loaded only when a URL is checked. */
async function witnessHttpTransport(
  target: Extract<Target, { kind: 'http' }>,
  identity: ClientIdentity,
  budget: ReadBudget,
  http: HttpTrace,
): Promise<WitnessTransport> {
  const { StreamableHTTPClientTransport: WitnessHttpTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  return new WitnessHttpTransport(target.url, {
    fetch: boundedFetch(budget, http),
    requestInit: { headers: httpHeaders(target, identity) },
  });
}

const WITNESS_REQUEST_SCHEMAS = {
  'roots/list': ListRootsRequestSchema,
  'elicitation/create': ElicitRequestSchema,
  'sampling/createMessage': CreateMessageRequestSchema,
} as const;

/**
 * The 1.x SDK client: an independent second reading of the 2025 era. Over HTTP it uses the 1.x
 * transport; over stdio it gets a pre-launched child (newline-delimited JSON framing is the same).
 */
function witnessSession(
  identity: ClientIdentity,
  target: Target,
  timeoutMs: number,
  stdio: ChildStdioTransport | undefined,
  budget: ReadBudget,
): Session {
  const http: HttpTrace = { odd: [] };
  // The 1.x client compiles every output schema as it lists tools: each in its own dialect, and one it cannot compile fails nothing (the schema rules report it).
  const client = new WitnessClient(
    { ...identity.clientInfo },
    { capabilities: structuredClone(identity.capabilities), jsonSchemaValidator: dialectOutputValidator() },
  );
  answerServerRequests(identity, (method, answer) =>
    client.setRequestHandler(WITNESS_REQUEST_SCHEMAS[method], async () => answer() as never),
  );
  const tap = new WireTap();
  return {
    async connect() {
      const base =
        target.kind === 'stdio' ? (stdio as unknown as WitnessTransport) : await witnessHttpTransport(target, identity, budget, http);
      await client.connect(tap.tapped(base), { timeout: timeoutMs });
    },
    async listTools() {
      const tools: ListedTool[] = [];
      if (!client.getServerCapabilities()?.tools) return { tools, wireTools: [], cacheHint: null };
      tap.toolPages = [];
      const cursors = new Set<string>();
      let cursor: string | undefined;
      do {
        const page = await tap.orWire(client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs }));
        for (const tool of page.tools as ListedTool[]) tools.push(tool);
        cursor = page.nextCursor;
        if (cursor !== undefined && cursors.has(cursor)) break; // a server that pages in a circle
        if (cursor !== undefined) cursors.add(cursor);
      } while (cursor);
      return { tools, wireTools: tap.wireTools(tools), cacheHint: null };
    },
    async listPrompts() {
      if (!client.getServerCapabilities()?.prompts) return null;
      const prompts: ListedPrompt[] = [];
      const cursors = new Set<string>();
      let cursor: string | undefined;
      do {
        const page = await client.listPrompts(cursor ? { cursor } : undefined, { timeout: timeoutMs });
        for (const prompt of page.prompts as ListedPrompt[]) prompts.push(prompt);
        cursor = page.nextCursor;
        if (cursor !== undefined && cursors.has(cursor)) break;
        if (cursor !== undefined) cursors.add(cursor);
      } while (cursor);
      return prompts;
    },
    describe() {
      const info = client.getServerVersion();
      return {
        protocolVersion: tap.protocolVersion,
        serverInfo: info ? { name: info.name, version: info.version } : null,
        instructions: instructionsOf(client.getInstructions()),
        serverCapabilities: capabilitiesOf(client.getServerCapabilities()),
        discover: null,
      };
    },
    close: () => client.close().catch(() => {}),
    ...brokenOf(stdio, budget, http),
  };
}

function instructionsOf(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function capabilitiesOf(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (stable(value) as Record<string, unknown>) : null;
}

/**
 * Reads the server's results off a transport before the SDK client parses (and trims) them: the
 * tools as sent, and the negotiated version (the 1.x client keeps it to itself).
 */
class WireTap {
  /** The `tools` arrays of the results since the last reset, page by page. */
  toolPages: unknown[][] = [];
  protocolVersion: string | null = null;
  /** The last tools/list result as sent. */
  private lastToolsResult: Record<string, unknown> | undefined;

  /**
   * A tools/list page as the client parsed it, or, when the client rejected the answer (its own
   * result validation: a tool it does not accept), the answer as it came over the wire, so that
   * what the client refuses is judged (protocol/tool-accepted) instead of failing the connection.
   */
  async orWire<T>(listing: Promise<T>): Promise<T> {
    this.lastToolsResult = undefined;
    try {
      return await listing;
    } catch (error) {
      const wire = this.lastToolsResult as Record<string, unknown> | undefined; // set by the answer while the listing ran
      const readable = wire && (wire.tools as unknown[]).every((tool) => typeof (tool as { name?: unknown } | null)?.name === 'string');
      if (!readable) throw error;
      return { ...wire, nextCursor: typeof wire.nextCursor === 'string' ? wire.nextCursor : undefined } as T;
    }
  }

  tapped<T extends { onmessage?: ((message: never) => void) | undefined }>(transport: T): T {
    return new Proxy(transport, {
      set: (target, property, value) => {
        if (property === 'onmessage' && typeof value === 'function') {
          (target as Record<string, unknown>).onmessage = (
            message: { result?: { protocolVersion?: unknown; tools?: unknown } },
            ...rest: unknown[]
          ) => {
            this.record(message?.result);
            return (value as (...args: unknown[]) => unknown)(message, ...rest);
          };
          return true;
        }
        return Reflect.set(target, property, value);
      },
    });
  }

  private record(result: { protocolVersion?: unknown; tools?: unknown } | undefined): void {
    if (typeof result?.protocolVersion === 'string') this.protocolVersion = result.protocolVersion;
    if (Array.isArray(result?.tools)) {
      this.toolPages.push(result.tools);
      this.lastToolsResult = result as Record<string, unknown>;
    }
  }

  /**
   * The tools the client parsed, with any it dropped after parsing put back from the wire in their
   * place. Over HTTP the 2.x client drops a modern-era tool whose `x-mcp-header` declaration is
   * invalid; judged without it, a fork could hide a tool from the checker that other clients list.
   */
  withDropped(parsed: readonly ListedTool[]): ListedTool[] {
    const wire = this.toolPages.flat();
    if (wire.length <= parsed.length || !wire.every((tool) => typeof (tool as { name?: unknown } | null)?.name === 'string'))
      return [...parsed];
    const restored: ListedTool[] = [];
    let next = 0;
    for (const tool of wire as ListedTool[]) restored.push(tool.name === parsed[next]?.name ? parsed[next++]! : tool);
    // Only a pure removal is put back; any other difference leaves the client's reading as it is.
    return next === parsed.length ? restored : [...parsed];
  }

  /** The wire form of the tools the client parsed: the same tools in the same order, every key kept. */
  wireTools(parsed: readonly ListedTool[]): ListedTool[] {
    const wire = this.toolPages.flat();
    const sameTools =
      wire.length === parsed.length && wire.every((tool, index) => (tool as { name?: unknown } | null)?.name === parsed[index]!.name);
    return sameTools ? (wire as ListedTool[]) : [...parsed];
  }
}

function deadline(ms: number): { expired: Promise<never>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError('deadline')), ms);
  });
  expired.catch(() => {});
  return { expired, cancel: () => clearTimeout(timer) };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
