/**
 * What the fuzz tests share: the built server on a raw stdio pipe (exact bytes in, JSON-RPC
 * frames out, no SDK client smoothing anything over), and what counts as a clear answer.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { LEGACY_PROTOCOL_VERSION } from '../../src/contract/constants.js';
import { SERVER_BIN } from './server-harness.js';

export { stderrProblems, TOOL_ERROR_SHAPE } from '../../scripts/fault-soak.js';

export type JsonRpcId = string | number | null;

export interface JsonRpcResponse {
  jsonrpc?: unknown;
  id: JsonRpcId;
  result?: Record<string, unknown>;
  error?: { code: unknown; message: unknown; data?: unknown };
}

const RESPONSE_TIMEOUT_MS = 60_000;

/** One server process spoken to line by line. Responses are matched by id; `id: null` ones queue up in order. */
export class RawStdioServer {
  stderr = '';
  private stdoutTail = '';
  private nextId = 1;
  private readonly waiting = new Map<string, (response: JsonRpcResponse) => void>();
  private readonly anonymous: JsonRpcResponse[] = [];
  private anonymousWaiter: (() => void) | undefined;
  readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.onStdout(chunk));
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  static start(env: Record<string, string>): RawStdioServer {
    return new RawStdioServer(spawn(process.execPath, [SERVER_BIN, 'stdio'], { env, stdio: ['pipe', 'pipe', 'pipe'] }));
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Writes bytes as they are, followed by a newline unless told otherwise; waits while the pipe is full. */
  async write(data: string | Buffer, newline = true): Promise<void> {
    const ok = this.child.stdin.write(data);
    const ended = newline ? this.child.stdin.write('\n') : ok;
    if (ended) return;
    this.drained ??= new Promise<void>((resolve) =>
      this.child.stdin.once('drain', () => {
        this.drained = undefined;
        resolve();
      }),
    );
    await this.drained;
  }

  /** One wait for the pipe's `drain`, shared by every writer that found it full. */
  private drained: Promise<void> | undefined;

  /** A request with a fresh numeric id; `encode` turns the frame into its line (JSON.stringify by default). */
  async request(method: string, params?: unknown, encode: (frame: object) => string = JSON.stringify): Promise<JsonRpcResponse> {
    const id = this.nextId++;
    const answered = this.responseTo(id);
    await this.write(encode({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) }));
    return answered;
  }

  /** The response with this id, whenever it comes. */
  responseTo(id: string | number): Promise<JsonRpcResponse> {
    return new Promise((resolve, reject) => {
      const key = JSON.stringify(id);
      const timer = setTimeout(() => {
        this.waiting.delete(key);
        reject(new Error(`no response to id ${key} within ${RESPONSE_TIMEOUT_MS} ms`));
      }, RESPONSE_TIMEOUT_MS);
      this.waiting.set(key, (response) => {
        clearTimeout(timer);
        resolve(response);
      });
    });
  }

  /** The next response whose id is null (a frame the server could not attribute), waiting up to `ms`. */
  async nextAnonymous(ms = 5_000): Promise<JsonRpcResponse | undefined> {
    if (this.anonymous.length === 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        this.anonymousWaiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.anonymous.shift();
  }

  /** The legacy (2025-11-25) opening: initialize, then the initialized notification. */
  async initialize(capabilities: Record<string, unknown> = {}): Promise<JsonRpcResponse> {
    const response = await this.request('initialize', {
      protocolVersion: LEGACY_PROTOCOL_VERSION,
      capabilities,
      clientInfo: { name: 'fuzz', version: '1' },
    });
    await this.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    return response;
  }

  async close(): Promise<void> {
    if (!this.alive) return;
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await this.exited;
    clearTimeout(timer);
  }

  private onStdout(chunk: string): void {
    this.stdoutTail += chunk;
    let newline: number;
    while ((newline = this.stdoutTail.indexOf('\n')) !== -1) {
      const line = this.stdoutTail.slice(0, newline);
      this.stdoutTail = this.stdoutTail.slice(newline + 1);
      if (line.trim() === '') continue;
      const response = JSON.parse(line) as JsonRpcResponse;
      const id = response.id;
      const waiter = id === null || id === undefined ? undefined : this.waiting.get(JSON.stringify(id));
      if (waiter) {
        this.waiting.delete(JSON.stringify(id));
        waiter(response);
      } else {
        this.anonymous.push(response);
        this.anonymousWaiter?.();
        this.anonymousWaiter = undefined;
      }
    }
  }
}

/** A JSON-RPC error a client can act on: an integer code and a non-empty message. */
export function isClearJsonRpcError(response: JsonRpcResponse): boolean {
  const error = response.error;
  return error !== undefined && Number.isInteger(error.code) && typeof error.message === 'string' && error.message.trim().length > 0;
}

/** No stack frames in anything a client sees. */
export const STACK_TRACE = /\n\s+at [^\n]+:\d+:\d+/;
