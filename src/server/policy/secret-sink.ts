import { createHash, randomUUID } from 'node:crypto';
import type { Stats } from 'node:fs';
import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { STRUCTURED_SECRET_KEYS } from './sanitize.js';

/** Why a ledger cannot be used; the message names the rule, never a secret. */
export class SecretSinkError extends Error {
  constructor(
    message: string,
    /** A failed write could not be rolled back: the ledger may hold part of the record. */
    readonly ambiguous = false,
  ) {
    super(message);
    this.name = 'SecretSinkError';
  }
}

/** An exclusive reservation of one idempotency key while its creation is in flight. */
export interface LedgerClaim {
  /** The `.pending` file that marks the reservation (kept if the process dies mid-creation). */
  readonly path: string;
  release(): void;
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

export type IdempotencyLookup = { kind: 'new' } | { kind: 'replay'; result: unknown; receipt: SinkReceipt } | { kind: 'conflict' };

const OWNER_ONLY = 0o077;

const SECRET_FIELDS = new Set(STRUCTURED_SECRET_KEYS.map((name) => name.toLowerCase()));

/** The secrets inside a created result: strings under the sanitizer's secret field names, at any depth. */
export function secretValuesIn(value: unknown, found = new Set<string>()): Set<string> {
  if (value === null || typeof value !== 'object') return found;
  for (const [name, field] of Object.entries(value)) {
    if (typeof field === 'string' && SECRET_FIELDS.has(name.toLowerCase())) found.add(field);
    else secretValuesIn(field, found);
  }
  return found;
}

function checkOwnerOnly(path: string, what: string, stat: { uid: number; mode: number }): void {
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) throw new SecretSinkError(`${what} ${path} is not owned by the current user.`);
  if ((stat.mode & OWNER_ONLY) !== 0)
    throw new SecretSinkError(`${what} ${path} is readable or writable by group or others; it must be owner-only.`);
}

/**
 * An append-only JSON-lines ledger of durable secrets: owner-only file (0600) in an owner-only
 * directory (0700), never a symlink or hard link, never the log file. Each record is written
 * whole and fsynced; a failed write is truncated away so the ledger never holds half a line.
 */
export class FileSecretSink {
  readonly path: string;
  private index?: Map<string, LedgerRecord>;
  /** Ledger size when `index` was read: another process's append changes it. */
  private indexedSize = -1;
  private queue: Promise<unknown> = Promise.resolve();
  private prepared = false;

  constructor(
    path: string,
    private readonly logFile?: string,
  ) {
    if (!isAbsolute(path)) throw new SecretSinkError('The secret ledger path must be absolute.');
    this.path = resolve(path);
  }

  /**
   * At start-up: checks every rule that can be checked without creating anything (what exists
   * must already be owner-only and no symlink; what is missing must be creatable). The directory
   * and the file appear on first use. Throws SecretSinkError.
   */
  inspect(): void {
    if (process.platform === 'win32') throw new SecretSinkError('The file secret sink needs POSIX owner-only permissions.');
    if (this.logFile && safeRealpath(this.logFile) === safeRealpath(this.path)) {
      throw new SecretSinkError('The secret ledger must not be the log file.');
    }
    const dir = dirname(this.path);
    const dirStat = lstatIfExists(dir);
    if (!dirStat) {
      let ancestor = dirname(dir);
      while (!lstatIfExists(ancestor) && dirname(ancestor) !== ancestor) ancestor = dirname(ancestor);
      try {
        accessSync(ancestor, constants.W_OK | constants.X_OK);
      } catch {
        throw new SecretSinkError(`Cannot create ${dir}: ${ancestor} is not writable.`);
      }
      return;
    }
    if (dirStat.isSymbolicLink() || !dirStat.isDirectory()) throw new SecretSinkError(`${dir} must be a real directory, not a symlink.`);
    checkOwnerOnly(dir, 'Directory', dirStat);
    const fileStat = lstatIfExists(this.path);
    if (!fileStat) return;
    if (fileStat.isSymbolicLink()) throw new SecretSinkError(`${this.path} is a symlink; the secret ledger refuses symlinks.`);
    if (!fileStat.isFile()) throw new SecretSinkError(`${this.path} is not a regular file.`);
    if (fileStat.nlink > 1) throw new SecretSinkError(`${this.path} has other hard links.`);
    checkOwnerOnly(this.path, 'File', fileStat);
    this.prepared = true; // nothing left to create
  }

  /** Creates the directory and file if needed and checks every rule (once; on first use); throws SecretSinkError. */
  prepare(): void {
    if (this.prepared) return;
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
    this.prepared = true;
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
    const size = currentSize(this.path);
    if (this.index && size === this.indexedSize) return this.index;
    const index = new Map<string, LedgerRecord>();
    let text = '';
    try {
      text = readFileSync(this.path, 'utf8');
    } catch {
      // A missing ledger is an empty one; prepare() creates it.
    }
    this.indexedSize = size;
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

  /** Every secret the ledger holds. */
  knownSecrets(): string[] {
    const found = new Set<string>();
    for (const record of this.load().values()) secretValuesIn(record.result, found);
    return [...found];
  }

  /** Has this tool already created something for this idempotency key? */
  lookup(tool: string, key: string, fingerprint: string): IdempotencyLookup {
    const record = this.load().get(`${tool}\0${key}`);
    if (!record) return { kind: 'new' };
    if (record.idempotency.fingerprint !== fingerprint) return { kind: 'conflict' };
    return { kind: 'replay', result: record.result, receipt: { type: 'file', path: this.path, recordId: record.recordId } };
  }

  /**
   * Reserves (tool, key) until `release()`: a `<ledger>.<hash>.pending` file created exclusively,
   * so concurrent calls in this or another process cannot both create. Returns undefined when the
   * key is already reserved. The file outlives a crash on purpose: the outcome is then unknown.
   */
  claim(tool: string, key: string): LedgerClaim | undefined {
    this.prepare();
    const path = this.pendingPath(tool, key);
    let fd: number;
    try {
      fd = openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return undefined;
      throw new SecretSinkError(`Cannot reserve the idempotency key next to the secret ledger (${code ?? 'error'}).`);
    }
    try {
      writeSync(fd, `${JSON.stringify({ ts: new Date().toISOString(), tool, pid: process.pid })}\n`);
    } finally {
      closeSync(fd);
    }
    let released = false;
    return {
      path,
      release: () => {
        if (released) return;
        released = true;
        try {
          unlinkSync(path);
        } catch {
          // Already gone: nothing to release.
        }
      },
    };
  }

  /** Where the reservation of (tool, key) lives; the name reveals neither. */
  pendingPath(tool: string, key: string): string {
    const digest = createHash('sha256').update(`${tool}\0${key}`).digest('hex').slice(0, 32);
    return `${this.path}.${digest}.pending`;
  }

  /** Appends one record (serialized with other appends of this process). */
  append(tool: string, idempotency: { key: string; fingerprint: string }, result: unknown): Promise<SinkReceipt> {
    const run = this.queue.then(() => this.appendNow(tool, idempotency, result));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private endsWithNewline(size: number): boolean {
    const fd = openSync(this.path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      return last[0] === 0x0a;
    } finally {
      closeSync(fd);
    }
  }

  private appendNow(tool: string, idempotency: { key: string; fingerprint: string }, result: unknown): SinkReceipt {
    const record: LedgerRecord = {
      ts: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      tool,
      recordId: randomUUID(),
      idempotency,
      result,
    };
    this.prepare();
    const fd = this.open();
    const before = fstatSync(fd).size;
    // A crash mid-write can leave a torn last line: end it first (never truncate: it may hold a secret).
    const separator = before > 0 && !this.endsWithNewline(before) ? '\n' : '';
    try {
      writeSync(fd, `${separator}${JSON.stringify(record)}\n`);
      fsyncSync(fd);
    } catch {
      try {
        ftruncateSync(fd, before);
        fsyncSync(fd);
      } catch {
        throw new SecretSinkError('Writing the secret ledger failed and could not be rolled back; the record may be partial.', true);
      }
      throw new SecretSinkError('Writing the secret ledger failed.');
    } finally {
      closeSync(fd);
    }
    this.load().set(`${tool}\0${idempotency.key}`, record);
    return { type: 'file', path: this.path, recordId: record.recordId };
  }
}

function lstatIfExists(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function currentSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
}

function safeRealpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
