/**
 * The secret ledger's rules (docs/contract.md §7), each checked at start-up (inspect) and on first
 * use (prepare) with its own message: absolute path, real owner-only directory, regular owner-only
 * file with one link, owned by this user, never the log file (also through a symlink); the
 * idempotency reservation; the index reread after another process appends; torn lines skipped.
 */
import {
  chmodSync,
  chownSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
  existsSync,
  appendFileSync,
  readdirSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileSecretSink, SecretSinkError } from '../../../src/server/policy/secret-sink.js';
import { thrownBy } from '../../support/failure.js';

const fresh = () => mkdtempSync(join(tmpdir(), 'b2-sink-mut-'));
const isRoot = process.getuid?.() === 0;

const failure = (run: () => unknown): SecretSinkError => thrownBy(SecretSinkError, run);

/** A directory `dir` (0700) holding `ledger.jsonl` written with `mode`. */
function ledgerIn(mode = 0o600): { dir: string; path: string } {
  const dir = join(fresh(), 'private');
  mkdirSync(dir, { mode: 0o700 });
  const path = join(dir, 'ledger.jsonl');
  writeFileSync(path, '');
  chmodSync(path, mode);
  return { dir, path };
}

describe('errors', () => {
  it('are SecretSinkErrors, not ambiguous unless said so', () => {
    const error = failure(() => new FileSecretSink('relative/ledger.jsonl'));
    expect([error.name, error.message, error.ambiguous]).toEqual(['SecretSinkError', 'The secret ledger path must be absolute.', false]);
  });
});

describe('every rule, at start-up and on first use', () => {
  const both = (sink: () => FileSecretSink) => [failure(() => sink().inspect()).message, failure(() => sink().prepare()).message];

  it('the directory must be a real directory', () => {
    const root = fresh();
    const real = join(root, 'real');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, join(root, 'link'));
    expect(both(() => new FileSecretSink(join(root, 'link', 'ledger.jsonl')))).toEqual([
      `${join(root, 'link')} must be a real directory, not a symlink.`,
      `${join(root, 'link')} must be a real directory, not a symlink.`,
    ]);
    writeFileSync(join(root, 'plain'), '');
    expect(failure(() => new FileSecretSink(join(root, 'plain', 'ledger.jsonl')).inspect()).message).toBe(
      `${join(root, 'plain')} must be a real directory, not a symlink.`,
    );
  });

  it('the directory must be owner-only', () => {
    const { dir, path } = ledgerIn();
    chmodSync(dir, 0o750);
    const message = `Directory ${dir} is readable or writable by group or others; it must be owner-only.`;
    expect(both(() => new FileSecretSink(path))).toEqual([message, message]);
  });

  it('the file must be no symlink, a regular file, with one link, owner-only', () => {
    const { dir, path } = ledgerIn();
    const link = join(dir, 'link.jsonl');
    symlinkSync(path, link);
    expect(both(() => new FileSecretSink(link))).toEqual([
      `${link} is a symlink; the secret ledger refuses symlinks.`,
      `${link} is a symlink; the secret ledger refuses symlinks.`,
    ]);
    const sub = join(dir, 'sub.jsonl');
    mkdirSync(sub);
    expect(failure(() => new FileSecretSink(sub).inspect()).message).toBe(`${sub} is not a regular file.`);
    expect(failure(() => new FileSecretSink(sub).prepare()).message).toBe(`Cannot open the secret ledger ${sub} (EISDIR).`);
    const hard = join(dir, 'hard.jsonl');
    linkSync(path, hard);
    expect(both(() => new FileSecretSink(path))).toEqual([`${path} has other hard links.`, `${path} has other hard links.`]);
    const loose = ledgerIn(0o604).path;
    const message = `File ${loose} is readable or writable by group or others; it must be owner-only.`;
    expect(both(() => new FileSecretSink(loose))).toEqual([message, message]);
  });

  it('an owner-only ledger in an owner-only directory passes both checks, and a missing one is creatable', () => {
    const { path } = ledgerIn();
    expect(() => new FileSecretSink(path).inspect()).not.toThrow();
    expect(() => new FileSecretSink(path).prepare()).not.toThrow();
    const missing = join(fresh(), 'a', 'b', 'ledger.jsonl');
    const sink = new FileSecretSink(missing);
    sink.inspect();
    expect(existsSync(join(missing, '..'))).toBe(false);
    sink.prepare();
    expect(existsSync(missing)).toBe(true);
    const inDir = join(ledgerIn().dir, 'new.jsonl');
    expect(() => new FileSecretSink(inDir).inspect()).not.toThrow();
  });

  it('the ledger is never the log file, also when one is a symlink to the other', () => {
    const { dir, path } = ledgerIn();
    const alias = join(dir, 'log-alias');
    symlinkSync(path, alias);
    expect(both(() => new FileSecretSink(path, alias))).toEqual([
      'The secret ledger must not be the log file.',
      'The secret ledger must not be the log file.',
    ]);
    expect(both(() => new FileSecretSink(path, path))).toEqual([
      'The secret ledger must not be the log file.',
      'The secret ledger must not be the log file.',
    ]);
    const missing = join(dir, 'not-yet.jsonl');
    expect(failure(() => new FileSecretSink(missing, missing).inspect()).message).toBe('The secret ledger must not be the log file.');
    expect(() => new FileSecretSink(path, join(dir, 'server.log')).inspect()).not.toThrow();
    expect(() => new FileSecretSink(path, join(dir, 'server.log')).prepare()).not.toThrow();
    // Neither exists yet: two different paths are still two files.
    expect(() => new FileSecretSink(join(dir, 'later.jsonl'), join(dir, 'later.log')).inspect()).not.toThrow();
  });

  it.runIf(!isRoot)('a missing directory whose nearest existing ancestor is not writable is refused at start-up', () => {
    const root = fresh();
    const locked = join(root, 'locked');
    mkdirSync(locked, { mode: 0o500 });
    const message = failure(() => new FileSecretSink(join(locked, 'a', 'b', 'ledger.jsonl')).inspect()).message;
    expect(message).toBe(`Cannot create ${join(locked, 'a', 'b')}: ${locked} is not writable.`);
  });

  it.runIf(isRoot)('files and directories owned by another user are refused', () => {
    const { dir, path } = ledgerIn();
    chownSync(path, 12345, 12345);
    const file = `File ${path} is not owned by the current user.`;
    expect(both(() => new FileSecretSink(path))).toEqual([file, file]);
    chownSync(path, 0, 0);
    chownSync(dir, 12345, 12345);
    const directory = `Directory ${dir} is not owned by the current user.`;
    expect(both(() => new FileSecretSink(path))).toEqual([directory, directory]);
  });
});

describe('idempotency reservations', () => {
  it('are exclusive until released, released once, and named without the tool or key', () => {
    const sink = new FileSecretSink(join(fresh(), 'ledger.jsonl'));
    const claim = sink.claim('b2_create_key', 'key-SECRET-ish')!;
    expect(claim.path).toBe(sink.pendingPath('b2_create_key', 'key-SECRET-ish'));
    expect(claim.path).toMatch(new RegExp(`^${sink.path.replace(/[.]/g, '\\.')}\\.[0-9a-f]{32}\\.pending$`));
    expect(claim.path).not.toContain('key-SECRET-ish');
    const marker = JSON.parse(readFileSync(claim.path, 'utf8')) as Record<string, unknown>;
    expect(marker).toEqual({ ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), tool: 'b2_create_key', pid: process.pid });
    expect(sink.claim('b2_create_key', 'key-SECRET-ish')).toBeUndefined();
    expect(sink.claim('b2_create_group_member', 'key-SECRET-ish')).toBeDefined();
    claim.release();
    expect(existsSync(claim.path)).toBe(false);
    const again = sink.claim('b2_create_key', 'key-SECRET-ish')!;
    claim.release();
    expect(existsSync(again.path)).toBe(true);
  });

  it('differ by tool and by key, and do not confuse the two', () => {
    const sink = new FileSecretSink(join(fresh(), 'ledger.jsonl'));
    const paths = [sink.pendingPath('a', 'bc'), sink.pendingPath('ab', 'c'), sink.pendingPath('a', 'b'), sink.pendingPath('b', 'a')];
    expect(new Set(paths).size).toBe(4);
  });
});

describe('the index', () => {
  it('sees an append by another process, and keeps replays per tool', async () => {
    const path = join(fresh(), 'ledger.jsonl');
    const mine = new FileSecretSink(path);
    const theirs = new FileSecretSink(path);
    expect(mine.lookup('b2_create_key', 'k', 'f')).toEqual({ kind: 'new' });
    const receipt = await theirs.append('b2_create_key', { key: 'k', fingerprint: 'f' }, { id: 1 });
    expect(mine.lookup('b2_create_key', 'k', 'f')).toEqual({ kind: 'replay', result: { id: 1 }, receipt });
    expect(mine.lookup('b2_create_group_member', 'k', 'f')).toEqual({ kind: 'new' });
  });

  it('skips blank, torn and key-less lines, and ends a torn last line before appending', async () => {
    const { path } = ledgerIn();
    const good = { ts: 't', tool: 'b2_create_key', recordId: 'r1', idempotency: { key: 'k1', fingerprint: 'f1' }, result: 1 };
    appendFileSync(
      path,
      `${JSON.stringify(good)}\n\n${JSON.stringify({ tool: 'b2_create_key', recordId: 'r0', result: 0 })}\n{"tool":"b2_create_key","idempot`,
    );
    const sink = new FileSecretSink(path);
    expect(sink.lookup('b2_create_key', 'k1', 'f1')).toMatchObject({ kind: 'replay', result: 1 });
    expect(sink.lookup('b2_create_key', 'undefined', 'f1')).toEqual({ kind: 'new' });
    await sink.append('b2_create_key', { key: 'k2', fingerprint: 'f2' }, 2);
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines.at(-2)).toMatch(/^\{"ts":"[^"]+","tool":"b2_create_key"/);
    expect(lines.at(-3)).toBe('{"tool":"b2_create_key","idempot');
    expect(new FileSecretSink(path).lookup('b2_create_key', 'k2', 'f2')).toMatchObject({ kind: 'replay', result: 2 });
    await sink.append('b2_create_key', { key: 'k3', fingerprint: 'f3' }, 3);
    expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);
    expect(readFileSync(path, 'utf8')).not.toContain('\n\n{"ts"');
  });

  it.runIf(existsSync('/proc/self/fd'))('leaves no file descriptor open after appends, reservations and a torn-line repair', async () => {
    const open = () => readdirSync('/proc/self/fd').length;
    const { path } = ledgerIn();
    appendFileSync(path, '{"torn":');
    const sink = new FileSecretSink(path);
    const before = open();
    for (let i = 0; i < 3; i++) await sink.append('b2_create_key', { key: `k${i}`, fingerprint: 'f' }, i);
    sink.claim('b2_create_key', 'k9')!.release();
    expect(open()).toBeLessThanOrEqual(before);
  });

  it('record times are whole seconds in UTC', async () => {
    const sink = new FileSecretSink(join(fresh(), 'ledger.jsonl'));
    await sink.append('b2_create_key', { key: 'k', fingerprint: 'f' }, 1);
    const record = JSON.parse(readFileSync(sink.path, 'utf8').trim()) as { ts: string };
    expect(record.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});

describe('platform and edge conditions', () => {
  it('on Windows the file sink refuses to start and to prepare (no POSIX owner-only permissions)', () => {
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    const sink = new FileSecretSink(join(fresh(), 'ledger.jsonl'));
    Object.defineProperty(process, 'platform', { ...platform, value: 'win32' });
    try {
      expect(failure(() => sink.inspect()).message).toBe('The file secret sink needs POSIX owner-only permissions.');
      expect(failure(() => sink.prepare()).message).toBe('The file secret sink needs POSIX owner-only permissions.');
    } finally {
      Object.defineProperty(process, 'platform', platform);
    }
    expect(() => sink.prepare()).not.toThrow();
  });

  it('the first record of an empty ledger is its first line (no separator before it)', async () => {
    const sink = new FileSecretSink(join(fresh(), 'ledger.jsonl'));
    await sink.append('b2_create_key', { key: 'k', fingerprint: 'f' }, 1);
    expect(readFileSync(sink.path, 'utf8')).toMatch(/^\{"ts":/);
  });

  it('a reservation that cannot be created for another reason than "taken" is an error naming the reason', () => {
    // The reservation's name is the ledger's plus 41 characters: past the file-name limit here.
    const sink = new FileSecretSink(join(fresh(), `${'l'.repeat(220)}.jsonl`));
    expect(failure(() => sink.claim('b2_create_key', 'k')).message).toBe(
      'Cannot reserve the idempotency key next to the secret ledger (ENAMETOOLONG).',
    );
  });
});
