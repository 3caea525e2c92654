/**
 * Local files for `s3_put_object.filePath` (read) and `s3_get_object.saveToPath` (write).
 *
 * Rules: nothing happens unless local files are allowed (`B2_ALLOW_LOCAL_FILES`); with a root
 * (`B2_FILE_ROOT`) the real path — symlinks resolved, and for a new file the real path of its
 * nearest existing ancestor — must lie inside the root's real path. Writes stream into a temporary
 * file beside the target and are renamed into place only when the whole body arrived, so a
 * refused, failed, cancelled or stalled download leaves nothing behind.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { lstat, mkdir, open, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ToolError } from '../tools/definition.js';

export interface LocalFilePolicy {
  allowLocalFiles: boolean;
  fileRoot?: string | undefined;
}

/** Default of `B2_S3_SAVE_TO_PATH_IDLE_TIMEOUT_MS`: a download that sends nothing this long is abandoned. */
export const SAVE_IDLE_TIMEOUT_MS = 60_000;

const refused = (message: string) => new ToolError(403, 'local_file_refused', message);

function checkAllowed(policy: LocalFilePolicy, argument: string): void {
  if (!policy.allowLocalFiles) {
    throw refused(`${argument} is refused: this server does not allow local file access (B2_ALLOW_LOCAL_FILES is not true). Nothing was read or written.`);
  }
}

/** Absolute paths as given; relative ones only against the root. */
function absolute(policy: LocalFilePolicy, path: string, argument: string): string {
  if (isAbsolute(path)) return resolve(path);
  if (policy.fileRoot) return resolve(policy.fileRoot, path);
  throw new ToolError(400, 'invalid_path', `${argument} must be an absolute path (relative paths are allowed only when B2_FILE_ROOT is set).`);
}

async function realRoot(policy: LocalFilePolicy): Promise<string | undefined> {
  if (!policy.fileRoot) return undefined;
  try {
    return await realpath(policy.fileRoot);
  } catch {
    throw new ToolError(500, 'invalid_file_root', 'B2_FILE_ROOT does not exist or cannot be read; fix the server configuration.');
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

function checkInside(root: string | undefined, real: string, given: string, argument: string): void {
  if (root !== undefined && !inside(root, real)) {
    throw refused(`${argument} ${JSON.stringify(given)} resolves outside the directory this server allows (B2_FILE_ROOT); symlinks count by their target. Nothing was read or written.`);
  }
}

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;
const LOCAL_WRITE_ERRORS = new Set(['EACCES', 'EPERM', 'ENOSPC', 'EDQUOT', 'EROFS', 'EISDIR', 'ENOTDIR', 'EEXIST', 'EMFILE', 'ENFILE', 'EIO']);

/** Read a local file of at most `maxBytes` for upload. */
export async function readLocalFile(policy: LocalFilePolicy, path: string, maxBytes: number, argument = 'filePath'): Promise<Buffer> {
  checkAllowed(policy, argument);
  const given = absolute(policy, path, argument);
  const root = await realRoot(policy);
  let real: string;
  try {
    real = await realpath(given);
  } catch (error) {
    if (code(error) === 'ENOENT') throw new ToolError(404, 'file_not_found', `${argument} ${JSON.stringify(path)} does not exist.`);
    throw new ToolError(400, 'invalid_path', `${argument} ${JSON.stringify(path)} cannot be read (${code(error) ?? 'error'}).`);
  }
  checkInside(root, real, path, argument);
  const info = await stat(real);
  if (!info.isFile()) throw new ToolError(400, 'invalid_path', `${argument} ${JSON.stringify(path)} is not a regular file.`);
  if (info.size > maxBytes) {
    throw new ToolError(413, 'file_too_large', `${argument} ${JSON.stringify(path)} is ${info.size} bytes; the limit is ${maxBytes} bytes.`);
  }
  // Read through one handle with a hard cap, in case the file grows after the check.
  const handle = await open(real, 'r');
  try {
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) throw new ToolError(413, 'file_too_large', `${argument} ${JSON.stringify(path)} is larger than ${maxBytes} bytes.`);
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

/** A checked destination: the real path the file will have. */
export interface LocalTarget {
  path: string;
  /** The real path of B2_FILE_ROOT, when one is set (re-checked after directories are made). */
  root?: string;
  /** What the caller asked for, for messages. */
  given: string;
}

/**
 * Check a destination before anything is downloaded. An existing target is followed to its real
 * path; a new one is placed under the real path of its nearest existing ancestor.
 */
export async function prepareLocalTarget(policy: LocalFilePolicy, path: string, argument = 'saveToPath'): Promise<LocalTarget> {
  checkAllowed(policy, argument);
  const given = absolute(policy, path, argument);
  const root = await realRoot(policy);
  let existing: string | undefined;
  try {
    existing = await realpath(given);
  } catch (error) {
    if (code(error) !== 'ENOENT') throw new ToolError(400, 'invalid_path', `${argument} ${JSON.stringify(path)} cannot be used (${code(error) ?? 'error'}).`);
  }
  if (existing !== undefined) {
    checkInside(root, existing, path, argument);
    if (!(await stat(existing)).isFile()) throw new ToolError(400, 'invalid_path', `${argument} ${JSON.stringify(path)} exists and is not a regular file.`);
    return { path: existing, given: path, ...(root ? { root } : {}) };
  }
  // A dangling symlink would be followed by the write; refuse it rather than guess its target.
  if (await lstat(given).then((s) => s.isSymbolicLink(), () => false)) {
    throw refused(`${argument} ${JSON.stringify(path)} is a symlink to a missing file. Nothing was written.`);
  }
  let ancestor = dirname(given);
  const missing: string[] = [basename(given)];
  for (;;) {
    try {
      const real = await realpath(ancestor);
      if (!(await stat(real)).isDirectory()) throw new ToolError(400, 'invalid_path', `${argument} ${JSON.stringify(path)} has a parent that is not a directory.`);
      checkInside(root, real, path, argument);
      return { path: join(real, ...missing.reverse()), given: path, ...(root ? { root } : {}) };
    } catch (error) {
      if (error instanceof ToolError || code(error) !== 'ENOENT') {
        if (error instanceof ToolError) throw error;
        throw new ToolError(400, 'invalid_path', `${argument} ${JSON.stringify(path)} cannot be used (${code(error) ?? 'error'}).`);
      }
      const parent = dirname(ancestor);
      if (parent === ancestor) throw new ToolError(400, 'invalid_path', `${argument} ${JSON.stringify(path)} has no existing ancestor directory.`);
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
  while (!(await stat(dir).then((s) => s.isDirectory(), () => false))) {
    missing.push(dir);
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const path of missing.reverse()) {
    await mkdir(path).catch((error: unknown) => {
      if (code(error) !== 'EEXIST') throw error;
    });
    checkInside(target.root, await realpath(path), target.given, 'saveToPath');
  }
  checkInside(target.root, await realpath(dirname(target.path)), target.given, 'saveToPath');
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
 * Stream `source` into the checked target: a temporary sibling first, renamed over the target
 * only when complete. Returns the number of bytes written.
 */
export async function saveStream(source: Readable, target: LocalTarget, options: { idleTimeoutMs: number; signal?: AbortSignal }): Promise<number> {
  const temporary = join(dirname(target.path), `.${basename(target.path)}.${randomBytes(6).toString('hex')}.part`);
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  try {
    await makeParents(target);
    await pipeline(source, idleWatch(options.idleTimeoutMs), counter, createWriteStream(temporary, { flags: 'wx' }), {
      ...(options.signal ? { signal: options.signal } : {}),
    });
    await rename(temporary, target.path);
    return bytes;
  } catch (error) {
    source.destroy();
    await rm(temporary, { force: true });
    if (error instanceof ToolError) throw error;
    if ((error as Error).name === 'AbortError') throw new ToolError(499, 'cancelled', 'The download was cancelled; nothing was saved.');
    if (LOCAL_WRITE_ERRORS.has(code(error) ?? '')) throw new ToolError(500, 'local_write_failed', `Could not write ${JSON.stringify(target.given)} (${code(error)}); nothing was saved.`);
    throw new ToolError(502, 'download_failed', `The download failed before it finished (${(error as Error).message}); nothing was saved.`);
  }
}
