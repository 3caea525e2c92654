/**
 * Where durable secrets go once created, and the idempotency bookkeeping around them:
 * - file mode: the owner-only JSONL ledger (`FileSecretSink`) holds the raw result; a `.pending`
 *   reservation next to it keeps two calls (in any process) from creating twice;
 * - inline mode: the secret goes back to the caller once; this process remembers only the
 *   redacted result, so a repeated call replays it without creating again.
 * Idempotency keys are scoped per caller: `scopedKey` carries a non-secret caller id.
 */
import { createHash } from 'node:crypto';
import { sha256Hex, stable } from '../../contract/normalize.js';
import type { Credentials } from '../config.js';
import { secretValuesIn, type FileSecretSink, type SinkReceipt } from '../policy/secret-sink.js';
import { ToolError } from '../errors.js';
import type { ToolArgs } from '../tools/schema.js';

export interface IdempotencyIds {
  /** `<callerId>:<idempotencyKey>`: one caller's key never meets another's. */
  scopedKey: string;
  /** SHA-256 over tool, caller, key and the normalized input (without `confirm`/`idempotencyKey`). */
  fingerprint: string;
}

export function idempotencyIds(tool: string, callerId: string, args: ToolArgs): IdempotencyIds {
  const { confirm: _confirm, idempotencyKey, ...input } = args;
  const key = String(idempotencyKey);
  return {
    scopedKey: `${callerId}:${key}`,
    fingerprint: sha256Hex(JSON.stringify(stable({ callerId, idempotencyKey: key, input, tool }))),
  };
}

/**
 * A non-secret id for a caller, which idempotency keys are scoped to: its credential and, where
 * a token was verified (OAuth), its principal, since every principal shares the server's key in
 * `server` mode. It covers the secrets, not only the key ids: ids are not secret, and a server
 * that does not check keys with B2 (a pinned profile) must not let whoever knows another
 * tenant's key id replay or probe its records.
 */
export function callerIdOf(credentials: Credentials | undefined, principal?: string): string {
  if (!credentials && principal === undefined) return 'anonymous';
  const material = [
    'b2-mcp-caller',
    credentials?.applicationKeyId ?? '',
    credentials?.applicationKey ?? '',
    credentials?.masterKeyId ?? '',
    credentials?.masterKey ?? '',
    principal ?? '',
  ];
  return createHash('sha256').update(material.join('\0')).digest('hex');
}

/** An earlier creation under the same key and input. */
export interface Replay {
  result: unknown;
  receipt?: SinkReceipt;
}

export interface CreationClaim {
  /** Set when this caller already created the same thing under this key: nothing new to create. */
  replay?: Replay;
  /** Frees the key (after the record is stored, or when the creation certainly did not happen). */
  release(): void;
}

export interface SecretStore {
  readonly mode: 'file' | 'inline';
  /** Reserves the key; 409 `idempotency_key_conflict` / `idempotency_key_pending` when it cannot. */
  claim(tool: string, ids: IdempotencyIds): CreationClaim;
  /**
   * Keeps the outcome: `raw` (with the secret) goes to the ledger in file mode; inline mode
   * remembers only `redacted`. Throws `SecretSinkError` when the ledger cannot take it.
   */
  commit(tool: string, ids: IdempotencyIds, raw: unknown, redacted: unknown): Promise<SinkReceipt | undefined>;
  /** The secrets of what was created (no local file holding one is uploaded). */
  knownSecrets(): readonly string[];
}

const conflict = () =>
  new ToolError(
    409,
    'idempotency_key_conflict',
    'This idempotencyKey was already used for a different request; use a new key for a new creation.',
  );

export class FileSecretStore implements SecretStore {
  readonly mode = 'file';

  constructor(readonly ledger: FileSecretSink) {}

  claim(tool: string, ids: IdempotencyIds): CreationClaim {
    const reservation = this.ledger.claim(tool, ids.scopedKey);
    // Read the ledger only after reserving: a commit racing with us is then visible.
    const prior = this.ledger.lookup(tool, ids.scopedKey, ids.fingerprint);
    if (prior.kind !== 'new') reservation?.release();
    if (prior.kind === 'conflict') throw conflict();
    if (prior.kind === 'replay') return { replay: { result: prior.result, receipt: prior.receipt }, release: () => undefined };
    if (!reservation) {
      throw new ToolError(
        409,
        'idempotency_key_pending',
        `Another call with this idempotencyKey is in progress or ended with an unknown outcome (reservation ${this.ledger.pendingPath(tool, ids.scopedKey)}). Check whether the creation happened before retrying with a new key.`,
      );
    }
    return { release: () => reservation.release() };
  }

  async commit(tool: string, ids: IdempotencyIds, raw: unknown): Promise<SinkReceipt> {
    return this.ledger.append(tool, { key: ids.scopedKey, fingerprint: ids.fingerprint }, raw);
  }

  knownSecrets(): readonly string[] {
    return this.ledger.knownSecrets();
  }
}

export class InlineSecretStore implements SecretStore {
  readonly mode = 'inline';
  private readonly done = new Map<string, { fingerprint: string; redacted: unknown }>();
  private readonly inFlight = new Set<string>();
  /** The secrets returned once; kept only to refuse uploads of files that carry one. */
  private readonly returned = new Set<string>();

  claim(tool: string, ids: IdempotencyIds): CreationClaim {
    const slot = `${tool}\0${ids.scopedKey}`;
    const prior = this.done.get(slot);
    if (prior && prior.fingerprint !== ids.fingerprint) throw conflict();
    if (prior) return { replay: { result: prior.redacted }, release: () => undefined };
    if (this.inFlight.has(slot)) {
      throw new ToolError(
        409,
        'idempotency_key_pending',
        'Another call with this idempotencyKey is in progress or ended with an unknown outcome. Check whether the creation happened before retrying with a new key.',
      );
    }
    this.inFlight.add(slot);
    return { release: () => this.inFlight.delete(slot) };
  }

  async commit(tool: string, ids: IdempotencyIds, raw: unknown, redacted: unknown): Promise<undefined> {
    this.done.set(`${tool}\0${ids.scopedKey}`, { fingerprint: ids.fingerprint, redacted });
    secretValuesIn(raw, this.returned);
    return undefined;
  }

  knownSecrets(): readonly string[] {
    return [...this.returned];
  }
}
