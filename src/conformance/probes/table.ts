import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConformError } from '../errors.js';
import { jsonSchemaValidator } from '../connect/json-schema.js';
import { BUNDLED } from '../package-root.js';
import type { TargetSpec } from './targets.js';

export type Arguments = Record<string, unknown>;

/** What a confirmed call of a gated tool must do. */
export type GateEffect = 'mutation' | 'signed-url' | 'unavailable';

export interface GateProbeSpec {
  tool: string;
  effect: GateEffect;
  target: TargetSpec;
  trigger: Arguments;
  harmless?: { why: string; target: TargetSpec; arguments: Arguments };
}

export interface ReadProbeSpec {
  tool: string;
  arguments: Arguments;
  expect?: 'result' | 'error';
}

/** One operation a write must log, with what it names (fields left out are not compared). */
export interface ExpectedMutation {
  operation: string;
  bucketName?: string;
  fileName?: string;
  uploadId?: string;
}

/** One change the store digest must show: `version added` etc., its bucket and key, and the facts it must have. */
export interface ExpectedChange {
  change: string;
  bucket: string;
  key: string;
  [fact: string]: unknown;
}

/** What an ungated write must do, exactly and by content: these mutations, these changes, nothing else. */
export interface WriteEffect {
  /** The sandbox operations the call must log, in order. */
  mutations: ExpectedMutation[];
  /** Every change of the store, each matched by its facts; anything else that changed fails the probe. */
  changes: ExpectedChange[];
  /** The result must carry exactly one presigned URL, for this object (and part). */
  signedUrl?: { bucket: string; key: string; uploadId?: string; partNumber?: number };
}

export interface WriteProbeSpec {
  tool: string;
  target: TargetSpec;
  arguments: Arguments;
  effect: WriteEffect;
}

export interface ProbeTables {
  gates: GateProbeSpec[];
  reads: ReadProbeSpec[];
  /** Targets the reads share, by the name their templates use. */
  readContext: Record<string, TargetSpec>;
  writes: WriteProbeSpec[];
  /** Arguments no tool declares, tried in order until one is not in the tool's schema. */
  undeclared: Arguments[];
  /** Consent-looking arguments no gated tool declares (`skipConfirmation: true`, ...). */
  consent: Arguments[];
}

export const PROBE_TABLES_DIR = join(BUNDLED.rulesDir, 'probes');
const SCHEMA_FILE = 'probe-table.schema.json';

function readTable(
  dir: string,
  name: string,
  validate: (((data: unknown) => boolean) & { errors?: unknown }) | undefined,
): Record<string, unknown> {
  const file = join(dir, name);
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new ConformError('config', `probe table ${file}: ${(error as Error).message}`);
  }
  if (validate && !validate(data)) {
    const error = (validate.errors as { instancePath?: string; message?: string }[] | undefined)?.[0];
    throw new ConformError('config', `probe table ${name}: ${error?.instancePath || '/'} ${error?.message ?? 'is invalid'}`);
  }
  return data;
}

/** Load rules/probes/gates.json, reads.json and writes.json (with `validate`, against their schema: tests do this). */
export function loadProbeTables(dir: string = PROBE_TABLES_DIR, options: { validate?: boolean } = {}): ProbeTables {
  const validate = options.validate ? jsonSchemaValidator().compile(JSON.parse(readFileSync(join(dir, SCHEMA_FILE), 'utf8'))) : undefined;
  const gates = readTable(dir, 'gates.json', validate);
  const reads = readTable(dir, 'reads.json', validate);
  const writes = readTable(dir, 'writes.json', validate);
  return {
    gates: gates.gates as GateProbeSpec[],
    reads: reads.reads as ReadProbeSpec[],
    readContext: (reads.context ?? {}) as Record<string, TargetSpec>,
    writes: writes.writes as WriteProbeSpec[],
    undeclared: writes.undeclared as Arguments[],
    consent: (gates.consent ?? []) as Arguments[],
  };
}

const PLACEHOLDER = /\{\{([A-Za-z][\w-]*(?:\.[A-Za-z][\w-]*)*)\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{([A-Za-z][\w-]*(?:\.[A-Za-z][\w-]*)*)\}\}$/;

/** The names of the top-level values a template refers to (`{{hostile.key}}` → `hostile`). */
export function referencedNames(template: unknown): Set<string> {
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') for (const match of value.matchAll(PLACEHOLDER)) names.add(match[1]!.split('.')[0]!);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') Object.values(value).forEach(visit);
  };
  visit(template);
  return names;
}

function lookup(path: string, values: Record<string, unknown>): unknown {
  let current: unknown = values;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object' || !(part in current))
      throw new Error(`probe table placeholder {{${path}}} names nothing that was seeded`);
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** Fill `{{path}}` placeholders; a placeholder that is the whole string keeps the value's type. */
export function fillTemplate<T>(template: T, values: Record<string, unknown>): T {
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const whole = WHOLE_PLACEHOLDER.exec(value);
      if (whole) return lookup(whole[1]!, values);
      return value.replace(PLACEHOLDER, (_match, path: string) => String(lookup(path, values)));
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, fill(child)]));
    return value;
  };
  return fill(template) as T;
}
