import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { Client as WitnessClient } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Transport as WitnessTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CacheHint, ModernBlock } from '../../contract/fixture.js';
import { stable, type ListedTool } from '../../contract/normalize.js';
import { boundedFetch, type HttpTrace } from './http-reading.js';
import { declinedRequests, type ClientIdentity, type ServerRequestMethod } from './client-identities.js';
import { CONNECTION_SPECS, LEGACY_PROTOCOL_VERSIONS, type ConnectionId } from './connections.js';
import type { ListedPrompt } from '../snapshot/prompts.js';
import { ReadBudget } from './reading-limits.js';
import { dialectOutputValidator } from './schema-dialects.js';
import type { ChildDiagnostics, ChildStdioTransport } from './stdio-transport.js';
import type { ConnectionSettings } from './settings.js';
import type { Target } from './target.js';

/** What a server says about itself when a connection opens. */
export interface ServerDescription {
  protocolVersion: string | null;
  serverInfo: { name: string; version: string } | null;
  /** The server's `instructions` (from `server/discover` in the modern era, from `initialize` in the 2025 era); null when none. */
  instructions: string | null;
  /** The capabilities the server declared (`initialize`, or `server/discover` in the modern era); null when none. */
  serverCapabilities: Record<string, unknown> | null;
  /** Modern only: the `server/discover` summary, shaped like a fixture's modern block. */
  discover: ModernBlock['discover'];
}

/** One SDK client's connection to the server: connect, list, describe, close. */
export interface Session {
  connect(): Promise<void>;
  listTools(): Promise<{ tools: ListedTool[]; wireTools: ListedTool[]; cacheHint: CacheHint | null }>;
  /** Null without the prompts capability: prompts are opt-in, and a server without them is not asked. */
  listPrompts(): Promise<ListedPrompt[] | null>;
  describe(): ServerDescription;
  close(): Promise<void>;
  /** Rejects when the server side breaks (exit, stdout garbage, a reading bound); never resolves. */
  broken: Promise<never>;
  /** What this connection reads the server within. */
  budget: ReadBudget;
  diagnostics?: ChildDiagnostics;
  /** HTTP only: the answers that were not MCP messages. */
  http?: HttpTrace;
}

/** The request headers of an HTTP connection: the user's --header values, then the identity's User-Agent. */
function httpHeaders(target: Extract<Target, { kind: 'http' }>, identity: ClientIdentity): Record<string, string> {
  const headers = Object.fromEntries(Object.entries(target.headers).filter(([name]) => name.toLowerCase() !== 'user-agent'));
  const userAgent = Object.entries(target.headers).find(([name]) => name.toLowerCase() === 'user-agent')?.[1] ?? identity.userAgent;
  return { ...headers, 'user-agent': userAgent };
}

export function openSession(
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
