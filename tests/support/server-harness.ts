import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1HttpClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { testClock, type TestClock } from './clock.js';

/** Tests run the built server, exactly as users do (`npm test` builds first). */
export const SERVER_BIN = join(import.meta.dirname, '..', '..', 'dist', 'bin', 'b2-mcp.js');

export type ClientKind = 'modern' | 'legacy' | 'v1';

/** The spawned server sees only what we pass: never the parent's secrets. */
export function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'silent', B2_SECRET_SINK: 'off', ...extra };
}

export interface Connected {
  listTools(): Promise<{ tools: Array<Record<string, unknown>> }>;
  callTool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
  raw: Client | V1Client;
}

function modernOptions(kind: ClientKind, elicitation?: ElicitAnswer) {
  return {
    ...(kind === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' as const } } } : {}),
    ...(elicitation ? { capabilities: { elicitation: { form: {} } } } : {}),
  };
}

export type ElicitAnswer = 'accept' | 'decline' | 'cancel';

/** An in-place probe: one process carries both the discover probe and the session. */
class InPlaceStdioTransport extends StdioClientTransport {}

export async function connectStdio(
  kind: ClientKind,
  env: Record<string, string>,
  elicitation?: ElicitAnswer,
  clock: TestClock = testClock,
): Promise<Connected> {
  const params = {
    command: process.execPath,
    args: [...clock.nodeArgs, SERVER_BIN, 'stdio'],
    env: { ...env, ...clock.env },
    stderr: 'pipe' as const,
  };
  if (kind === 'v1') {
    const client = new V1Client({ name: 'v1-witness', version: '1' }, elicitation ? { capabilities: { elicitation: { form: {} } } } : {});
    if (elicitation) installV1Elicitation(client, elicitation);
    await client.connect(new V1StdioClientTransport(params));
    return wrap(client);
  }
  const client = new Client({ name: `test-${kind}`, version: '1' }, modernOptions(kind, elicitation));
  if (elicitation) client.setRequestHandler('elicitation/create', async () => answer(elicitation));
  await client.connect(new InPlaceStdioTransport(params));
  return wrap(client);
}

export interface HttpClientOptions {
  /** Sent on every request (e.g. `x-b2-mcp-key-id` / `x-b2-mcp-key` in headers credential mode). */
  headers?: Record<string, string>;
  elicitation?: ElicitAnswer;
}

export async function connectHttp(kind: ClientKind, url: URL, options: HttpClientOptions = {}): Promise<Connected> {
  const { headers, elicitation } = options;
  const requestInit = headers ? { requestInit: { headers } } : {};
  if (kind === 'v1') {
    const client = new V1Client({ name: 'v1-witness', version: '1' }, elicitation ? { capabilities: { elicitation: { form: {} } } } : {});
    if (elicitation) installV1Elicitation(client, elicitation);
    await client.connect(new V1HttpClientTransport(url, requestInit));
    return wrap(client);
  }
  const client = new Client({ name: `test-${kind}`, version: '1' }, modernOptions(kind, elicitation));
  if (elicitation) client.setRequestHandler('elicitation/create', async () => answer(elicitation));
  await client.connect(new StreamableHTTPClientTransport(url, requestInit));
  return wrap(client);
}

function answer(kind: ElicitAnswer) {
  return kind === 'accept' ? { action: 'accept' as const, content: { confirm: true } } : { action: kind };
}

/** The v1 client registers handlers by schema; before connecting, so no elicitation can arrive first. */
function installV1Elicitation(client: V1Client, kind: ElicitAnswer): void {
  client.setRequestHandler(ElicitRequestSchema, async () => answer(kind));
}

function wrap(client: Client | V1Client): Connected {
  return {
    raw: client,
    listTools: async () =>
      (client instanceof Client ? await client.listTools(undefined, { cacheMode: 'bypass' }) : await client.listTools()) as {
        tools: Array<Record<string, unknown>>;
      },
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as Record<string, unknown>,
    close: () => client.close(),
  };
}

export interface HttpServer {
  url: URL;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `b2-mcp http --port 0` and waits for the listening log line to learn the port.
 * Unless `env` says otherwise the server uses its own key (`B2_HTTP_CREDENTIAL_MODE=server`), so
 * clients need no credential headers; HTTP transport tests set the mode explicitly.
 */
export async function startHttpServer(env: Record<string, string>, clock: TestClock = testClock): Promise<HttpServer> {
  const child = spawn(process.execPath, [...clock.nodeArgs, SERVER_BIN, 'http', '--port', '0'], {
    env: { B2_HTTP_CREDENTIAL_MODE: 'server', ...env, ...clock.env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<URL>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`http server did not start: ${buffered}`)), 10_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"/.exec(buffered);
      if (match) {
        clearTimeout(timer);
        resolve(new URL(match[1]!));
      }
    });
    child.once('exit', (code) => reject(new Error(`http server exited with ${code}: ${buffered}`)));
  });
  return {
    url,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
