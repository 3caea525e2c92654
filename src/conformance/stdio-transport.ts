import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import type { ConnectionId } from './connections.js';
import type { Target } from './target.js';

/** What went wrong on the child's side of the pipe, kept for a precise error message. */
export interface ChildDiagnostics {
  /** Why the process could not be started (e.g. ENOENT). */
  spawnError?: string;
  /** The first stdout line that was not a JSON-RPC 2.0 message. */
  badStdoutLine?: string;
  /** Set when the process ended before we asked it to. */
  exit?: { code: number | null; signal: string | null };
  /** The last lines the child wrote on stderr. */
  stderrTail: string[];
}

const STDERR_TAIL_LINES = 5;
/** With `keepStderr`, at most this much of the child's stderr is kept (the probes search it for secrets). */
const STDERR_KEEP_LIMIT = 8 * 1024 * 1024;

/**
 * The only parent variables a spawned server inherits (the MCP SDK's safe defaults); everything
 * else it needs is passed explicitly, so the checker's own secrets never leak into a server.
 */
const INHERITED_ENV =
  process.platform === 'win32'
    ? ['APPDATA', 'COMSPEC', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PATHEXT', 'PROCESSOR_ARCHITECTURE', 'PROGRAMDATA', 'PROGRAMFILES', 'PROGRAMFILES(X86)', 'PROGRAMW6432', 'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'USERNAME', 'USERPROFILE', 'WINDIR']
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

export function inheritedEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = process.env[key];
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  return env;
}

/**
 * A stdio transport that owns its child process, so the checker can tell a server that exits,
 * a server that writes non-protocol bytes on stdout, and a silent server apart. It is a custom
 * stdio-shaped transport (it exposes `pid` and `stderr`), so the 2.x client probes the modern era
 * in place on this one process instead of spawning a disposable sibling.
 */
export class ChildStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly diagnostics: ChildDiagnostics = { stderrTail: [] };
  /** Rejects as soon as the child breaks the stdio contract; never resolves. */
  readonly broken: Promise<never>;

  private child?: ChildProcess;
  private launched?: Promise<void>;
  private stdoutBuffer = '';
  private closing = false;
  private rejectBroken!: (error: Error) => void;
  private stderrKept = '';

  constructor(private readonly params: { command: string; args: string[]; env: Record<string, string>; keepStderr?: boolean }) {
    this.broken = new Promise<never>((_, reject) => {
      this.rejectBroken = reject;
    });
    this.broken.catch(() => {}); // observed by whoever races it; never an unhandled rejection
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  get stderr(): Readable | null {
    return this.child?.stderr ?? null;
  }

  /** Everything the child wrote on stderr so far (only with `keepStderr`). */
  get stderrText(): string {
    return this.stderrKept;
  }

  /** Spawn the child now (before the client connects), so its boot overlaps the checker's own start-up. */
  launch(): Promise<void> {
    this.launched ??= new Promise((resolve, reject) => {
      const child = spawn(this.params.command, this.params.args, {
        env: { ...inheritedEnvironment(), ...this.params.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
      });
      this.child = child;
      child.once('spawn', () => resolve());
      child.once('error', (error: NodeJS.ErrnoException) => {
        this.diagnostics.spawnError = error.code ?? error.message;
        this.fail(error);
        reject(error);
      });
      child.once('exit', (code, signal) => {
        if (!this.closing) {
          this.diagnostics.exit = { code, signal };
          this.fail(new Error('server process exited'));
        }
      });
      child.once('close', () => this.onclose?.());
      child.stdin?.on('error', () => {}); // a dead child's stdin: reported through 'exit'
      child.stdout?.setEncoding('utf8');
      child.stdout?.on('data', (chunk: string) => this.readStdout(chunk));
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (chunk: string) => this.readStderr(chunk));
    });
    this.launched.catch(() => {}); // reported through `broken` and start()
    return this.launched;
  }

  start(): Promise<void> {
    return this.launch();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || stdin.destroyed) {
        reject(new Error('server process is not running'));
        return;
      }
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /** Close stdin and give the server a moment to leave on its own, then stop it. */
  async close(): Promise<void> {
    const child = this.child;
    this.closing = true;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const within = (ms: number) => Promise.race([exited.then(() => true), delay(ms).then(() => false)]);
    child.stdin?.end();
    if (await within(300)) return;
    child.kill('SIGTERM');
    if (await within(1000)) return;
    child.kill('SIGKILL');
    await exited;
  }

  private readStdout(chunk: string): void {
    this.stdoutBuffer += chunk;
    let newline: number;
    while ((newline = this.stdoutBuffer.indexOf('\n')) !== -1) {
      const line = this.stdoutBuffer.slice(0, newline).replace(/\r$/, '');
      this.stdoutBuffer = this.stdoutBuffer.slice(newline + 1);
      if (line.trim() === '') continue;
      const message = parseJsonRpc(line);
      if (!message) {
        this.diagnostics.badStdoutLine ??= line;
        this.fail(new Error('server wrote non-JSON-RPC output on stdout'));
        return;
      }
      this.onmessage?.(message);
    }
  }

  private readStderr(chunk: string): void {
    if (this.params.keepStderr && this.stderrKept.length < STDERR_KEEP_LIMIT) this.stderrKept += chunk.slice(0, STDERR_KEEP_LIMIT - this.stderrKept.length);
    const lines = chunk.split(/\r?\n/).filter((line) => line.trim() !== '');
    this.diagnostics.stderrTail.push(...lines);
    this.diagnostics.stderrTail.splice(0, Math.max(0, this.diagnostics.stderrTail.length - STDERR_TAIL_LINES));
  }

  private fail(error: Error): void {
    this.rejectBroken(error);
  }
}

function parseJsonRpc(line: string): JSONRPCMessage | undefined {
  try {
    const value = JSON.parse(line) as { jsonrpc?: unknown };
    return value && typeof value === 'object' && value.jsonrpc === '2.0' ? (value as JSONRPCMessage) : undefined;
  } catch {
    return undefined;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Server processes spawned ahead of the clients, one per connection. */
export type LaunchedServers = Partial<Record<ConnectionId, ChildStdioTransport>>;

/** For a stdio target, start one server process per connection right away; HTTP needs nothing. */
export function launchServers(target: Target, connections: readonly ConnectionId[]): LaunchedServers {
  const launched: LaunchedServers = {};
  if (target.kind !== 'stdio') return launched;
  for (const connection of connections) {
    const transport = new ChildStdioTransport({ command: target.command, args: target.args, env: target.env });
    void transport.launch();
    launched[connection] = transport;
  }
  return launched;
}

export async function stopServers(launched: LaunchedServers): Promise<void> {
  await Promise.allSettled(Object.values(launched).map((transport) => transport!.close()));
}
