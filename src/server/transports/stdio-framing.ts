/**
 * Newline-delimited JSON-RPC over stdin/stdout that answers every frame it cannot pass on.
 *
 * The SDK's stdio transport drops a line that is not JSON without a word, drops a JSON value that
 * is not a JSON-RPC message after reporting it to `onerror` only, and closes the connection
 * for good when one frame grows past its 10 MiB buffer. A client then waits forever for
 * its answer, or loses the server. Here instead:
 * - a line that is not JSON gets `-32700` (id null);
 * - a JSON value that is not a JSON-RPC message, or a batch (MCP has none), gets `-32600`, with
 *   the request's id when one can be read;
 * - a frame longer than the limit is skipped up to its newline and gets `-32600`; the connection
 *   stays up;
 * - a malformed *response* (an object with `result`/`error` and no `method`) is only reported,
 *   since JSON-RPC never answers responses;
 * - a call whose arguments carry a `__proto__` key gets `-32602` (see argument-keys.ts).
 * Blank lines are ignored.
 */
import type { Readable, Writable } from 'node:stream';
import { parseJSONRPCMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';
import { argumentKeyRefusal, INVALID_PARAMS } from './argument-keys.js';

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const NEWLINE = 0x0a;

type FrameId = string | number | null;

/** Why a frame was answered with an error instead of being handled (logged, without content). */
export interface FrameRejection {
  code: typeof PARSE_ERROR | typeof INVALID_REQUEST | typeof INVALID_PARAMS;
  reason: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function readableId(value: unknown): FrameId {
  if (!isObject(value)) return null;
  const { id } = value;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

export class AnsweringStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Told about every rejected frame (for logs). */
  onreject?: (rejection: FrameRejection) => void;

  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Inside a frame that outgrew the limit: drop bytes until its newline. */
  private skipping = false;
  private started = false;
  private closed = false;
  /** Answers written while stdout's buffer was full, waiting for its `drain`. */
  private drainWaiters: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    private readonly maxFrameBytes: number = STDIO_DEFAULT_MAX_BUFFER_SIZE,
  ) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('AnsweringStdioTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStdinError);
    this.stdin.on('end', this.onStdinEnd);
    this.stdin.on('close', this.onStdinEnd);
    this.stdout.on('error', this.onStdoutError);
    if (this.stdin.readableEnded || this.stdin.destroyed) setImmediate(this.onStdinEnd);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStdinError);
    this.stdin.off('end', this.onStdinEnd);
    this.stdin.off('close', this.onStdinEnd);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.pending = [];
    this.pendingBytes = 0;
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer): void => {
    let start = 0;
    for (let newline = chunk.indexOf(NEWLINE); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
      const tail = chunk.subarray(start, newline);
      start = newline + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      const line = this.pending.length === 0 ? tail : Buffer.concat([...this.pending, tail]);
      this.pending = [];
      this.pendingBytes = 0;
      if (line.length > this.maxFrameBytes) this.oversized();
      else this.handleLine(line);
      if (this.closed) return;
    }
    const rest = chunk.subarray(start);
    if (this.skipping || rest.length === 0) return;
    this.pending.push(rest);
    this.pendingBytes += rest.length;
    if (this.pendingBytes > this.maxFrameBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      this.skipping = true;
      this.oversized();
    }
  };

  private oversized(): void {
    this.reject(null, { code: INVALID_REQUEST, reason: `Invalid Request: the frame exceeds ${this.maxFrameBytes} bytes and was skipped` });
  }

  private handleLine(raw: Buffer): void {
    const text = raw.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.reject(null, { code: PARSE_ERROR, reason: 'Parse error: the line is not valid JSON' });
      return;
    }
    if (Array.isArray(value)) {
      this.reject(null, {
        code: INVALID_REQUEST,
        reason: 'Invalid Request: JSON-RPC batches are not part of MCP; send one message per line',
      });
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      const isResponse = isObject(value) && !('method' in value) && ('result' in value || 'error' in value);
      const rejection: FrameRejection = {
        code: INVALID_REQUEST,
        reason: 'Invalid Request: not a JSON-RPC 2.0 message (jsonrpc "2.0", an integer or string id, a string method, object params)',
      };
      if (isResponse) this.onreject?.(rejection);
      else this.reject(readableId(value), rejection);
      return;
    }
    const refusal = argumentKeyRefusal(message);
    if (refusal) {
      this.reject(refusal.id, { code: INVALID_PARAMS, reason: refusal.message });
      return;
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  private reject(id: FrameId, rejection: FrameRejection): void {
    this.onreject?.(rejection);
    const frame = { jsonrpc: '2.0', id, error: { code: rejection.code, message: rejection.reason } };
    this.write(`${JSON.stringify(frame)}\n`).catch((error: unknown) => this.onerror?.(error as Error));
  }

  /**
   * Writes one line; resolves once stdout has taken it (after `drain` when its buffer is full).
   * All writers waiting for the same drain share one listener, however many answers are pending.
   */
  private write(line: string): Promise<void> {
    if (this.closed) return Promise.reject(new Error('stdio transport is closed'));
    if (this.stdout.write(line)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.drainWaiters.push({ resolve, reject });
      if (this.drainWaiters.length === 1) this.stdout.once('drain', this.onDrain);
    });
  }

  private readonly onDrain = (): void => {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const waiter of waiters) waiter.resolve();
  };

  private readonly onStdinError = (error: Error): void => this.onerror?.(error);

  private readonly onStdinEnd = (): void => void this.close();

  private readonly onStdoutError = (error: Error): void => {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    this.stdout.off('drain', this.onDrain);
    for (const waiter of waiters) waiter.reject(error);
    if (this.closed) return;
    this.onerror?.(error);
    void this.close();
  };
}
