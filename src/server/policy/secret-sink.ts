import { randomUUID } from 'node:crypto';
import { closeSync, constants, fstatSync, fsyncSync, ftruncateSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, writeSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';

/** Why a ledger cannot be used; the message names the rule, never a secret. */
export class SecretSinkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretSinkError';
  }
}

export interface SinkReceipt {
  type: 'file';
  path: string;
  recordId: string;
}

interface LedgerRecord {
  ts: string;
  tool: string;
  recordId: string;
  idempotency: { key: string; fingerprint: string };
  result: unknown;
}

export type IdempotencyLookup =
  | { kind: 'new' }
  | { kind: 'replay'; result: unknown; receipt: SinkReceipt }
  | { kind: 'conflict' };

const OWNER_ONLY = 0o077;

function checkOwnerOnly(path: string, what: string, stat: { uid: number; mode: number }): void {
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) throw new SecretSinkError(`${what} ${path} is not owned by the current user.`);
  if ((stat.mode & OWNER_ONLY) !== 0) throw new SecretSinkError(`${what} ${path} is readable or writable by group or others; it must be owner-only.`);
}

/**
 * An append-only JSON-lines ledger of durable secrets: owner-only file (0600) in an owner-only
 * directory (0700), never a symlink or hard link, never the log file. Each record is written
 * whole and fsynced; a failed write is truncated away so the ledger never holds half a line.
 */
export class FileSecretSink {
  readonly path: string;
  private index?: Map<string, LedgerRecord>;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(path: string, private readonly logFile?: string) {
    if (!isAbsolute(path)) throw new SecretSinkError('The secret ledger path must be absolute.');
    this.path = resolve(path);
  }

  /** Creates the directory and file if needed and checks every rule; throws SecretSinkError. */
  prepare(): void {
    if (process.platform === 'win32') throw new SecretSinkError('The file secret sink needs POSIX owner-only permissions.');
    const dir = dirname(this.path);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const dirStat = lstatSync(dir);
    if (dirStat.isSymbolicLink() || !dirStat.isDirectory()) throw new SecretSinkError(`${dir} must be a real directory, not a symlink.`);
    checkOwnerOnly(dir, 'Directory', dirStat);
    if (this.logFile && safeRealpath(this.logFile) === safeRealpath(this.path)) {
      throw new SecretSinkError('The secret ledger must not be the log file.');
    }
    closeSync(this.open());
  }

  private open(): number {
    let fd: number;
    try {
      fd = openSync(this.path, constants.O_CREAT | constants.O_APPEND | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new SecretSinkError(`${this.path} is a symlink; the secret ledger refuses symlinks.`);
      throw new SecretSinkError(`Cannot open the secret ledger ${this.path} (${code ?? 'error'}).`);
    }
    const stat = fstatSync(fd);
    try {
      if (!stat.isFile()) throw new SecretSinkError(`${this.path} is not a regular file.`);
      if (stat.nlink > 1) throw new SecretSinkError(`${this.path} has other hard links.`);
      checkOwnerOnly(this.path, 'File', stat);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return fd;
  }

  private load(): Map<string, LedgerRecord> {
    if (this.index) return this.index;
    const index = new Map<string, LedgerRecord>();
    let text = '';
    try {
      text = readFileSync(this.path, 'utf8');
    } catch {
      // A missing ledger is an empty one; prepare() creates it.
    }
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        const record = JSON.parse(line) as LedgerRecord;
        if (record.idempotency?.key) index.set(`${record.tool}\0${record.idempotency.key}`, record);
      } catch {
        // A torn line from a crash is skipped; it never held a committed record.
      }
    }
    this.index = index;
    return index;
  }

  /** Has this tool already created something for this idempotency key? */
  lookup(tool: string, key: string, fingerprint: string): IdempotencyLookup {
    const record = this.load().get(`${tool}\0${key}`);
    if (!record) return { kind: 'new' };
    if (record.idempotency.fingerprint !== fingerprint) return { kind: 'conflict' };
    return { kind: 'replay', result: record.result, receipt: { type: 'file', path: this.path, recordId: record.recordId } };
  }

  /** Appends one record (serialized with other appends of this process). */
  append(tool: string, idempotency: { key: string; fingerprint: string }, result: unknown): Promise<SinkReceipt> {
    const run = this.queue.then(() => this.appendNow(tool, idempotency, result));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private appendNow(tool: string, idempotency: { key: string; fingerprint: string }, result: unknown): SinkReceipt {
    const record: LedgerRecord = { ts: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), tool, recordId: randomUUID(), idempotency, result };
    const fd = this.open();
    const before = fstatSync(fd).size;
    try {
      writeSync(fd, `${JSON.stringify(record)}\n`);
      fsyncSync(fd);
    } catch {
      try {
        ftruncateSync(fd, before);
        fsyncSync(fd);
      } catch {
        throw new SecretSinkError('Writing the secret ledger failed and could not be rolled back; the record may be partial.');
      }
      throw new SecretSinkError('Writing the secret ledger failed.');
    } finally {
      closeSync(fd);
    }
    this.load().set(`${tool}\0${idempotency.key}`, record);
    return { type: 'file', path: this.path, recordId: record.recordId };
  }
}

function safeRealpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
