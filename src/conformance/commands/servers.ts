import { CONNECTIONS_FOR, type ConnectionId, type EraChoice } from '../connect/connections.js';
import { launchServers, stopServers, type LaunchedServers } from '../connect/stdio-transport.js';
import { startBundledServer, type BundledServer } from '../connect/bundled.js';
import type { ConnectionSettings } from '../connect/settings.js';
import { resolveProfile, type Target } from '../connect/target.js';

/** Servers started early for a run, so their start-up overlaps its own loading. */
export interface Prepared {
  /** stdio targets: one process per connection. */
  launched?: LaunchedServers;
  /** No target: the bundled server. */
  bundled?: BundledServer;
}

/** What a run needs to know to reach its server. */
export interface TargetRequest {
  /** Null: the bundled b2-mcp pinned to the profile. */
  target: Target | null;
  profile: string;
  era: EraChoice;
  connection: ConnectionSettings;
}

/** Start the request's server(s) now, one stdio process per connection of its eras, or the bundled server. */
export function prepareServers(request: TargetRequest): Prepared {
  if (request.target) return { launched: launchServers(request.target, CONNECTIONS_FOR[request.era], request.connection.maxMessageBytes) };
  return { bundled: startBundledServer(resolveProfile(request.profile), request.connection.timeoutMs) };
}

/** Stop whatever was started early, when the run ends before it uses them. */
export async function stopPrepared(prepared: Prepared): Promise<void> {
  await Promise.all([stopServers(prepared.launched ?? {}), prepared.bundled?.stop()]);
}

/**
 * Run `body` against the request's target (the bundled server when there is none), then stop
 * whatever was started for it, whatever happens.
 */
export async function withTarget<T>(
  request: TargetRequest,
  connections: readonly ConnectionId[],
  prepared: Prepared,
  body: (target: Target, servers: LaunchedServers) => Promise<T>,
): Promise<T> {
  const bundled = request.target
    ? undefined
    : (prepared.bundled ?? startBundledServer(resolveProfile(request.profile), request.connection.timeoutMs));
  const servers =
    prepared.launched ?? (request.target ? launchServers(request.target, connections, request.connection.maxMessageBytes) : {});
  try {
    return await body(request.target ?? (await bundled!.ready), servers);
  } finally {
    await Promise.all([stopServers(servers), bundled?.stop()]);
  }
}
