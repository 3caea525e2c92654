import { mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync, chmodSync, linkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileSecretSink, SecretSinkError } from '../../../src/server/policy/secret-sink.js';

const fresh = () => mkdtempSync(join(tmpdir(), 'b2-sink-'));

describe('file secret sink', () => {
  it('creates an owner-only directory and file and appends whole JSON lines', async () => {
    const dir = join(fresh(), 'nested');
    const sink = new FileSecretSink(join(dir, 'secrets.jsonl'));
    sink.prepare();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(sink.path).mode & 0o777).toBe(0o600);
    const receipt = await sink.append('b2_create_key', { key: 'k1', fingerprint: 'f1' }, { applicationKey: 'CANARY-SECRET-1' });
    await sink.append('b2_create_key', { key: 'k2', fingerprint: 'f2' }, { applicationKey: 'CANARY-SECRET-2' });
    const lines = readFileSync(sink.path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ tool: 'b2_create_key', recordId: receipt.recordId, result: { applicationKey: 'CANARY-SECRET-1' } });
    expect(lines[0].ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('replays the same idempotency key and input, refuses the same key with other input', async () => {
    const sink = new FileSecretSink(join(fresh(), 'secrets.jsonl'));
    sink.prepare();
    expect(sink.lookup('b2_create_key', 'k', 'f')).toEqual({ kind: 'new' });
    const receipt = await sink.append('b2_create_key', { key: 'k', fingerprint: 'f' }, { id: 1 });
    expect(sink.lookup('b2_create_key', 'k', 'f')).toEqual({ kind: 'replay', result: { id: 1 }, receipt });
    expect(sink.lookup('b2_create_key', 'k', 'other')).toEqual({ kind: 'conflict' });
    // A new process reads the ledger back.
    expect(new FileSecretSink(sink.path).lookup('b2_create_key', 'k', 'f').kind).toBe('replay');
  });

  it('refuses symlinks, hard links, group-readable files and the log file', () => {
    const dir = fresh();
    const target = join(dir, 'real.jsonl');
    writeFileSync(target, '', { mode: 0o600 });
    symlinkSync(target, join(dir, 'link.jsonl'));
    expect(() => new FileSecretSink(join(dir, 'link.jsonl')).prepare()).toThrow(/symlink/);
    linkSync(target, join(dir, 'hard.jsonl'));
    expect(() => new FileSecretSink(target).prepare()).toThrow(/hard links/);
    const loose = join(dir, 'loose.jsonl');
    writeFileSync(loose, '');
    chmodSync(loose, 0o644);
    expect(() => new FileSecretSink(loose).prepare()).toThrow(/owner-only/);
    const log = join(dir, 'server.log');
    expect(() => new FileSecretSink(log, log).prepare()).toThrow(SecretSinkError);
  });

  it.each([0o640, 0o620, 0o610, 0o604, 0o602, 0o601, 0o660, 0o666, 0o700 | 0o040])(
    'refuses a ledger with mode %o (any group or other bit)',
    (mode) => {
      const ledger = join(fresh(), 'ledger.jsonl');
      writeFileSync(ledger, '');
      chmodSync(ledger, mode);
      expect(() => new FileSecretSink(ledger).prepare()).toThrow(/owner-only/);
    },
  );

  it.each([0o600, 0o700])('accepts an owner-only ledger (mode %o)', (mode) => {
    const ledger = join(fresh(), 'ledger.jsonl');
    writeFileSync(ledger, '');
    chmodSync(ledger, mode);
    expect(() => new FileSecretSink(ledger).prepare()).not.toThrow();
  });
});
