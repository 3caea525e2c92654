import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import type { ConnectionId } from './connections.js';
import { ReadBudget, ReadLimitError } from './reading-limits.js';
import type { Target } from './target.js';

/** What went wrong on the child's side of the pipe, kept for a precise error message. */
export interface ChildDiagnostics {
  /** Why the process could not be started (e.g. ENOENT). */
  spawnError?: string;
  /** The first stdout line that was not a JSON-RPC 2.0 message. */
  badStdoutLine?: string;
  /** JSON-RPC messages the child sent (none: it never answered anything). */
  messages: number;
  /** Set when the process ended before we asked it to. */
  exit?: { code: number | null; signal: string | null };
  /** The first lines the child wrote on stderr (the cause of a crash is usually there). */
  stderrHead: string[];
  /** The last lines the child wrote on stderr. */
  stderrTail: string[];
}

const STDERR_HEAD_LINES = 20;
const STDERR_TAIL_LINES = 5;
const STDERR_LINE_CHARS = 1000;
/** With `keepStderr`, at most this much of the child's stderr is kept (the probes search it for secrets). */
const STDERR_KEEP_LIMIT = 8 * 1024 * 1024;

/**
 * The only parent variables a spawned server inherits (the MCP SDK's safe defaults); everything
 * else it needs is passed explicitly, so the checker's own secrets never leak into a server.
 */
const INHERITED_ENV =
  process.platform === 'win32'
    ? [
        'APPDATA',
        'COMSPEC',
        'HOMEDRIVE',
        'HOMEPATH',
        'LOCALAPPDATA',
        'PATH',
        'PATHEXT',
        'PROCESSOR_ARCHITECTURE',
        'PROGRAMDATA',
        'PROGRAMFILES',
        'PROGRAMFILES(X86)',
        'PROGRAMW6432',
        'SYSTEMDRIVE',
        'SYSTEMROOT',
        'TEMP',
        'USERNAME',
        'USERPROFILE',
        'WINDIR',
      ]
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
 * Server processes run in a session of their own (POSIX `setsid`, through `detached`): a server
 * cannot open the user's terminal (`/dev/tty`) to write past the checker's escaping, and the
 * processes it starts share its process group, so stopping the server stops them too. Out of the
 * terminal's process group, they no longer get its Ctrl-C: while any is alive, the checker kills
 * their groups when it exits or is stopped by a signal, then lets the signal take its course.
 */
const ownSession = process.platform !== 'win32';
const liveGroups = new Set<number>();
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the whole group is gone already.
  }
}

function killLiveGroups(): void {
  for (const pid of liveGroups) signalGroup(pid, 'SIGKILL');
  liveGroups.clear();
}

function onStopSignal(signal: NodeJS.Signals): void {
  killLiveGroups();
  watchForStop(false);
  // Alone, the signal ends the process as if never caught; a host's own handlers have had it already.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function watchForStop(on: boolean): void {
  for (const signal of STOP_SIGNALS) {
    if (on) process.on(signal, onStopSignal);
    else process.off(signal, onStopSignal);
  }
  if (on) process.on('exit', killLiveGroups);
  else process.off('exit', killLiveGroups);
}

function trackGroup(pid: number): void {
  if (liveGroups.size === 0) watchForStop(true);
  liveGroups.add(pid);
}

function untrackGroup(pid: number): void {
  if (liveGroups.delete(pid) && liveGroups.size === 0) watchForStop(false);
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

  readonly diagnostics: ChildDiagnostics = { messages: 0, stderrHead: [], stderrTail: [] };
  /** The bounds on what is read from the child, and what was cut to fit them. */
  readonly budget: ReadBudget;
  /** Rejects as soon as the child breaks the stdio contract; never resolves. */
  readonly broken: Promise<never>;

  private child?: ChildProcess;
  /** The child's process group (its pid), when it runs in a session of its own. */
  private group?: number;
  private launched?: Promise<void>;
  /** Bytes of the stdout line being read (no newline in them yet). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private closing = false;
  private rejectBroken!: (error: Error) => void;
  private stderrKept = '';
  private stderrPartial = '';

  constructor(
    private readonly params: {
      command: string;
      args: string[];
      env: Record<string, string>;
      keepStderr?: boolean;
      maxMessageBytes?: number | undefined;
    },
  ) {
    this.budget = new ReadBudget(params.maxMessageBytes);
    this.broken = new Promise<never>((_, reject) => {
      this.rejectBroken = reject;
    });
    this.broken.catch(() => {}); // observed by whoever races it; never an unhandled rejection
    this.budget.broken.catch((error: Error) => this.fail(error));
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
        detached: ownSession,
      });
      this.child = child;
      if (ownSession && child.pid !== undefined) trackGroup((this.group = child.pid));
      child.once('spawn', () => resolve());
      child.once('error', (error: NodeJS.ErrnoException) => {
        this.diagnostics.spawnError = error.code ?? error.message;
        this.fail(error);
        reject(error);
      });
      child.once('exit', (code, signal) => {
        if (this.closing) return;
        this.diagnostics.exit = { code, signal };
        // Report once its last stderr words are read (a grandchild may hold the pipe open: not for long).
        const report = () => {
          this.flushStderr();
          this.fail(new Error('server process exited'));
        };
        if (!child.stderr || child.stderr.readableEnded) report();
        else {
          child.stderr.once('end', report);
          delay(200).then(report);
        }
      });
      child.once('close', () => this.onclose?.());
      child.stdin?.on('error', () => {}); // a dead child's stdin: reported through 'exit'
      child.stdout?.on('data', (chunk: Buffer) => this.readStdout(chunk));
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

  /** Close stdin and give the server a moment to leave on its own, then stop it; what it started goes with it. */
  async close(): Promise<void> {
    const child = this.child;
    this.closing = true;
    if (!child) return;
    try {
      await this.stop(child);
    } finally {
      if (this.group !== undefined) {
        signalGroup(this.group, 'SIGKILL');
        untrackGroup(this.group);
      }
    }
  }

  private async stop(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const within = (ms: number) => Promise.race([exited.then(() => true), delay(ms).then(() => false)]);
    const signal = (name: NodeJS.Signals) => (this.group !== undefined ? signalGroup(this.group, name) : child.kill(name));
    child.stdin?.end();
    if (await within(300)) return;
    signal('SIGTERM');
    if (await within(1000)) return;
    signal('SIGKILL');
    await exited;
  }

  /** Split stdout into lines, looking for the newline in new bytes only; a line may not outgrow the budget. */
  private readStdout(chunk: Buffer): void {
    let start = 0;
    let newline: number;
    while ((newline = chunk.indexOf(0x0a, start)) !== -1) {
      const piece = chunk.subarray(start, newline);
      const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
      this.pending = [];
      this.pendingBytes = 0;
      start = newline + 1;
      if (!this.readLine(line)) return;
    }
    if (start < chunk.length) {
      this.pending.push(chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
      if (this.pendingBytes > this.budget.maxMessageBytes)
        this.stopReading(new ReadLimitError('message', this.budget.maxMessageBytes, 'a stdout line'));
    }
  }

  /** One complete stdout line; false once the child broke the stdio contract. */
  private readLine(bytes: Buffer): boolean {
    if (bytes.length > this.budget.maxMessageBytes) {
      this.stopReading(new ReadLimitError('message', this.budget.maxMessageBytes, 'a stdout line'));
      return false;
    }
    const line = bytes.toString('utf8').replace(/\r$/, '');
    if (line.trim() === '') return true;
    let message: JSONRPCMessage | undefined;
    try {
      message = asJsonRpc(this.budget.accept(line, bytes.length, 'a stdout line'));
    } catch (error) {
      if (!(error instanceof ReadLimitError)) throw error;
      this.stopReading(error);
      return false;
    }
    if (!message) {
      this.diagnostics.badStdoutLine ??= line.slice(0, 1000);
      this.fail(new Error('server wrote non-JSON-RPC output on stdout'));
      this.stopReading();
      return false;
    }
    this.diagnostics.messages++;
    try {
      this.onmessage?.(message);
    } catch (error) {
      // The client choked on what the server sent: a broken connection, not a crash of the run.
      this.fail(error instanceof Error ? error : new Error(String(error)));
      this.stopReading();
      return false;
    }
    return true;
  }

  /**
   * Read no more of stdout (what was buffered is dropped); with a bound broken, say which. The pipe
   * is closed rather than drained: a server that keeps writing gets EPIPE instead of a reader that
   * burns CPU on its behalf until the run ends.
   */
  private stopReading(error?: ReadLimitError): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.child?.stdout?.removeAllListeners('data');
    this.child?.stdout?.destroy();
    if (error) this.fail(this.budget.fail(error));
  }

  private readStderr(chunk: string): void {
    if (this.params.keepStderr && this.stderrKept.length < STDERR_KEEP_LIMIT)
      this.stderrKept += chunk.slice(0, STDERR_KEEP_LIMIT - this.stderrKept.length);
    const lines = (this.stderrPartial + chunk).split(/\r?\n/);
    this.stderrPartial = lines.pop()!.slice(0, STDERR_LINE_CHARS);
    this.keepStderrLines(lines);
  }

  private flushStderr(): void {
    this.keepStderrLines([this.stderrPartial]);
    this.stderrPartial = '';
  }

  private keepStderrLines(lines: readonly string[]): void {
    const { stderrHead, stderrTail } = this.diagnostics;
    for (const line of lines) {
      if (line.trim() === '') continue;
      const kept = line.slice(0, STDERR_LINE_CHARS);
      if (stderrHead.length < STDERR_HEAD_LINES) stderrHead.push(kept);
      stderrTail.push(kept);
      if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
    }
  }

  private fail(error: Error): void {
    this.rejectBroken(error);
  }
}

function asJsonRpc(value: unknown): JSONRPCMessage | undefined {
  return value !== null && typeof value === 'object' && (value as { jsonrpc?: unknown }).jsonrpc === '2.0'
    ? (value as JSONRPCMessage)
    : undefined;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Server processes spawned ahead of the clients, one per connection. */
export type LaunchedServers = Partial<Record<ConnectionId, ChildStdioTransport>>;

/** For a stdio target, start one server process per connection right away; HTTP needs nothing. */
export function launchServers(target: Target, connections: readonly ConnectionId[], maxMessageBytes?: number): LaunchedServers {
  const launched: LaunchedServers = {};
  if (target.kind !== 'stdio') return launched;
  for (const connection of connections) {
    const transport = new ChildStdioTransport({ command: target.command, args: target.args, env: target.env, maxMessageBytes });
    void transport.launch();
    launched[connection] = transport;
  }
  return launched;
}

export async function stopServers(launched: LaunchedServers): Promise<void> {
  await Promise.allSettled(Object.values(launched).map((transport) => transport!.close()));
}
