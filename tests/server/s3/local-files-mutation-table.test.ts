/**
 * Local files for filePath / saveToPath, in-process and word for word: each refusal's status,
 * code and message, the size limit at its boundary, the server's own files under every name,
 * the one root, what a save never creates and what an upload never carries, the descriptor's
 * real path, and saves that leave nothing behind when they fail.
 */
import {
  linkSync,
  mkdirSync,
  renameSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { open as openHandle } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openedRealPath, prepareLocalTarget, readLocalFile, saveStream, type LocalFilePolicy } from '../../../src/server/s3/local-files.js';
import { ToolError } from '../../../src/server/errors.js';

let root: string;
let outside: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'lf-unit-root-')));
  outside = realpathSync(mkdtempSync(join(tmpdir(), 'lf-unit-out-')));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const rooted = (extra: Partial<LocalFilePolicy> = {}): LocalFilePolicy => ({ allowLocalFiles: true, fileRoot: root, ...extra });

async function refusal(promise: Promise<unknown>): Promise<[number, string, string]> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    return [error.status, error.code, error.message];
  }
  throw new Error('expected a refusal');
}

const OWN = (argument: string, shown: string) => [
  403,
  'local_file_refused',
  `${argument} ${JSON.stringify(shown)} is one of this server's own files (secret ledger or log); those are never read or written. Nothing was read or written.`,
];
const AUTORUN = (shown: string, reason: string) => [
  403,
  'local_file_refused',
  `saveToPath ${JSON.stringify(shown)} ${reason}; this server never saves a file that something loads or runs by itself. Choose another name or folder inside B2_FILE_ROOT. Nothing was downloaded.`,
];
const OUTSIDE = (argument: string, shown: string) => [
  403,
  'local_file_refused',
  `${argument} ${JSON.stringify(shown)} resolves outside this server's file folder ${JSON.stringify(root)} (B2_FILE_ROOT); symlinks count by their target. Use a path inside that folder (a relative path is taken inside it). Nothing was read or written.`,
];
const SECRET = (shown: string) => [
  403,
  'local_file_refused',
  `filePath ${JSON.stringify(shown)} holds this server's B2 key or another secret it is configured with; such a file is never uploaded. Nothing was sent.`,
];
const CLIENT_CONFIG = (shown: string) => [
  403,
  'local_file_refused',
  `filePath ${JSON.stringify(shown)} is an MCP client's configuration file, which holds the keys of the servers it starts; it is never uploaded. Nothing was sent.`,
];

describe('configuration refusals', () => {
  it('local files off: both directions refused, naming the argument', async () => {
    const message = (argument: string) => [
      403,
      'local_file_refused',
      `${argument} is refused: this server does not allow local file access (B2_ALLOW_LOCAL_FILES is not true). Nothing was read or written.`,
    ];
    expect(await refusal(readLocalFile({ allowLocalFiles: false, fileRoot: root }, join(root, 'x'), 10, []))).toEqual(message('filePath'));
    expect(await refusal(prepareLocalTarget({ allowLocalFiles: false, fileRoot: root }, join(root, 'x')))).toEqual(message('saveToPath'));
    expect(await refusal(readLocalFile({ allowLocalFiles: false, fileRoot: root }, join(root, 'x'), 10, [], 'sourcePath'))).toEqual(
      message('sourcePath'),
    );
  });

  it('relative paths resolve against the root', async () => {
    writeFileSync(join(root, 'a.txt'), 'rel');
    expect((await readLocalFile(rooted(), 'a.txt', 10, [])).toString()).toBe('rel');
    expect((await prepareLocalTarget(rooted(), 'sub/b.txt')).path).toBe(join(root, 'sub', 'b.txt'));
  });

  it('a root that does not exist is a configuration error, unless it is the default folder, created owner-only', async () => {
    const expected = [500, 'invalid_file_root', 'B2_FILE_ROOT does not exist or cannot be read; fix the server configuration.'];
    expect(await refusal(readLocalFile(rooted({ fileRoot: join(root, 'gone') }), join(root, 'a'), 10, []))).toEqual(expected);
    expect(await refusal(prepareLocalTarget(rooted({ fileRoot: join(root, 'gone') }), join(root, 'a')))).toEqual(expected);
    const folder = join(root, 'default', 'b2-mcp-files');
    expect((await prepareLocalTarget(rooted({ fileRoot: folder, createFileRoot: true }), 'x.txt')).path).toBe(join(folder, 'x.txt'));
    expect(statSync(folder).mode & 0o777).toBe(0o700);
  });

  it('a root that resolves to a system path or a home directory is refused when used', async () => {
    symlinkSync('/etc', join(root, 'etc-link'));
    symlinkSync(homedir(), join(root, 'home-link'));
    const problem = (real: string, reason: string) => [
      500,
      'invalid_file_root',
      `B2_FILE_ROOT ${JSON.stringify(real)} ${reason}; local files need a folder of their own (the default is ~/b2-mcp-files). Fix the server configuration.`,
    ];
    expect(await refusal(readLocalFile(rooted({ fileRoot: join(root, 'etc-link') }), 'hostname', 100, []))).toEqual(
      problem('/etc', 'is a system path'),
    );
    expect(await refusal(prepareLocalTarget(rooted({ fileRoot: join(root, 'home-link') }), 'x.txt'))).toEqual(
      problem(realpathSync(homedir()), 'is or contains the home directory'),
    );
  });
});

describe('reads', () => {
  it('the limit at its boundary and one past it', async () => {
    writeFileSync(join(root, 'exact.bin'), Buffer.alloc(8, 7));
    writeFileSync(join(root, 'over.bin'), Buffer.alloc(9, 7));
    writeFileSync(join(root, 'empty.bin'), '');
    expect(await readLocalFile(rooted(), join(root, 'exact.bin'), 8, [])).toEqual(Buffer.alloc(8, 7));
    expect((await readLocalFile(rooted(), join(root, 'empty.bin'), 8, [])).length).toBe(0);
    expect(await refusal(readLocalFile(rooted(), join(root, 'over.bin'), 8, []))).toEqual([
      413,
      'file_too_large',
      `filePath ${JSON.stringify(join(root, 'over.bin'))} is 9 bytes; the limit is 8 bytes.`,
    ]);
  });

  it('a file larger than one read is read whole', async () => {
    const big = Buffer.from(Array.from({ length: 200_000 }, (_, i) => i % 251));
    writeFileSync(join(root, 'big.bin'), big);
    expect((await readLocalFile(rooted(), join(root, 'big.bin'), 200_000, [])).equals(big)).toBe(true);
  });

  it('missing files and directories are refused with their own messages', async () => {
    const missing = join(root, 'missing.txt');
    expect(await refusal(readLocalFile(rooted(), missing, 10, []))).toEqual([
      404,
      'file_not_found',
      `filePath ${JSON.stringify(missing)} does not exist.`,
    ]);
    expect(await refusal(readLocalFile(rooted(), root, 10, []))).toEqual([
      400,
      'invalid_path',
      `filePath ${JSON.stringify(root)} is not a regular file.`,
    ]);
    writeFileSync(join(root, 'file'), 'x');
    const under = join(root, 'file', 'x');
    expect(await refusal(readLocalFile(rooted(), under, 10, []))).toEqual([
      400,
      'invalid_path',
      `filePath ${JSON.stringify(under)} cannot be read (ENOTDIR).`,
    ]);
  });

  it('outside the root, directly, by .. or through a symlink, is refused; a symlink within it is followed', async () => {
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    symlinkSync(join(outside, 'secret.txt'), join(root, 'sneaky.txt'));
    for (const path of [join(outside, 'secret.txt'), join(root, '..', outside.split('/').pop()!, 'secret.txt'), join(root, 'sneaky.txt')]) {
      expect(await refusal(readLocalFile(rooted(), path, 100, [])), path).toEqual(OUTSIDE('filePath', path));
    }
    writeFileSync(join(root, 'real.txt'), 'inside');
    symlinkSync(join(root, 'real.txt'), join(root, 'alias.txt'));
    expect((await readLocalFile(rooted(), join(root, 'alias.txt'), 100, [])).toString()).toBe('inside');
  });

  it('the server files are refused under every name, also inside the root; similar names are not', async () => {
    const ledger = join(root, 'secrets.jsonl');
    const log = join(root, 'server.log');
    for (const file of [ledger, log, `${ledger}.abc.pending`, `${ledger}.bak`, `${ledger}pending`, join(root, 'x.pending')])
      writeFileSync(file, 'data');
    linkSync(ledger, join(root, 'hard-ledger.txt'));
    linkSync(log, join(root, 'hard-log.txt'));
    symlinkSync(log, join(root, 'log-link'));
    const guarded = rooted({ secretSinkFile: ledger, logFile: log });
    for (const path of [
      ledger,
      log,
      `${ledger}.abc.pending`,
      join(root, 'hard-ledger.txt'),
      join(root, 'hard-log.txt'),
      join(root, 'log-link'),
    ]) {
      expect(await refusal(readLocalFile(guarded, path, 100, [])), path).toEqual(OWN('filePath', path));
    }
    for (const path of [`${ledger}.bak`, `${ledger}pending`, join(root, 'x.pending')]) {
      expect((await readLocalFile(guarded, path, 100, [])).toString(), path).toBe('data');
    }
    // Only a ledger, only a log: each guarded alone.
    expect(await refusal(readLocalFile(rooted({ logFile: log }), log, 100, []))).toEqual(OWN('filePath', log));
    expect(await refusal(readLocalFile(rooted({ secretSinkFile: ledger }), join(root, 'hard-ledger.txt'), 100, []))).toEqual(
      OWN('filePath', join(root, 'hard-ledger.txt')),
    );
    expect((await readLocalFile(rooted({ secretSinkFile: join(root, 'not-yet.jsonl') }), log, 100, [])).toString()).toBe('data');
  });

  it('a file holding a configured secret, in any text encoding, is refused without showing it; other files are read', async () => {
    const secret = 'K005abcdefghijklmnopqrstuvwxyz0/12+';
    const forms: Array<[string, Buffer]> = [
      ['plain.json', Buffer.from(`{"env":{"B2_APPLICATION_KEY":"${secret}"}}`)],
      ['escaped.json', Buffer.from(`{"key":"${secret.replaceAll('/', '\\/')}"}`)],
      ['url.txt', Buffer.from(`https://x/?k=${encodeURIComponent(secret)}`)],
      ['utf16le.txt', Buffer.from(`key=${secret}`, 'utf16le')],
      ['utf16be.txt', Buffer.from(`key=${secret}`, 'utf16le').swap16()],
      ['key-id.txt', Buffer.from('id 0051234567890abcdef000001')],
    ];
    for (const [name, bytes] of forms) writeFileSync(join(root, name), bytes);
    writeFileSync(join(root, 'harmless.txt'), `key=${secret.slice(0, 20)}`);
    const secrets = [secret, '0051234567890abcdef000001'];
    for (const [name] of forms) {
      const outcome = await refusal(readLocalFile(rooted(), name, 1000, secrets));
      expect(outcome, name).toEqual(SECRET(name));
      expect(JSON.stringify(outcome)).not.toContain(secret);
    }
    expect((await readLocalFile(rooted(), 'harmless.txt', 1000, secrets)).toString()).toBe(`key=${secret.slice(0, 20)}`);
  });

  it('an MCP client configuration is refused by its name, as given or through a symlink', async () => {
    mkdirSync(join(root, 'Claude'));
    writeFileSync(join(root, 'Claude', 'claude_desktop_config.json'), '{"mcpServers":{}}');
    writeFileSync(join(root, 'MCP.json'), '{}');
    symlinkSync(join(root, 'Claude', 'claude_desktop_config.json'), join(root, 'notes.txt'));
    for (const path of ['Claude/claude_desktop_config.json', 'MCP.json', 'notes.txt']) {
      expect(await refusal(readLocalFile(rooted(), path, 1000, [])), path).toEqual(CLIENT_CONFIG(path));
    }
  });

  it('a root that holds hidden files allows them', async () => {
    writeFileSync(join(root, '.env'), 'chosen');
    expect((await readLocalFile(rooted(), join(root, '.env'), 100, [])).toString()).toBe('chosen');
  });
});

describe('the real path of what was opened', () => {
  it('comes from the descriptor link when it is absolute, else from the path if it is the same file', async () => {
    writeFileSync(join(root, 'a.txt'), 'a');
    writeFileSync(join(root, 'b.txt'), 'b');
    const handle = await openHandle(join(root, 'a.txt'), 'r');
    try {
      expect(await openedRealPath(handle, join(root, 'b.txt'))).toBe(join(root, 'a.txt'));
      const links = join(root, 'links');
      mkdirSync(links);
      symlinkSync('relative/target', join(links, String(handle.fd)));
      expect(await openedRealPath(handle, join(root, 'a.txt'), links)).toBeUndefined();
      const none = join(root, 'no-links');
      expect(await openedRealPath(handle, join(root, 'a.txt'), none)).toBe(join(root, 'a.txt'));
      expect(await openedRealPath(handle, join(root, 'b.txt'), none)).toBeUndefined();
      expect(await openedRealPath(handle, join(root, 'gone.txt'), none)).toBeUndefined();
    } finally {
      await handle.close();
    }
  });
});

describe('destinations', () => {
  it('anything already there is refused, with the path as given', async () => {
    writeFileSync(join(root, 'file.txt'), 'x');
    symlinkSync(join(root, 'nowhere'), join(root, 'dangling'));
    for (const name of ['file.txt', 'dangling']) {
      expect(await refusal(prepareLocalTarget(rooted(), join(root, name)))).toEqual([
        409,
        'local_file_exists',
        `saveToPath ${JSON.stringify(join(root, name))} already exists; this server never overwrites or follows an existing local path. Choose a new path that does not exist yet. Nothing was downloaded.`,
      ]);
    }
  });

  it('a path under a file cannot be used', async () => {
    writeFileSync(join(root, 'file'), 'x');
    const under = join(root, 'file', 'new.txt');
    expect(await refusal(prepareLocalTarget(rooted(), under))).toEqual([
      400,
      'invalid_path',
      `saveToPath ${JSON.stringify(under)} cannot be used (ENOTDIR).`,
    ]);
  });

  it('missing directories are placed under the real path of the nearest existing ancestor', async () => {
    mkdirSync(join(root, 'real'));
    symlinkSync(join(root, 'real'), join(root, 'alias'));
    expect(await prepareLocalTarget(rooted(), join(root, 'alias', 'x', 'y', 'z.txt'))).toEqual({
      path: join(root, 'real', 'x', 'y', 'z.txt'),
      given: join(root, 'alias', 'x', 'y', 'z.txt'),
      fence: { root },
    });
  });

  it('outside the root, server files and default-policy paths are refused as destinations', async () => {
    symlinkSync(outside, join(root, 'out'));
    expect(await refusal(prepareLocalTarget(rooted(), join(root, 'out', 'a', 'x.txt')))).toEqual(
      OUTSIDE('saveToPath', join(root, 'out', 'a', 'x.txt')),
    );
    const ledger = join(root, 'secrets.jsonl');
    expect(await refusal(prepareLocalTarget(rooted({ secretSinkFile: ledger }), ledger))).toEqual(OWN('saveToPath', ledger));
    expect(await refusal(prepareLocalTarget(rooted({ secretSinkFile: ledger }), `${ledger}.x.pending`))).toEqual(
      OWN('saveToPath', `${ledger}.x.pending`),
    );
    expect(await refusal(prepareLocalTarget(rooted(), '/dev/b2-unit-test'))).toEqual(OUTSIDE('saveToPath', '/dev/b2-unit-test'));
    expect(readdirSync(outside)).toEqual([]);
  });

  it('what something loads or runs by itself is refused inside the root, by name, extension or folder, in any case', async () => {
    const cases: Array<[string, string]> = [
      ['venv/lib/python3.11/site-packages/zz.pth', 'lies in "site-packages" (Python imports or runs it by itself)'],
      ['zz.PTH', 'is a file Python imports or runs it by itself'],
      ['sitecustomize.py', 'is a file Python imports or runs it by itself'],
      ['.bashrc', 'is a file a shell or desktop session reads it at start-up'],
      ['Library/LaunchAgents/com.example.plist', 'lies in "launchagents" (the desktop or the service manager starts it)'],
      ['x.desktop', 'is a file the desktop or the service manager starts it'],
      ['.ssh/authorized_keys', 'lies in ".ssh" (it grants or configures remote log-in)'],
      [
        'node_modules/left-pad/index.js',
        'lies in "node_modules" (a package manager, git or an editor loads it and can run commands from it)',
      ],
      ['repo/.git/hooks/pre-commit', 'lies in ".git" (a package manager, git or an editor loads it and can run commands from it)'],
      ['Bin/tool', 'lies in "bin" (it lies on a command search path)'],
    ];
    for (const [path, reason] of cases) expect(await refusal(prepareLocalTarget(rooted(), path)), path).toEqual(AUTORUN(path, reason));
    // A missing folder that a symlink swapped in since the check leads into such a place is refused as it is created.
    mkdirSync(join(root, 'bin'));
    const target = await prepareLocalTarget(rooted(), join(root, 'a', 'b', 'tool'));
    symlinkSync(join(root, 'bin'), join(root, 'a'));
    expect(await refusal(saveStream(Readable.from([Buffer.from('#!/bin/sh')]), target, { idleTimeoutMs: 5_000 }))).toEqual(
      AUTORUN(join(root, 'a', 'b', 'tool'), 'lies in "bin" (it lies on a command search path)'),
    );
    expect(readdirSync(join(root, 'bin'))).toEqual(['b']);
    expect(readdirSync(join(root, 'bin', 'b'))).toEqual([]);
  });
});

describe('saves', () => {
  it('write the whole body under created parents and return its size, leaving no temporary file', async () => {
    const target = await prepareLocalTarget(rooted(), join(root, 'a', 'b', 'c.txt'));
    expect(await saveStream(Readable.from([Buffer.from('hello '), Buffer.from('world')]), target, { idleTimeoutMs: 5_000 })).toBe(11);
    expect(readFileSync(join(root, 'a', 'b', 'c.txt'), 'utf8')).toBe('hello world');
    expect(readdirSync(join(root, 'a', 'b'))).toEqual(['c.txt']);
    // Owner-only, never executable; the folders it made are owner-only too.
    expect(statSync(join(root, 'a', 'b', 'c.txt')).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, 'a')).mode & 0o777).toBe(0o700);
  });

  it('a file that appeared since the check is kept, and the save refused', async () => {
    const target = await prepareLocalTarget(rooted(), join(root, 'raced.txt'));
    writeFileSync(join(root, 'raced.txt'), 'theirs');
    expect((await refusal(saveStream(Readable.from([Buffer.from('ours')]), target, { idleTimeoutMs: 5_000 })))[1]).toBe(
      'local_file_exists',
    );
    expect(readFileSync(join(root, 'raced.txt'), 'utf8')).toBe('theirs');
    expect(readdirSync(root)).toEqual(['raced.txt']);
  });

  it('a failing source, a cancelled save and a stalled one leave nothing, each with its own error', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('connection reset'));
      },
    });
    expect(await refusal(saveStream(failing, await prepareLocalTarget(rooted(), join(root, 'f.txt')), { idleTimeoutMs: 5_000 }))).toEqual([
      502,
      'download_failed',
      'The download failed before it finished (connection reset); nothing was saved.',
    ]);
    const controller = new AbortController();
    const waiting = new PassThrough();
    waiting.once('resume', () => controller.abort());
    const cancelled = saveStream(waiting, await prepareLocalTarget(rooted(), join(root, 'c.txt')), {
      idleTimeoutMs: 5_000,
      signal: controller.signal,
    });
    expect(await refusal(cancelled)).toEqual([499, 'cancelled', 'The download was cancelled; nothing was saved.']);
    const stalled = new PassThrough();
    stalled.write('partial');
    expect(await refusal(saveStream(stalled, await prepareLocalTarget(rooted(), join(root, 's.txt')), { idleTimeoutMs: 30 }))).toEqual([
      504,
      'download_stalled',
      'The download sent no data for 30 ms and was abandoned; nothing was saved.',
    ]);
    expect(readdirSync(root)).toEqual([]);
  });
});

describe('what cannot be opened, and what a failed save may remove', () => {
  it('a socket passes the path checks but cannot be opened: refused with the reason, nothing left open', async () => {
    const socket = join(root, 'control.sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      const before = readdirSync('/proc/self/fd').length;
      expect(await refusal(readLocalFile(rooted(), socket, 100, []))).toEqual([
        400,
        'invalid_path',
        `filePath ${JSON.stringify(socket)} cannot be read (ENXIO).`,
      ]);
      writeFileSync(join(root, 'ok.txt'), 'ok');
      for (let i = 0; i < 3; i++) await readLocalFile(rooted(), join(root, 'ok.txt'), 100, []);
      expect(readdirSync('/proc/self/fd').length).toBeLessThanOrEqual(before);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a parent directory that became a file is a local write failure, and nothing is left', async () => {
    const target = await prepareLocalTarget(rooted(), join(root, 'a', 'b', 'c.txt'));
    writeFileSync(join(root, 'a'), 'now a file');
    expect(await refusal(saveStream(Readable.from([Buffer.from('x')]), target, { idleTimeoutMs: 5_000 }))).toEqual([
      500,
      'local_write_failed',
      `Could not write ${JSON.stringify(join(root, 'a', 'b', 'c.txt'))} (ENOTDIR); nothing was saved.`,
    ]);
    expect(readdirSync(root)).toEqual(['a']);
  });

  it('a parent directory swapped for a symlink out of the root since the check is refused', async () => {
    const target = await prepareLocalTarget(rooted(), join(root, 'a', 'b', 'c.txt'));
    symlinkSync(outside, join(root, 'a'));
    expect(await refusal(saveStream(Readable.from([Buffer.from('x')]), target, { idleTimeoutMs: 5_000 }))).toEqual(
      OUTSIDE('saveToPath', join(root, 'a', 'b', 'c.txt')),
    );
    expect(readdirSync(outside).filter((name) => name !== 'b')).toEqual([]);
  });

  it('a failed save removes only the files it created: a file put in place of its reservation stays', async () => {
    const path = join(root, 'replaced.txt');
    const target = await prepareLocalTarget(rooted(), path);
    const source = new PassThrough();
    source.once('resume', () => {
      // Moved, not deleted: the reservation keeps its inode, so the new file cannot reuse it.
      renameSync(path, `${path}.moved`);
      writeFileSync(path, 'theirs');
      source.destroy(new Error('connection reset'));
    });
    expect((await refusal(saveStream(source, target, { idleTimeoutMs: 5_000 })))[1]).toBe('download_failed');
    expect(readFileSync(path, 'utf8')).toBe('theirs');
    expect(readdirSync(root).sort()).toEqual(['replaced.txt', 'replaced.txt.moved']);
  });

  it('a reservation taken by another file since the check is refused in the words of an existing file', async () => {
    const target = await prepareLocalTarget(rooted(), join(root, 'raced.txt'));
    writeFileSync(join(root, 'raced.txt'), 'theirs');
    expect(await refusal(saveStream(Readable.from([Buffer.from('ours')]), target, { idleTimeoutMs: 5_000 }))).toEqual([
      409,
      'local_file_exists',
      `saveToPath ${JSON.stringify(join(root, 'raced.txt'))} already exists; this server never overwrites or follows an existing local path. Choose a new path that does not exist yet. Nothing was downloaded.`,
    ]);
  });

  it('the checked place names only what is configured', async () => {
    expect(Object.keys((await prepareLocalTarget(rooted(), join(root, 'x.txt'))).fence)).toEqual(['root']);
    const both = await prepareLocalTarget(
      rooted({ secretSinkFile: join(root, 'l.jsonl'), logFile: join(root, 's.log') }),
      join(root, 'x.txt'),
    );
    expect(both.fence).toEqual({ root, ledger: join(root, 'l.jsonl'), log: join(root, 's.log') });
  });

  it('a log file that does not exist yet is still never a destination', async () => {
    const log = join(root, 'server.log');
    expect(await refusal(prepareLocalTarget(rooted({ logFile: log }), log))).toEqual(OWN('saveToPath', log));
  });
});
