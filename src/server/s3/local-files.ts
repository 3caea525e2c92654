/**
 * Local files for `s3_put_object.filePath` (read) and `s3_get_object.saveToPath` (write).
 *
 * Rules: nothing happens unless local files are allowed (`B2_ALLOW_LOCAL_FILES`). Every path's
 * real path — symlinks resolved — must lie inside the real path of the one file root
 * (`B2_FILE_ROOT`, by default `~/b2-mcp-files`, created owner-only on first use), which is never
 * a home directory or a system path. The server's own files (the secret ledger and its
 * reservations, the log file) are refused in every case. A save never creates what something
 * loads or runs by itself, and its files are owner-only and not executable; an upload never
 * carries a configured secret or an MCP client's configuration (`local-file-rules.ts`).
 *
 * Every decision is taken on what was actually opened, never on a path checked beforehand: a
 * read opens first and then checks the descriptor's real path (`/proc/self/fd`) and identity,
 * so a symlink swapped in between cannot carry it outside. A save never replaces anything: the
 * target is created exclusively (`O_EXCL`), the body streams into a temporary sibling, and the
 * temporary file is renamed over the placeholder only when the whole body arrived, so a refused,
 * failed, cancelled or stalled download leaves nothing behind.
 */
import { randomBytes } from 'node:crypto';
import { constants, createWriteStream, type Stats } from 'node:fs';
import { lstat, mkdir, open, readlink, realpath, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ToolError } from '../errors.js';
import { autorunReason, DEFAULT_FILE_ROOT, fileRootProblem, holdsSecret, isClientConfigName, isInside } from './local-file-rules.js';

export interface LocalFilePolicy {
  allowLocalFiles: boolean;
  /** The one directory local files are read from and saved to (`B2_FILE_ROOT` or the default). */
  fileRoot: string;
  /** Create `fileRoot` (owner-only) when it is missing: the default folder is, an operator's root is not. */
  createFileRoot?: boolean;
  /** The secret ledger: never read or written, nor its `.pending` reservations. */
  secretSinkFile?: string | undefined;
  /** The server's log file: never read or written. */
  logFile?: string | undefined;
}

/** Default of `B2_S3_SAVE_TO_PATH_IDLE_TIMEOUT_MS`: a download that sends nothing this long is abandoned. */
export const SAVE_IDLE_TIMEOUT_MS = 60_000;

/** Where the kernel shows what an open descriptor refers to (Linux). */
const DESCRIPTOR_LINKS = '/proc/self/fd';

const refused = (message: string) => new ToolError(403, 'local_file_refused', message);

function checkAllowed(policy: LocalFilePolicy, argument: string): void {
  if (!policy.allowLocalFiles) {
    throw refused(
      `${argument} is refused: this server does not allow local file access (B2_ALLOW_LOCAL_FILES is not true). Nothing was read or written.`,
    );
  }
}

/** Absolute paths as given; relative ones against the root. */
const absolute = (policy: LocalFilePolicy, path: string): string => resolve(policy.fileRoot, path);

/** The root's real path, created first when it is the default folder; never a home or system path. */
async function realRoot(policy: LocalFilePolicy): Promise<string> {
  if (policy.createFileRoot) await mkdir(policy.fileRoot, { recursive: true, mode: 0o700 }).catch(() => undefined);
  const real = await realpath(policy.fileRoot).catch(() => {
    throw new ToolError(500, 'invalid_file_root', 'B2_FILE_ROOT does not exist or cannot be read; fix the server configuration.');
  });
  const problem = fileRootProblem(real, homedir());
  if (problem) {
    throw new ToolError(
      500,
      'invalid_file_root',
      `B2_FILE_ROOT ${JSON.stringify(real)} ${problem}; local files need a folder of their own (the default is ${DEFAULT_FILE_ROOT}). Fix the server configuration.`,
    );
  }
  return real;
}

/** Real paths of the server's own files (as configured when they do not exist yet). */
async function serverFiles(policy: LocalFilePolicy): Promise<{ ledger?: string; log?: string }> {
  const real = (path: string | undefined) => (path === undefined ? undefined : realpath(path).catch(() => resolve(path)));
  const [ledger, log] = await Promise.all([real(policy.secretSinkFile), real(policy.logFile)]);
  return { ...(ledger !== undefined && { ledger }), ...(log !== undefined && { log }) };
}

/** A checked place: the root's real path and the server files to stay away from. */
interface Fence {
  root: string;
  ledger?: string;
  log?: string;
}

async function fenceOf(policy: LocalFilePolicy): Promise<Fence> {
  return { root: await realRoot(policy), ...(await serverFiles(policy)) };
}

function isServerFile(fence: Fence, path: string): boolean {
  if (path === fence.ledger || path === fence.log) return true;
  // The ledger's reservations: `<ledger>.<hash>.pending`.
  return fence.ledger !== undefined && path.startsWith(`${fence.ledger}.`) && path.endsWith('.pending');
}

/** Refuses `path` as named, before it is looked at, when it is one of the server's own files. */
function checkNamed(fence: Fence, path: string, shown: string, argument: string): void {
  if (isServerFile(fence, path)) {
    throw refused(
      `${argument} ${JSON.stringify(shown)} is one of this server's own files (secret ledger or log); those are never read or written. Nothing was read or written.`,
    );
  }
}

/** Refuses the real path `real` (and the `given` absolute path it came from) unless it lies inside the root. */
function checkPlace(fence: Fence, real: string, given: string, shown: string, argument: string): void {
  checkNamed(fence, given, shown, argument);
  checkNamed(fence, real, shown, argument);
  if (!isInside(fence.root, real)) {
    throw refused(
      `${argument} ${JSON.stringify(shown)} resolves outside this server's file folder ${JSON.stringify(fence.root)} (B2_FILE_ROOT); symlinks count by their target. Use a path inside that folder (a relative path is taken inside it). Nothing was read or written.`,
    );
  }
}

/** A destination must also be nothing that something loads or runs by itself. */
function checkDestination(fence: Fence, real: string, given: string, shown: string): void {
  checkPlace(fence, real, given, shown, 'saveToPath');
  const reason = autorunReason(given) ?? autorunReason(real);
  if (reason) {
    throw refused(
      `saveToPath ${JSON.stringify(shown)} ${reason}; this server never saves a file that something loads or runs by itself. Choose another name or folder inside B2_FILE_ROOT. Nothing was downloaded.`,
    );
  }
}

/** An upload never carries an MCP client's configuration (named so as given or by its real path)... */
function checkNotClientConfig(path: string, shown: string, argument: string): void {
  if (isClientConfigName(path)) {
    throw refused(
      `${argument} ${JSON.stringify(shown)} is an MCP client's configuration file, which holds the keys of the servers it starts; it is never uploaded. Nothing was sent.`,
    );
  }
}

/** ...nor a secret this server is configured with (the message never shows it). */
function checkNoSecret(bytes: Buffer, secrets: readonly string[], shown: string, argument: string): void {
  if (holdsSecret(bytes, secrets)) {
    throw refused(
      `${argument} ${JSON.stringify(shown)} holds this server's B2 key or another secret it is configured with; such a file is never uploaded. Nothing was sent.`,
    );
  }
}

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;
const LOCAL_WRITE_ERRORS = new Set([
  'EACCES',
  'EPERM',
  'ENOSPC',
  'EDQUOT',
  'EROFS',
  'EISDIR',
  'ENOTDIR',
  'EEXIST',
  'EMFILE',
  'ENFILE',
  'EIO',
]);

const sameFile = (a: Stats, b: Stats) => a.dev === b.dev && a.ino === b.ino;

/**
 * The real path of what `handle` refers to: the kernel's own answer where `/proc/self/fd` exists;
 * elsewhere `path` resolved again after the open, accepted only if it is the very file opened.
 */
export async function openedRealPath(handle: FileHandle, path: string, links = DESCRIPTOR_LINKS): Promise<string | undefined> {
  const shown = await readlink(join(links, String(handle.fd))).catch(() => undefined);
  if (shown !== undefined) return isAbsolute(shown) ? shown : undefined;
  const real = await realpath(path).catch(() => undefined);
  if (real === undefined) return undefined;
  const [opened, current] = await Promise.all([handle.stat(), stat(real).catch(() => undefined)]);
  return current && sameFile(opened, current) ? real : undefined;
}

/**
 * Read a local file of at most `maxBytes` to upload it; refused when it holds one of `secrets`
 * (the keys this server or the caller uses) or is an MCP client's configuration.
 */
export async function readLocalFile(
  policy: LocalFilePolicy,
  path: string,
  maxBytes: number,
  secrets: readonly string[],
  argument = 'filePath',
): Promise<Buffer> {
  checkAllowed(policy, argument);
  const given = absolute(policy, path);
  const fence = await fenceOf(policy);
  checkNamed(fence, given, path, argument);
  // A first look keeps devices and FIFOs outside the policy from being opened at all; the
  // decision that counts is taken again on the descriptor below.
  const before = await realpath(given).catch((error: unknown) => {
    if (code(error) === 'ENOENT') throw new ToolError(404, 'file_not_found', `${argument} ${JSON.stringify(path)} does not exist.`);
    throw new ToolError(400, 'invalid_path', `${argument} ${JSON.stringify(path)} cannot be read (${code(error) ?? 'error'}).`);
  });
  checkPlace(fence, before, given, path, argument);
  checkNotClientConfig(given, path, argument);
  checkNotClientConfig(before, path, argument);
  let handle: FileHandle;
  try {
    // Non-blocking, so a FIFO swapped in cannot hang the open.
    handle = await open(before, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (code(error) === 'ENOENT') throw new ToolError(404, 'file_not_found', `${argument} ${JSON.stringify(path)} does not exist.`);
    if (code(error) === 'ELOOP') throw refused(`${argument} ${JSON.stringify(path)} changed while it was being opened. Nothing was read.`);
    throw new ToolError(400, 'invalid_path', `${argument} ${JSON.stringify(path)} cannot be read (${code(error) ?? 'error'}).`);
  }
  try {
    const real = await openedRealPath(handle, before);
    if (real === undefined) throw refused(`${argument} ${JSON.stringify(path)} changed while it was being opened. Nothing was read.`);
    checkPlace(fence, real, given, path, argument);
    checkNotClientConfig(real, path, argument);
    const info = await handle.stat();
    if (!info.isFile()) throw new ToolError(400, 'invalid_path', `${argument} ${JSON.stringify(path)} is not a regular file.`);
    await checkNotServerFile(fence, info, path, argument);
    if (info.size > maxBytes) {
      throw new ToolError(
        413,
        'file_too_large',
        `${argument} ${JSON.stringify(path)} is ${info.size} bytes; the limit is ${maxBytes} bytes.`,
      );
    }
    // Read through the one handle with a hard cap, in case the file grows after the check.
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes)
        throw new ToolError(413, 'file_too_large', `${argument} ${JSON.stringify(path)} is larger than ${maxBytes} bytes.`);
    }
    const bytes = buffer.subarray(0, length);
    checkNoSecret(bytes, secrets, path, argument);
    return bytes;
  } finally {
    await handle.close();
  }
}

/** The ledger or log file reached under another name (a hard link) is still the server's own file. */
async function checkNotServerFile(fence: Fence, opened: Stats, shown: string, argument: string): Promise<void> {
  for (const own of [fence.ledger, fence.log]) {
    const info = own === undefined ? undefined : await stat(own).catch(() => undefined);
    if (info && sameFile(info, opened)) {
      throw refused(
        `${argument} ${JSON.stringify(shown)} is one of this server's own files (secret ledger or log); those are never read or written. Nothing was read or written.`,
      );
    }
  }
}

/** A checked destination: the real path the new file will have. */
export interface LocalTarget {
  path: string;
  /** What the caller asked for, for messages. */
  given: string;
  fence: Fence;
}

function exists(argument: string, path: string): ToolError {
  return new ToolError(
    409,
    'local_file_exists',
    `${argument} ${JSON.stringify(path)} already exists; this server never overwrites or follows an existing local path. Choose a new path that does not exist yet. Nothing was downloaded.`,
  );
}

/**
 * Check a destination before anything is downloaded: it must not exist yet (not even as a
 * dangling symlink), and it is placed under the real path of its nearest existing ancestor.
 */
export async function prepareLocalTarget(policy: LocalFilePolicy, path: string): Promise<LocalTarget> {
  const argument = 'saveToPath';
  checkAllowed(policy, argument);
  const given = absolute(policy, path);
  const fence = await fenceOf(policy);
  const present = await lstat(given).then(
    () => true,
    (error: unknown) => {
      if (code(error) === 'ENOENT') return false;
      throw new ToolError(400, 'invalid_path', `${argument} ${JSON.stringify(path)} cannot be used (${code(error) ?? 'error'}).`);
    },
  );
  let ancestor = dirname(given);
  const missing: string[] = [basename(given)];
  for (;;) {
    try {
      const real = await realpath(ancestor);
      if (!(await stat(real)).isDirectory())
        throw new ToolError(400, 'invalid_path', `${argument} ${JSON.stringify(path)} has a parent that is not a directory.`);
      const target = join(real, ...missing.reverse());
      checkDestination(fence, target, given, path);
      if (present) throw exists(argument, path);
      return { path: target, given: path, fence };
    } catch (error) {
      if (error instanceof ToolError) throw error;
      if (code(error) !== 'ENOENT')
        throw new ToolError(400, 'invalid_path', `${argument} ${JSON.stringify(path)} cannot be used (${code(error) ?? 'error'}).`);
      const parent = dirname(ancestor);
      if (parent === ancestor)
        throw new ToolError(400, 'invalid_path', `${argument} ${JSON.stringify(path)} has no existing ancestor directory.`);
      missing.push(basename(ancestor));
      ancestor = parent;
    }
  }
}

/**
 * Create the target's missing parent directories one at a time, checking each real path, so a
 * directory swapped for a symlink since the check cannot carry the write outside the root.
 */
async function makeParents(target: LocalTarget): Promise<void> {
  const missing: string[] = [];
  let dir = dirname(target.path);
  while (
    !(await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  ) {
    missing.push(dir);
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const path of missing.reverse()) {
    await mkdir(path, { mode: 0o700 }).catch((error: unknown) => {
      if (code(error) !== 'EEXIST') throw error;
    });
    checkDestination(target.fence, await realpath(path), path, target.given);
  }
}

/** Creates `path` exclusively and checks that the new file is where it was meant to be. */
async function createExclusive(path: string, expectedDir: string, target: LocalTarget): Promise<{ handle: FileHandle; info: Stats }> {
  let handle: FileHandle;
  try {
    // Owner-only and never executable, whatever the umask allows.
    handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    if (code(error) === 'EEXIST') throw exists('saveToPath', target.given);
    throw error;
  }
  const info = await handle.stat();
  const real = await openedRealPath(handle, path);
  if (real === undefined || dirname(real) !== expectedDir) {
    await handle.close();
    if (real !== undefined) await unlink(real).catch(() => undefined);
    throw refused(`saveToPath ${JSON.stringify(target.given)} changed while the file was being created. Nothing was saved.`);
  }
  return { handle, info };
}

/** Removes `path` only if it is still the file this server created there. */
async function removeOwn(path: string, own: Stats | undefined): Promise<void> {
  if (!own) return;
  const current = await lstat(path).catch(() => undefined);
  if (current && sameFile(current, own)) await unlink(path).catch(() => undefined);
}

/** Passes chunks through and fails the stream when none arrives for `ms`. */
function idleWatch(ms: number): Transform {
  let timer: NodeJS.Timeout | undefined;
  const watch = new Transform({
    transform(chunk, _encoding, done) {
      arm();
      done(null, chunk);
    },
    flush(done) {
      clearTimeout(timer);
      done();
    },
    destroy(error, done) {
      clearTimeout(timer);
      done(error);
    },
  });
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      watch.destroy(new ToolError(504, 'download_stalled', `The download sent no data for ${ms} ms and was abandoned; nothing was saved.`));
    }, ms);
  };
  arm();
  return watch;
}

/**
 * Stream `source` into the checked target: the target is reserved exclusively, the body goes to
 * a temporary sibling, renamed over the reservation only when complete. Returns the bytes written.
 */
export async function saveStream(
  source: Readable,
  target: LocalTarget,
  options: { idleTimeoutMs: number; signal?: AbortSignal },
): Promise<number> {
  const dir = dirname(target.path);
  const temporary = join(dir, `.${basename(target.path)}.${randomBytes(6).toString('hex')}.part`);
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  let placeholder: Stats | undefined;
  let partial: Stats | undefined;
  try {
    await makeParents(target);
    const reserved = await createExclusive(target.path, dir, target);
    placeholder = reserved.info;
    await reserved.handle.close();
    const body = await createExclusive(temporary, dir, target);
    partial = body.info;
    await pipeline(source, idleWatch(options.idleTimeoutMs), counter, createWriteStream('', { fd: body.handle }), {
      ...(options.signal ? { signal: options.signal } : {}),
    });
    await rename(temporary, target.path);
    return bytes;
  } catch (error) {
    source.destroy();
    await removeOwn(temporary, partial);
    await removeOwn(target.path, placeholder);
    if (error instanceof ToolError) throw error;
    if ((error as Error).name === 'AbortError') throw new ToolError(499, 'cancelled', 'The download was cancelled; nothing was saved.');
    if (LOCAL_WRITE_ERRORS.has(code(error) ?? ''))
      throw new ToolError(
        500,
        'local_write_failed',
        `Could not write ${JSON.stringify(target.given)} (${code(error)}); nothing was saved.`,
      );
    throw new ToolError(502, 'download_failed', `The download failed before it finished (${(error as Error).message}); nothing was saved.`);
  }
}
