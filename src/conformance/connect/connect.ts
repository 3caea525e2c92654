import type { Era } from '../../contract/constants.js';
import type { CacheHint } from '../../contract/fixture.js';
import { stable, type ListedTool } from '../../contract/normalize.js';
import { DeadlineError, eraRefusal, explainFailure, noEraAccepted, type Failure } from './diagnosis.js';
import { toolVersions } from '../package-root.js';
import { presentedIdentity, type ClientIdentity, type ClientInfo, type IdentityCapabilities } from './client-identities.js';
import { CONNECTIONS, CONNECTION_SPECS, ERA_OF, isJudged, type ConnectionId } from './connections.js';
import type { ListedPrompt } from '../snapshot/prompts.js';
import type { BoundedPart } from './reading-limits.js';
import { launchServers, type ChildDiagnostics, type LaunchedServers } from './stdio-transport.js';
import type { ConnectionSettings } from './settings.js';
import { redact, secretValuesOf, type Target } from './target.js';
import { openSession, type ServerDescription, type Session } from './sessions.js';

/** Everything one connection saw, in the order the server sent it. */
export interface Observation extends ServerDescription {
  connection: ConnectionId;
  era: Era;
  /** The client package and version that made this connection. */
  client: { package: string; version: string };
  /** Who the connection presented as: the `clientInfo` and capabilities it sent. */
  identity: { clientInfo: ClientInfo; capabilities: IdentityCapabilities };
  /** The protocol version the connection offered. */
  offeredVersion: string;
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
