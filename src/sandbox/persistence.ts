/**
 * `--state FILE`: the store as one JSON document, written on shutdown (temp file + rename) and
 * read back at start. Tokens, the request log and the mutation log are not kept: a restarted
 * sandbox makes clients re-authorize, as B2 does after token loss.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { compareVersions, fileVersionRecord, SandboxStore, type StoreOptions } from './store.js';
import type { BucketRecord, FileVersion, KeyRecord, PartRecord, StoredBody } from './model.js';
import { SortedList } from './sorted-list.js';

const FORMAT = 'b2-mcp-sandbox-state';
const VERSION = 1;

type BodyJson =
  | { kind: 'bytes'; base64: string }
  | { kind: 'filler'; size: number }
  | { kind: 'file'; path: string; size: number }
  | { kind: 'concat'; pieces: BodyJson[]; size: number };

type FileJson = Omit<FileVersion, 'body' | 'parts'> & {
  body: BodyJson | null;
  parts?: Array<Omit<PartRecord, 'body'> & { body: BodyJson }> | undefined;
};

type BucketJson = Omit<BucketRecord, 'versions' | 'unfinished'> & { versions: FileJson[] };

interface StateJson {
  format: typeof FORMAT;
  version: number;
  salt: string;
  clockOffsetMs: number;
  counters: ReturnType<SandboxStore['internals']>['counters'];
  keys: KeyRecord[];
  buckets: BucketJson[];
  groups: unknown[];
  trials: unknown[];
  knownEmails: string[];
}

class StateFileError extends Error {
  constructor(path: string, reason: string) {
    super(`cannot load sandbox state from ${path}: ${reason}`);
    this.name = 'StateFileError';
  }
}

function bodyToJson(body: StoredBody): BodyJson {
  switch (body.kind) {
    case 'bytes':
      return { kind: 'bytes', base64: body.data.toString('base64') };
    case 'concat':
      return { kind: 'concat', pieces: body.pieces.map(bodyToJson), size: body.size };
    default:
      return body;
  }
}

function bodyFromJson(json: BodyJson): StoredBody {
  switch (json.kind) {
    case 'bytes':
      return { kind: 'bytes', data: Buffer.from(json.base64, 'base64') };
    case 'concat':
      return { kind: 'concat', pieces: json.pieces.map(bodyFromJson), size: json.size };
    default:
      return json;
  }
}

function fileToJson(file: FileVersion): FileJson {
  const { body, parts, ...rest } = file;
  return {
    ...rest,
    body: body ? bodyToJson(body) : null,
    ...(parts ? { parts: [...parts.values()].map((p) => ({ ...p, body: bodyToJson(p.body) })) } : {}),
  };
}

export async function saveState(store: SandboxStore, path: string): Promise<void> {
  const internals = store.internals();
  const state: StateJson = {
    format: FORMAT,
    version: VERSION,
    salt: internals.salt,
    clockOffsetMs: internals.clockOffsetMs(),
    counters: internals.counters,
    keys: [...internals.keys.values()],
    buckets: [...internals.bucketsById.values()].map(({ versions, unfinished: _unfinished, ...bucket }) => ({
      ...bucket,
      versions: [...versions].map(fileToJson),
    })),
    groups: [...internals.groups.values()],
    trials: internals.trials,
    knownEmails: [...internals.knownEmails],
  };
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify(state), { mode: 0o600 });
  await rename(temp, path);
}

export async function loadState(path: string, options: Pick<StoreOptions, 'clock'>): Promise<SandboxStore> {
  let state: StateJson;
  try {
    state = JSON.parse(await readFile(path, 'utf8')) as StateJson;
  } catch (error) {
    throw new StateFileError(path, (error as Error).message);
  }
  if (state?.format !== FORMAT || state.version !== VERSION) throw new StateFileError(path, 'not a sandbox state file of a known version');
  const store = new SandboxStore({ ...options, idSalt: state.salt });
  const internals = store.internals();
  internals.setCounters(state.counters);
  internals.setClockOffset(state.clockOffsetMs);
  internals.keys.clear();
  for (const key of state.keys) internals.keys.set(key.applicationKeyId, key);
  for (const { versions, ...json } of state.buckets) {
    const bucket: BucketRecord = { ...json, versions: new SortedList(compareVersions), unfinished: new Map() };
    const unfinished: FileVersion[] = [];
    for (const fileJson of versions) {
      const { body, parts, ...rest } = fileJson;
      const file = fileVersionRecord(
        {
          ...rest,
          body: body ? bodyFromJson(body) : null,
          parts: parts ? new Map(parts.map((p) => [p.partNumber, { ...p, body: bodyFromJson(p.body) }])) : undefined,
        },
        rest,
      );
      bucket.versions.insert(file);
      internals.filesById.set(file.fileId, file);
      if (file.action === 'start') unfinished.push(file);
    }
    for (const file of unfinished.sort((a, b) => a.seq - b.seq)) bucket.unfinished.set(file.fileId, file);
    internals.bucketsById.set(bucket.bucketId, bucket);
    internals.bucketsByName.set(bucket.bucketName, bucket);
  }
  for (const group of state.groups as Array<{ groupId: string }>) internals.groups.set(group.groupId, group as never);
  internals.trials.push(...(state.trials as never[]));
  for (const email of state.knownEmails) internals.knownEmails.add(email);
  return store;
}
