import { SdkError } from '@modelcontextprotocol/client';
import { MODERN_PROTOCOL_VERSION } from '../../contract/constants.js';
import { CONNECTIONS, CONNECTION_SPECS, type ConnectionId } from './connections.js';
import { ConformError } from '../errors.js';
import type { HttpTrace, OddAnswer } from './http-reading.js';
import { formatBytes, type ReadBudget } from './reading-limits.js';
import type { ChildDiagnostics } from './stdio-transport.js';
import { redact, secretValuesOf, type Target } from './target.js';

/** One connection that failed, with everything its transport saw. */
export interface Failure {
  connection: ConnectionId;
  error: unknown;
  diagnostics?: ChildDiagnostics | undefined;
  budget: ReadBudget;
  http?: HttpTrace | undefined;
}

/** The checker's own per-connection deadline ran out. */
export class DeadlineError extends Error {}

/** Headers a b2-mcp server in `headers` credential mode reads the B2 key from. */
const KEY_HEADERS = ['x-b2-mcp-key-id', 'x-b2-mcp-key'] as const;

/** Lines of a crash report that say nothing about its cause: stack frames, source excerpts, Node's banner. */
const NOISE = [
  /^\s+at\s/,
  /^\s*\^+\s*$/,
  /^Node\.js v\d/,
  /^node:internal\//,
  /^\s*throw\s+\w+;?\s*$/,
  /^\s*[{}[\]],?\s*$/,
  /^\s*\w+: .*,\s*$/,
  /^\S+:\d+$/,
];
/** Lines that name a cause. */
const CAUSE = /error|cannot|can't|could not|fatal|exception|fail|denied|not found|missing|invalid|refused|unknown|usage/i;
const ERROR_CODE = /\bE[A-Z]{3,}\b/;

/** The stderr lines that most likely name why the server stopped: cause lines first, else the first meaningful ones. */
function meaningfulStderr(diagnostics: ChildDiagnostics, count = 2): string[] {
  const lines = [...diagnostics.stderrHead, ...diagnostics.stderrTail.filter((line) => !diagnostics.stderrHead.includes(line))];
  const meaningful = lines.filter((line) => !NOISE.some((pattern) => pattern.test(line)));
  const causes = meaningful.filter((line) => CAUSE.test(line) || ERROR_CODE.test(line));
  return (causes.length > 0 ? causes : meaningful).slice(0, count);
}

/**
 * Why the server did not take a judged connection's protocol era, when that is what happened: it
 * answered, but not with a version the connection speaks. Undefined for any other failure (an
 * exit, a timeout, broken output), which stays a failure of the run.
 */
export function eraRefusal(
  connection: ConnectionId,
  error: unknown,
  diagnostics: ChildDiagnostics | undefined,
  target: Target,
): string | undefined {
  if (diagnostics && (diagnostics.exit || diagnostics.spawnError || diagnostics.badStdoutLine !== undefined || diagnostics.messages === 0))
    return undefined;
  const message = redact(error instanceof Error ? error.message : String(error), secretValuesOf(target))
    .replace(/\s+/g, ' ')
    .trim();
  const spec = CONNECTION_SPECS[connection];
  if (spec.era === 'modern' && /did not offer pinned protocol version/i.test(message))
    return `server does not offer MCP ${MODERN_PROTOCOL_VERSION} (modern era) via server/discover`;
  const code = (error as { code?: unknown } | null)?.code;
  if (spec.era === 'legacy' && (code === -32022 || /protocol version is not supported|unsupported protocol version/i.test(message))) {
    return `server did not accept MCP ${spec.protocolVersion} nor any other 2025-era version: ${message.slice(0, 200)}`;
  }
  return undefined;
}

/** The run's error when the server took none of the judged connections: each one's own cause. */
export function noEraAccepted(unordered: readonly { connection: ConnectionId; reason: string }[]): ConformError {
  const refusals = [...unordered].sort((a, b) => CONNECTIONS.indexOf(a.connection) - CONNECTIONS.indexOf(b.connection));
  const [only] = refusals;
  if (refusals.length === 1 && only!.connection === 'modern')
    return new ConformError('protocol', `${only!.reason}; use --era legacy to check the 2025 era only`);
  if (refusals.length === 1) return new ConformError('protocol', `the ${only!.connection} connection: ${only!.reason}`);
  return new ConformError(
    'protocol',
    `the server accepted no connection: ${refusals.map(({ connection, reason }) => `${connection}: ${reason}`).join('; ')}`,
  );
}

/** One line naming why a connection failed, in the server's terms where it told us; exit-code class by cause. */
export function explainFailure({ connection, error, diagnostics, budget, http }: Failure, target: Target, timeoutMs: number): ConformError {
  const secrets = secretValuesOf(target);
  const clean = (text: string) => redact(text, secrets).replace(/\s+/g, ' ').trim();
  const where = target.kind === 'http' ? `${target.url.origin}${target.url.pathname}` : `"${target.command}"`;
  const stderrHint = () => {
    const lines = diagnostics ? meaningfulStderr(diagnostics) : [];
    return lines.length > 0 ? ` (stderr: ${lines.map((line) => clean(line).slice(0, 200)).join(' | ')})` : '';
  };

  const exceeded = budget.exceeded;
  if (exceeded) {
    const bound =
      exceeded.subject === 'nesting'
        ? `nested deeper than ${exceeded.limit} levels`
        : exceeded.subject === 'item count'
          ? `listing more than ${exceeded.limit} ${exceeded.items}, the most one check reads`
          : `larger than the ${formatBytes(exceeded.limit)} limit (--max-message-bytes)`;
    return new ConformError('protocol', `server sent ${exceeded.where} ${bound}; the ${connection} connection stopped reading`);
  }
  if (diagnostics?.spawnError) {
    return new ConformError(
      'connect',
      `could not start server ${where}: ${diagnostics.spawnError === 'ENOENT' ? 'command not found' : diagnostics.spawnError}`,
    );
  }
  if (diagnostics?.badStdoutLine !== undefined) {
    const line = clean(diagnostics.badStdoutLine).slice(0, 80);
    return new ConformError('protocol', `server wrote non-JSON-RPC output on stdout ("${line}"); stdout must carry protocol frames only`);
  }
  if (diagnostics?.exit) {
    const { code, signal } = diagnostics.exit;
    return new ConformError(
      'server-exited',
      `server exited ${signal ? `on ${signal}` : `with code ${code}`} before answering${stderrHint()}`,
    );
  }
  const odd = http?.odd[0];
  if (odd) return explainHttpAnswer(odd, connection, where, target, clean);
  const message = clean(error instanceof Error ? error.message : String(error));
  const timedOut = error instanceof DeadlineError || isTimeout(error);
  // Over stdio the SDK takes a server/discover probe that times out for a 2025-only server: it is a timeout when nothing at all came back.
  const silentProbe = connection === 'modern' && diagnostics?.messages === 0 && /did not offer pinned protocol version/i.test(message);
  if (timedOut || silentProbe) {
    const what = silentProbe ? 'answer server/discover on' : 'answer';
    return new ConformError(
      'timeout',
      `server did not ${what} the ${connection} connection within ${timeoutMs} ms (--timeout); a slow or loaded server needs a larger --timeout${stderrHint()}`,
    );
  }
  const cause = errorCause(error);
  if (cause || /fetch failed/i.test(message)) {
    const reason =
      cause?.code === 'ECONNREFUSED'
        ? 'connection refused'
        : cause?.code === 'ENOTFOUND'
          ? 'host not found'
          : (cause?.code ?? cause?.message ?? 'network error');
    return new ConformError('connect', `could not connect to ${where}: ${clean(reason)}`);
  }
  const status = httpStatusOf(error);
  if (status !== undefined) return new ConformError('protocol', `the ${connection} connection to ${where} got HTTP ${status}`);
  return new ConformError('protocol', `the ${connection} connection failed: ${message.slice(0, 300)}${stderrHint()}`);
}

/** An HTTP answer that was no MCP message: what it means for the user. */
function explainHttpAnswer(
  odd: OddAnswer,
  connection: ConnectionId,
  where: string,
  target: Extract<Target, { kind: 'http' }> | Target,
  clean: (text: string) => string,
): ConformError {
  if (odd.location !== undefined) {
    return new ConformError(
      'connect',
      `${where} redirected the ${connection} connection (HTTP ${odd.status}) to another origin, "${clean(odd.location).slice(0, 200)}"; MCP clients follow a redirect only within the origin (elsewhere it would carry the --header values): point --url at the MCP endpoint itself`,
    );
  }
  const said = odd.text ? `: ${clean(odd.text).slice(0, 200)}` : '';
  if (odd.status === 401 || odd.status === 403) {
    const sent = target.kind === 'http' ? Object.keys(target.headers).map((name) => name.toLowerCase()) : [];
    const hint = KEY_HEADERS.every((name) => sent.includes(name))
      ? `the ${KEY_HEADERS.join(' and ')} headers sent were not accepted`
      : `a b2-mcp server in headers credential mode needs the B2 key in ${KEY_HEADERS.map((name) => `--header ${name}=…`).join(' and ')}`;
    return new ConformError(
      'connect',
      `${where} refused the ${connection} connection with HTTP ${odd.status} (credentials required)${said}; ${hint}`,
    );
  }
  if (odd.status === 404 || odd.status === 405) {
    return new ConformError(
      'connect',
      `${where} is not an MCP endpoint (HTTP ${odd.status} to an MCP request)${said}; check the path of --url (b2-mcp serves /mcp)`,
    );
  }
  const type = clean(odd.contentType).slice(0, 80) || 'no content type';
  return new ConformError(
    'connect',
    `${where} is not an MCP endpoint: it answered an MCP request with HTTP ${odd.status} ${type}, not JSON or an event stream; check --url`,
  );
}

function httpStatusOf(error: unknown): number | undefined {
  const status = (error as { data?: { status?: unknown } })?.data?.status;
  return typeof status === 'number' ? status : undefined;
}

function isTimeout(error: unknown): boolean {
  if (error instanceof SdkError && String(error.code) === 'REQUEST_TIMEOUT') return true;
  const message = error instanceof Error ? error.message : '';
  return /timed? ?out/i.test(message);
}

/** The network-level reason under a failed fetch: a system error code, or the innermost cause's message. */
function errorCause(error: unknown): { code?: string; message?: string } | undefined {
  let current: unknown = error;
  let innermost: { code?: string; message?: string } | undefined;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return { code };
    if (depth > 0 && typeof message === 'string') innermost = { message };
    const next = current as { cause?: unknown; data?: { cause?: unknown }; errors?: unknown[] };
    current = next.cause ?? next.data?.cause ?? next.errors?.[0];
  }
  return innermost && !/fetch failed/i.test(innermost.message ?? '') ? innermost : undefined;
}
