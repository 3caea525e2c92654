import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { MODERN_PROTOCOL_VERSION } from '../../contract/constants.js';
import type { ListedTool } from '../../contract/normalize.js';
import { declinedRequests, presentedIdentity, type ClientIdentity, type IdentityName } from '../connect/client-identities.js';
import { boundedFetch } from '../connect/http-reading.js';
import { ReadBudget } from '../connect/reading-limits.js';
import type { ConnectionSettings } from '../connect/settings.js';
import { LEGACY_PROTOCOL_VERSIONS } from '../connect/connections.js';
import { ChildStdioTransport } from '../connect/stdio-transport.js';
import type { HttpTarget } from '../connect/target.js';

export type ElicitAnswer = 'accept' | 'decline' | 'cancel';

/** One server configuration and one client, as the probes need them. */
export interface SessionSpec {
  name: 'plain' | 'elicit' | 'block' | 'era';
  /** B2_DESTRUCTIVE_POLICY, or null when the server runs as it was started (a --url target). */
  policy: 'confirm' | 'block' | null;
  /** B2_MCP_OUTPUT_FORMAT, or null when the server runs as it was started. */
  outputFormat: 'toon' | 'auto' | 'json' | null;
  /** Whether the client declares form elicitation and answers it (the identity's capabilities agree). */
  elicitation: boolean;
  /** The ordinary client the session presents as; nothing tells the server a checker is calling. */
  identity: IdentityName;
  /** Point B2_LOG_FILE at a file of the run's own, so the log file is searched too. */
  logFile?: boolean;
  /** Speak this era instead of the run's (the `era` session speaks the other one). */
  modern?: boolean;
  /** In the 2025 era: the protocol version offered first (the server may choose another it speaks). */
  protocolVersion?: string;
  /** Declare sampling (answered with a refusal) or not, whatever the identity declares. */
  sampling?: boolean;
}

/** What one tools/call came back with. */
export interface CallOutcome {
  result?: CallToolResult;
  /** A JSON-RPC or transport error instead of a result (message only). */
  thrown?: string;
  /** Set when no answer came within the call's timeout. */
  timedOut?: true;
  /** Messages of the elicitation requests the server sent during the call. */
  elicitations: string[];
}

export interface ProbeSession {
  spec: SessionSpec;
  /** The product the session presented as, for the evidence. */
  client: string;
  tools: ListedTool[];
  /** One tools/call; `timeoutMs` (default the session's) bounds the wait. */
  call(tool: string, args: Record<string, unknown>, timeoutMs?: number): Promise<CallOutcome>;
  /** How the elicitation handler answers from now on. */
  answer(answer: ElicitAnswer): void;
  /** List the tools again (after the probes: a surface that changes with time or calls shows then). */
  relist(timeoutMs?: number): Promise<ListedTool[]>;
  /** Names of the environment variables the probes gave the server (none for a running URL). */
  envNames: string[];
  /** The era and protocol version the session spoke, and whether it declared sampling. */
  modern: boolean;
  protocolVersion: string | null;
  sampling: boolean;
  /** The server's instructions to this session (null when none). */
  instructions: string | null;
  /** Disconnect, stop the server, and return what it wrote on stderr and to its log file (empty for a server started by hand). */
  close(): Promise<SessionOutput>;
}

export interface SessionOutput {
  stderr: string;
  logFile: string;
  /** Every message the server sent the session, in order, with the tool whose call was running. */
  messages: ReceivedMessage[];
}

export interface ReceivedMessage {
  message: JSONRPCMessage;
  /** The tool being called when it arrived; none for start-up, listing and anything between calls. */
  tool?: string;
}

/** Keep every message the transport hands the client, before the client sees it. */
function recordIncoming(transport: Transport, record: (message: JSONRPCMessage) => void): void {
  let handler: Transport['onmessage'];
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () =>
      handler &&
      ((message: JSONRPCMessage, extra?: unknown) => {
        record(message);
        handler!(message, extra as never);
      }),
    set: (next: Transport['onmessage']) => void (handler = next),
  });
}

/** How to reach a server for the probes: spawn it with the probe environment, or a running URL. */
export type ProbeServer =
  | { kind: 'spawn'; command: string; args: string[]; env: Record<string, string> }
  | { kind: 'url'; target: HttpTarget };

export interface SessionOptions {
  /** The sandbox variables and anything else every spawned server gets. */
  env: Record<string, string>;
  /** The run's connection settings; the timeout may be the time the run has left. */
  connection: ConnectionSettings;
  /** Speak the modern era (2026-07-28) rather than the 2025 era. */
  modern: boolean;
  /** Which session this is, to take its turn of the settings' `clientInfo`. */
  slot?: number;
  /** LOG_LEVEL for spawned servers, only when asked for (`--probe-log-level`): a debug level tells a server it is watched. */
  logLevel?: string;
}

/**
 * Credentials a `--server` command was given with `--env` never reach a probe session: the
 * sandbox key replaces them, and a real key must not sit in a process that is being probed. Nor
 * does anything that locates or opens the checker's sandbox admin API.
 */
const CREDENTIAL_VARIABLE =
  /^(B2_(APPLICATION|APP|MASTER)_KEY(_ID)?|B2_CREDENTIAL_.+|B2_PRINCIPAL_CREDENTIAL_MAP|AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN)|B2_MCP_CONFORM_.+)$/;

function withoutCredentials(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !CREDENTIAL_VARIABLE.test(name)));
}

function sessionEnv(
  spec: SessionSpec,
  base: Record<string, string>,
  logFile: string | undefined,
  logLevel: string | undefined,
): Record<string, string> {
  return {
    ...base,
    ...(logLevel ? { LOG_LEVEL: logLevel } : {}),
    B2_SECRET_SINK: 'off',
    B2_DESTRUCTIVE_ELICITATION: 'on',
    ...(spec.policy ? { B2_DESTRUCTIVE_POLICY: spec.policy } : {}),
    ...(spec.outputFormat ? { B2_MCP_OUTPUT_FORMAT: spec.outputFormat } : {}),
    ...(logFile ? { B2_LOG_FILE: logFile } : {}),
  };
}

/** The identity with sampling declared or not, as the session asks (unchanged when it does not say). */
function withSampling(identity: ClientIdentity, sampling: boolean | undefined): ClientIdentity {
  if (sampling === undefined) return identity;
  const { sampling: _declared, ...others } = identity.capabilities;
  return { ...identity, capabilities: sampling ? { ...others, sampling: {} } : others };
}

/** Start (or reach) the server for one session, connect a client and list its tools. */
export async function openSession(server: ProbeServer, spec: SessionSpec, options: SessionOptions): Promise<ProbeSession> {
  const logDir = server.kind === 'spawn' && spec.logFile ? mkdtempSync(join(tmpdir(), 'mcp-logs-')) : undefined;
  const logFile = logDir ? join(logDir, 'server.log') : undefined;
  const probeEnv = server.kind === 'spawn' ? sessionEnv(spec, options.env, logFile, options.logLevel) : {};
  const stdio =
    server.kind === 'spawn'
      ? new ChildStdioTransport({
          command: server.command,
          args: server.args,
          env: { ...withoutCredentials(server.env), ...probeEnv },
          keepStderr: true,
          maxMessageBytes: options.connection.maxMessageBytes,
        })
      : undefined;
  const identity = withSampling(presentedIdentity(spec.identity, options.slot ?? 0, options.connection.clientInfo), spec.sampling);
  const modern = spec.modern ?? options.modern;
  const transport =
    server.kind === 'spawn'
      ? stdio!
      : new StreamableHTTPClientTransport(server.target.url, {
          fetch: boundedFetch(new ReadBudget(options.connection.maxMessageBytes)),
          requestInit: { headers: { 'user-agent': identity.userAgent, ...server.target.headers } },
        });

  const messages: ReceivedMessage[] = [];
  let calling: string | undefined;
  recordIncoming(transport, (message) => messages.push({ message, ...(calling ? { tool: calling } : {}) }));

  let answer: ElicitAnswer = 'decline';
  let elicited: string[] = [];
  const client = new Client(
    { ...identity.clientInfo },
    {
      capabilities: structuredClone(identity.capabilities),
      versionNegotiation: modern
        ? { mode: { pin: MODERN_PROTOCOL_VERSION }, probe: { timeoutMs: options.connection.timeoutMs } }
        : { mode: 'legacy' },
      ...(!modern && spec.protocolVersion
        ? {
            supportedProtocolVersions: [
              spec.protocolVersion,
              ...LEGACY_PROTOCOL_VERSIONS.filter((version) => version !== spec.protocolVersion),
            ],
          }
        : {}),
    },
  );
  for (const { method, answer: declined } of declinedRequests(identity)) client.setRequestHandler(method, async () => declined() as never);
  if (spec.elicitation) {
    client.setRequestHandler('elicitation/create', async (request) => {
      elicited.push(String((request.params as { message?: unknown }).message ?? ''));
      return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: answer };
    });
  }
  const cleanup = () => {
    if (logDir) rmSync(logDir, { recursive: true, force: true });
  };
  const readLog = () => {
    try {
      return logFile ? readFileSync(logFile, 'utf8') : '';
    } catch {
      return '';
    }
  };
  let tools: ListedTool[];
  try {
    await client.connect(transport, { timeout: options.connection.timeoutMs });
    tools = (await client.listTools(undefined, { cacheMode: 'bypass', timeout: options.connection.timeoutMs })).tools as ListedTool[];
  } catch (error) {
    await client.close().catch(() => {});
    const tail = stdio?.diagnostics.stderrTail.at(-1);
    cleanup();
    throw new Error(`${(error as Error).message}${tail ? ` (stderr: ${tail.slice(0, 200)})` : ''}`);
  }

  const instructions = client.getInstructions();
  return {
    spec,
    client: identity.product,
    tools,
    envNames: Object.keys(probeEnv).sort(),
    modern,
    protocolVersion: client.getNegotiatedProtocolVersion() ?? null,
    sampling: identity.capabilities.sampling !== undefined,
    instructions: typeof instructions === 'string' ? instructions : null,
    answer: (next) => void (answer = next),
    async relist(timeoutMs = options.connection.timeoutMs) {
      return (await client.listTools(undefined, { cacheMode: 'bypass', timeout: timeoutMs })).tools as ListedTool[];
    },
    async call(tool, args, timeoutMs = options.connection.timeoutMs) {
      elicited = [];
      calling = tool;
      try {
        const result = await client.callTool({ name: tool, arguments: args }, { timeout: timeoutMs });
        return { result, elicitations: elicited };
      } catch (error) {
        const timedOut = (error as { code?: unknown }).code === 'REQUEST_TIMEOUT';
        return { thrown: (error as Error).message, elicitations: elicited, ...(timedOut ? { timedOut: true as const } : {}) };
      } finally {
        calling = undefined;
      }
    },
    async close() {
      await client.close().catch(() => {});
      await stdio?.close();
      const output = { stderr: stdio?.stderrText ?? '', logFile: readLog(), messages };
      cleanup();
      return output;
    },
  };
}
