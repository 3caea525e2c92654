import { mkdtempSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { B2ApiError, B2TransportError } from '../../../src/server/b2/errors.js';
import { ConfigError, loadConfig } from '../../../src/server/config.js';
import type { ToolContext } from '../../../src/server/context.js';
import { FileSecretSink, secretValuesIn } from '../../../src/server/policy/secret-sink.js';
import { createWithSecret, type SecretCreation } from '../../../src/server/secrets/create-secret.js';
import { openSecretStore } from '../../../src/server/secrets/open.js';
import { FileSecretStore, InlineSecretStore, idempotencyIds, type SecretStore } from '../../../src/server/secrets/store.js';

const CANARY = 'K005-canary-secret-value-0123456789';
const fresh = () => mkdtempSync(join(tmpdir(), 'b2-secret-flow-'));

function fileStore(): { store: FileSecretStore; ledger: FileSecretSink } {
  const ledger = new FileSecretSink(join(fresh(), 'ledger', 'secrets.jsonl'));
  ledger.prepare();
  return { store: new FileSecretStore(ledger), ledger };
}

function contextFor(secrets: SecretStore | undefined, callerId = 'caller-a') {
  const logged: Array<[string, Record<string, unknown> | undefined]> = [];
  const logger = {
    debug: () => {},
    info: () => {},
    warn: () => {},
    error: (event: string, fields?: Record<string, unknown>) => void logged.push([event, fields]),
    close: () => {},
  };
  const context = {
    config: {},
    logger,
    signal: new AbortController().signal,
    capabilities: null,
    secrets,
    callerId,
  } as unknown as ToolContext;
  return { context, logged };
}

/** A prepared ledger swapped for a symlink afterwards: the sink refuses to follow it. */
function brokenLedger(): { store: FileSecretStore; ledger: FileSecretSink } {
  const prepared = fileStore();
  renameSync(prepared.ledger.path, `${prepared.ledger.path}.moved`);
  symlinkSync(`${prepared.ledger.path}.moved`, prepared.ledger.path);
  return prepared;
}

type Created = { applicationKeyId: string; applicationKey: string; keyName: string };

function creation(overrides: Partial<SecretCreation<Created>> = {}) {
  let n = 0;
  const create = vi.fn(async (): Promise<Created> => ({ applicationKeyId: `K${++n}`, applicationKey: CANARY, keyName: 'deploy' }));
  const undo = vi.fn(async () => undefined);
  const spec: SecretCreation<Created> = {
    tool: 'b2_create_key',
    describe: (k) => `application key ${k.applicationKeyId}`,
    create,
    undo: { run: undo, done: 'deleted' },
    ...overrides,
  };
  return { spec, create, undo };
}

const args = (extra: Record<string, unknown> = {}) => ({
  keyName: 'deploy',
  capabilities: ['listFiles'],
  idempotencyKey: 'idem-1',
  confirm: true,
  ...extra,
});

describe('idempotency ids', () => {
  it('ignore confirm and key order, but not the input, the tool or the caller', () => {
    const base = idempotencyIds('b2_create_key', 'c1', { a: 1, b: [1, 2], idempotencyKey: 'k', confirm: true });
    expect(idempotencyIds('b2_create_key', 'c1', { b: [1, 2], a: 1, idempotencyKey: 'k' })).toEqual(base);
    expect(idempotencyIds('b2_create_key', 'c1', { a: 2, b: [1, 2], idempotencyKey: 'k' }).fingerprint).not.toBe(base.fingerprint);
    expect(idempotencyIds('b2_create_group_member', 'c1', { a: 1, b: [1, 2], idempotencyKey: 'k' }).fingerprint).not.toBe(base.fingerprint);
    expect(idempotencyIds('b2_create_key', 'c2', { a: 1, b: [1, 2], idempotencyKey: 'k' }).scopedKey).not.toBe(base.scopedKey);
  });
});

describe('durable-secret flow, file mode', () => {
  it('writes the raw secret to the ledger and shows the model everything else plus the pointer', async () => {
    const { store, ledger } = fileStore();
    const { spec, create } = creation();
    const outcome = (await createWithSecret(args(), contextFor(store).context, spec)) as {
      structured: Record<string, unknown>;
      containsSecret?: true;
    };
    expect(outcome.containsSecret).toBeUndefined();
    expect(outcome.structured).toMatchObject({
      applicationKeyId: 'K1',
      applicationKey: '[redacted]',
      keyName: 'deploy',
      secretSink: { type: 'file', path: ledger.path },
    });
    expect(JSON.stringify(outcome)).not.toContain(CANARY);
    const [record] = readFileSync(ledger.path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(record).toMatchObject({
      tool: 'b2_create_key',
      recordId: (outcome.structured.secretSink as { recordId: string }).recordId,
      result: { applicationKey: CANARY },
    });
    expect(create).toHaveBeenCalledTimes(1);
  });

  it('replays the same key and input without creating again; refuses the key with other input; scopes keys per caller', async () => {
    const { store } = fileStore();
    const { spec, create } = creation();
    const first = (await createWithSecret(args(), contextFor(store).context, spec)) as { structured: Record<string, unknown> };
    const again = (await createWithSecret(args({ confirm: undefined }), contextFor(store).context, spec)) as {
      structured: Record<string, unknown>;
    };
    expect(again.structured).toEqual({ ...first.structured, idempotentReplay: true });
    expect(create).toHaveBeenCalledTimes(1);
    await expect(createWithSecret(args({ keyName: 'other' }), contextFor(store).context, spec)).rejects.toMatchObject({
      status: 409,
      code: 'idempotency_key_conflict',
    });
    await createWithSecret(args(), contextFor(store, 'caller-b').context, spec);
    expect(create).toHaveBeenCalledTimes(2);
  });

  it('sees commits of another process (ledger re-read when it grew)', async () => {
    const { store, ledger } = fileStore();
    const other = new FileSecretStore(new FileSecretSink(ledger.path));
    other.claim('b2_create_key', idempotencyIds('b2_create_key', 'caller-a', args())).release(); // loads the (empty) ledger
    const { spec } = creation();
    await createWithSecret(args(), contextFor(store).context, spec);
    expect(other.claim('b2_create_key', idempotencyIds('b2_create_key', 'caller-a', args())).replay).toBeDefined();
  });

  it('holds a reservation while a creation is in flight: a concurrent call gets 409 pending naming the reservation', async () => {
    const { store, ledger } = fileStore();
    let finish!: (value: Created) => void;
    const { spec } = creation({ create: () => new Promise<Created>((resolve) => (finish = resolve)) });
    const first = createWithSecret(args(), contextFor(store).context, spec);
    await vi.waitFor(() => expect(finish).toBeTypeOf('function'));
    const error = await createWithSecret(args(), contextFor(store).context, spec).catch((e: Error) => e);
    expect(error).toMatchObject({ status: 409, code: 'idempotency_key_pending' });
    expect((error as Error).message).toContain(`${ledger.path}.`);
    finish({ applicationKeyId: 'K9', applicationKey: CANARY, keyName: 'deploy' });
    await first;
    expect(
      ((await createWithSecret(args(), contextFor(store).context, spec)) as { structured: Record<string, unknown> }).structured
        .idempotentReplay,
    ).toBe(true);
  });

  it('frees the key when B2 refused (nothing created) but keeps it when the outcome is unknown', async () => {
    const { store } = fileStore();
    const refused = creation({
      create: async () => {
        throw new B2ApiError(400, 'bad_request', 'bad capability', 'b2_create_key');
      },
    });
    await expect(createWithSecret(args(), contextFor(store).context, refused.spec)).rejects.toMatchObject({ code: 'bad_request' });
    const lost = creation({
      create: async () => {
        throw new B2TransportError('request_timeout', 'no response', 'b2_create_key');
      },
    });
    await expect(createWithSecret(args(), contextFor(store).context, lost.spec)).rejects.toMatchObject({
      status: 504,
      code: 'request_timeout',
      message: expect.stringMatching(/may have happened/),
    });
    await expect(createWithSecret(args(), contextFor(store).context, creation().spec)).rejects.toMatchObject({
      code: 'idempotency_key_pending',
    });
  });

  it('undoes the creation when the ledger write fails, says so, never returns the secret, and frees the key', async () => {
    const { store, ledger } = brokenLedger();
    const { spec, undo } = creation();
    const { context, logged } = contextFor(store);
    const error = await createWithSecret(args(), context, spec).catch((e: Error) => e);
    expect(error).toMatchObject({
      status: 500,
      code: 'secret_sink_write_failed',
      message: expect.stringMatching(/symlink.*The creation was undone: the application key K1 was deleted\./),
    });
    expect(JSON.stringify(error) + (error as Error).message).not.toContain(CANARY);
    expect(undo).toHaveBeenCalledWith(expect.objectContaining({ applicationKeyId: 'K1' }));
    expect(logged).toEqual([['secret_sink.write_failed', { tool: 'b2_create_key', recovery: 'undone', ambiguous: false }]]);
    expect(readFileSync(`${ledger.path}.moved`, 'utf8')).toBe('');
    // The key is free again (the next attempt fails on the same broken ledger, after creating and undoing once more).
    await expect(createWithSecret(args(), context, spec)).rejects.toMatchObject({ code: 'secret_sink_write_failed' });
    expect(undo).toHaveBeenCalledTimes(2);
  });

  it('says when the undo failed too, or when B2 has no undo, and keeps the id for the operator', async () => {
    const failing = creation({
      undo: {
        run: async () => {
          throw new B2ApiError(401, 'unauthorized', 'no deleteKeys', 'b2_delete_key');
        },
        done: 'deleted',
      },
    });
    await expect(createWithSecret(args(), contextFor(brokenLedger().store).context, failing.spec)).rejects.toMatchObject({
      code: 'secret_sink_write_failed',
      message: expect.stringMatching(
        /Undoing it failed \(unauthorized\): the application key K1 exists but its secret was not kept; delete it by hand\./,
      ),
    });
    const noUndo = creation({ undo: undefined, describe: () => 'trial account A1' });
    await expect(createWithSecret(args(), contextFor(brokenLedger().store).context, noUndo.spec)).rejects.toMatchObject({
      message: expect.stringMatching(/no way to undo it: the trial account A1 exists/),
    });
  });
});

describe('durable-secret flow, inline mode', () => {
  it('returns the secret once, marked for the sanitizer bypass, and replays only the redacted result', async () => {
    const store = new InlineSecretStore();
    const { spec, create } = creation();
    const outcome = (await createWithSecret(args(), contextFor(store).context, spec)) as {
      structured: Record<string, unknown>;
      containsSecret?: true;
    };
    expect(outcome.containsSecret).toBe(true);
    expect(outcome.structured).toMatchObject({ applicationKey: CANARY, warning: expect.stringMatching(/shown only once/) });
    const replay = (await createWithSecret(args(), contextFor(store).context, spec)) as {
      structured: Record<string, unknown>;
      containsSecret?: true;
    };
    expect(replay.containsSecret).toBeUndefined();
    expect(replay.structured).toMatchObject({
      applicationKeyId: 'K1',
      applicationKey: '[redacted]',
      idempotentReplay: true,
      note: expect.stringMatching(/only by the original call/),
    });
    expect(create).toHaveBeenCalledTimes(1);
    await expect(createWithSecret(args({ capabilities: ['readFiles'] }), contextFor(store).context, spec)).rejects.toMatchObject({
      code: 'idempotency_key_conflict',
    });
  });

  it('refuses with 410 when no sink is configured', async () => {
    await expect(createWithSecret(args(), contextFor(undefined).context, creation().spec)).rejects.toMatchObject({
      status: 410,
      code: 'tool_unavailable',
    });
  });
});

describe('the secrets a store knows (no local file holding one is uploaded)', () => {
  it('file mode: every secret in the ledger, also one another process wrote; inline mode: the ones it returned', async () => {
    const { store, ledger } = fileStore();
    expect(store.knownSecrets()).toEqual([]);
    await createWithSecret(args(), contextFor(store).context, creation().spec);
    const other = new FileSecretStore(new FileSecretSink(ledger.path));
    await createWithSecret(
      args({ idempotencyKey: 'idem-2' }),
      contextFor(other).context,
      creation({ create: async () => ({ applicationKeyId: 'K9', applicationKey: `${CANARY}-2`, keyName: 'x' }) }).spec,
    );
    expect([...store.knownSecrets()].sort()).toEqual([CANARY, `${CANARY}-2`]);
    const inline = new InlineSecretStore();
    await createWithSecret(args(), contextFor(inline).context, creation().spec);
    expect(inline.knownSecrets()).toEqual([CANARY]);
  });

  it("a result's secrets are the strings under secret field names, at any depth and in any case", () => {
    const result = {
      keyName: 'deploy',
      note: null,
      applicationKey: 'k1-secret-value',
      members: [{ SECRET: 's2-secret-value' }],
      password: { hint: 'not a secret name' },
      secretAccessKey: 12,
    };
    expect([...secretValuesIn(result)].sort()).toEqual(['k1-secret-value', 's2-secret-value']);
  });
});

describe('opening the sink at start-up', () => {
  const blockedPath = () => {
    const dir = fresh();
    writeFileSync(join(dir, 'not-a-dir'), '');
    return join(dir, 'not-a-dir', 'secrets.jsonl');
  };
  const env = (extra: Record<string, string> = {}) => ({ B2_APPLICATION_KEY_ID: 'K1', B2_APPLICATION_KEY: 'secret-value-1', ...extra });

  it('degrades the implicit stdio default to off, with the reason', () => {
    const config = { ...loadConfig(env(), 'stdio'), secretSinkFile: blockedPath() };
    const opened = openSecretStore(config, env());
    expect(opened.store).toBeUndefined();
    expect(opened.config.secretSink).toBe('off');
    expect(opened.config.secretSinkUnavailable).toMatch(/default secret ledger cannot be used: .*not-a-dir must be a real directory/);
  });

  it('fails start-up when the file sink was asked for explicitly', () => {
    const path = blockedPath();
    const explicit = env({ B2_SECRET_SINK: 'file', B2_SECRET_SINK_FILE: path });
    expect(() => openSecretStore(loadConfig(explicit, 'stdio'), explicit)).toThrow(ConfigError);
    const fileOnly = env({ B2_SECRET_SINK_FILE: path });
    expect(() => openSecretStore(loadConfig(fileOnly, 'stdio'), fileOnly)).toThrow(/B2_SECRET_SINK=file/);
  });

  it('over HTTP, a file sink needs an explicit path and local files allowed', () => {
    const http = env({ B2_SECRET_SINK: 'file' });
    expect(() => loadConfig(http, 'http')).toThrow(/explicit B2_SECRET_SINK_FILE and B2_ALLOW_LOCAL_FILES=true/);
    expect(() => loadConfig({ ...http, B2_SECRET_SINK_FILE: '/tmp/x/secrets.jsonl' }, 'http')).toThrow(ConfigError);
    expect(loadConfig({ ...http, B2_SECRET_SINK_FILE: '/tmp/x/secrets.jsonl', B2_ALLOW_LOCAL_FILES: 'true' }, 'http').secretSinkFile).toBe(
      '/tmp/x/secrets.jsonl',
    );
    expect(loadConfig(env(), 'http').secretSink).toBe('off');
  });

  it('over HTTP, inline secrets need the explicit B2_ALLOW_INLINE_SECRETS=true; stdio needs no opt-in', () => {
    for (const optIn of [undefined, 'false', '']) {
      const http = env({ B2_SECRET_SINK: 'inline', ...(optIn !== undefined && { B2_ALLOW_INLINE_SECRETS: optIn }) });
      expect(() => loadConfig(http, 'http'), String(optIn)).toThrow(/B2_SECRET_SINK=inline over HTTP needs B2_ALLOW_INLINE_SECRETS=true/);
    }
    expect(() => loadConfig(env({ B2_SECRET_SINK: 'inline', B2_ALLOW_INLINE_SECRETS: 'yes' }), 'http')).toThrow(
      /B2_ALLOW_INLINE_SECRETS must be one of true, false/,
    );
    expect(loadConfig(env({ B2_SECRET_SINK: 'inline', B2_ALLOW_INLINE_SECRETS: 'TRUE' }), 'http').secretSink).toBe('inline');
    expect(loadConfig(env({ B2_SECRET_SINK: 'inline' }), 'stdio').secretSink).toBe('inline');
  });

  it('opens a usable ledger, an inline store, or nothing', () => {
    const path = join(fresh(), 'd', 'secrets.jsonl');
    const fileEnv = env({ B2_SECRET_SINK_FILE: path });
    expect(openSecretStore(loadConfig(fileEnv, 'stdio'), fileEnv).store?.mode).toBe('file');
    const inline = env({ B2_SECRET_SINK: 'inline' });
    expect(openSecretStore(loadConfig(inline, 'stdio'), inline).store?.mode).toBe('inline');
    const off = env({ B2_SECRET_SINK: 'off' });
    expect(openSecretStore(loadConfig(off, 'stdio'), off).store).toBeUndefined();
  });
});

describe('ledger torn tail', () => {
  it('ends a torn last line before appending, keeping what it held', async () => {
    const { ledger } = fileStore();
    writeFileSync(ledger.path, '{"ts":"2026-01-01T00:00:00Z","tool":"b2_create_key","result":{"applicationKey":"half-writ');
    await ledger.append('b2_create_key', { key: 'k', fingerprint: 'f' }, { applicationKey: CANARY });
    const lines = readFileSync(ledger.path, 'utf8').split('\n');
    expect(lines[0]).toContain('half-writ');
    expect(JSON.parse(lines[1]!)).toMatchObject({ result: { applicationKey: CANARY } });
    expect(ledger.lookup('b2_create_key', 'k', 'f').kind).toBe('replay');
  });
});
