/**
 * Property-based fuzzing of every tool's advertised inputSchema.
 *
 * Arguments are generated from the schemas the built server lists (profile full, Partner tools
 * included): valid ones (biased towards names that exist in the sandbox, so calls get deep),
 * boundary ones (every bound, and one past it) and hostile ones (wrong types, dropped required
 * fields, extra and prototype-pollution keys, huge strings, deep nesting, odd unicode, arguments
 * that are not objects at all). Each generated call is classified locally with the same
 * validator the server uses (Ajv 2020 with formats) and sent over a raw stdio pipe:
 * - valid calls go to a server on sandbox V: each gets a tool result — success, or a clear
 *   `B2 Error [code] (HTTP n)` (a destructive one under B2_DESTRUCTIVE_POLICY=block is refused);
 * - invalid calls go to a server on sandbox I: each gets a clear JSON-RPC error or an input
 *   validation error, and sandbox I must see no request at all — no call outside the schema
 *   reaches the backend.
 * Both servers must stay up with nothing but warn-level JSON logs on stderr.
 *
 * Calls in total: B2_FUZZ_CALLS (default 10,000), spread evenly over the tools, in batches of
 * 25 sent concurrently. A third server, under B2_DESTRUCTIVE_POLICY=confirm and a client that
 * cannot answer elicitation, gets generated destructive calls without `confirm`: every one is
 * refused and its sandbox sees no request — also after prototype-pollution attempts.
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../../src/sandbox/index.js';
import { adminCall, ALL_KEY_CAPABILITIES, createKey, startTestSandbox, sandboxCredentials } from '../../../support/sandbox-harness.js';
import { serverEnv } from '../../../support/server-harness.js';
import {
  isClearJsonRpcError,
  RawStdioServer,
  STACK_TRACE,
  stderrProblems,
  TOOL_ERROR_SHAPE,
  type JsonRpcResponse,
} from '../../../support/fuzz.js';

const TOTAL_CALLS = Number(process.env.B2_FUZZ_CALLS ?? 10_000);
const BATCH = 25;
const SEED = Number(process.env.B2_FUZZ_SEED ?? 20_261_130);

type JsonSchema = Record<string, unknown>;
type Mode = 'valid' | 'boundary';
type Kind = 'valid' | 'boundary' | 'hostile';

interface Tool {
  name: string;
  inputSchema: JsonSchema;
}

interface Call {
  tool: string;
  kind: Kind;
  args: unknown;
}

interface Side {
  sandbox: RunningSandbox;
  server: RawStdioServer;
}

let valid: Side;
let invalid: Side;
let tools: Tool[] = [];
/** Requests sandbox I had seen once its server was up (it must never see another). */
let invalidBaseline = 0;
const tally = {
  calls: 0,
  valid: 0,
  invalid: 0,
  byKind: { valid: 0, boundary: 0, hostile: 0 } as Record<Kind, number>,
  blocked: 0,
  toolErrors: 0,
  protocolErrors: 0,
  validationErrors: 0,
};

// ── the validator the server uses ──────────────────────────────────────────────────────────
type Validate = (data: unknown) => boolean;
const require = createRequire(import.meta.url);
const Ajv2020 = require('ajv/dist/2020.js').default as new (options: object) => { compile(schema: object): Validate };
const addFormats = require('ajv-formats').default as (ajv: object) => void;
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const validators = new Map<string, Validate>();

/**
 * Nesting thousands deep overflows JSON.stringify here, so it travels as a placeholder that the
 * frame text is expanded from; the server receives the real nesting.
 */
class DeepNesting {
  constructor(
    readonly depth: number,
    readonly kind: 'array' | 'object',
  ) {}

  toJSON(): string {
    return `@@deep:${this.depth}:${this.kind}@@`;
  }
}

const DEEP_PLACEHOLDER = /"@@deep:(\d+):(array|object)@@"/g;

function nestedText(depth: number, kind: string): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}"bottom"${']'.repeat(depth)}`
    : `${'{"deeper":'.repeat(depth)}"bottom"${'}'.repeat(depth)}`;
}

/** The frame line: JSON, with deep nesting expanded in place. */
const frameText = (frame: object): string =>
  JSON.stringify(frame).replace(DEEP_PLACEHOLDER, (_match, depth: string, kind: string) => nestedText(Number(depth), kind));

/** The arguments as the server will see them (through JSON; deep nesting as two levels, which every schema refuses alike). */
const onTheWire = (args: unknown): unknown =>
  JSON.parse((JSON.stringify(args) ?? 'null').replace(DEEP_PLACEHOLDER, (_match, _depth: string, kind: string) => nestedText(2, kind)));

/** The server refuses arguments with more JSON elements than this before validating them (SDK `maxToolInputElements`). */
const MAX_INPUT_ELEMENTS = 20_000;

/** Array items and object members at every depth (iteratively: hostile arguments nest thousands deep). */
function elementCount(value: unknown): number {
  let count = 0;
  const pending = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== 'object') continue;
    const children = Array.isArray(node) ? node : Object.values(node);
    count += children.length;
    pending.push(...children);
  }
  return count;
}

/** Whether the server must serve the call: the schema admits it and it is within the element cap. */
function isValidCall(call: Call): boolean {
  const args = onTheWire(call.args);
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return false;
  return validators.get(call.tool)!(args) && elementCount(args) <= MAX_INPUT_ELEMENTS;
}

// ── generators from JSON Schema ────────────────────────────────────────────────────────────
const KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'maxProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'enum',
  'const',
  'format',
  'minimum',
  'maximum',
  'anyOf',
  'default',
  'description',
  '$schema',
]);

/** Real names in the sandbox by property name, so valid calls reach real resources. */
let hints: Record<string, string[]> = {};

function distinct<T>(values: T[]): T[] {
  return [...new Set(values)];
}

function stringArbitrary(schema: JsonSchema, mode: Mode, name: string): fc.Arbitrary<string> {
  const min = (schema.minLength as number | undefined) ?? 0;
  const max = schema.maxLength as number | undefined;
  if (mode === 'boundary') {
    const lengths = distinct([min, Math.max(min - 1, 0), max ?? 10_000, (max ?? 10_000) + 1, 0]);
    return fc.constantFrom(...lengths).map((length) => 'a'.repeat(length));
  }
  const cap = Math.min(max ?? 48, Math.max(min, 48));
  let generic: fc.Arbitrary<string>;
  if (schema.format === 'email') generic = fc.emailAddress();
  else if (typeof schema.pattern === 'string') {
    const charClass = /^\^\[([^\]]+)\]\+\$$/.exec(schema.pattern);
    generic = charClass
      ? fc.string({ unit: fc.stringMatching(new RegExp(`^[${charClass[1]}]$`)), minLength: Math.max(min, 1), maxLength: cap })
      : fc.stringMatching(new RegExp(schema.pattern)).filter((text) => text.length >= min && text.length <= (max ?? Infinity));
  } else {
    generic = fc.oneof(fc.string({ minLength: min, maxLength: cap }), fc.string({ unit: 'binary', minLength: min, maxLength: cap }));
  }
  const known = hints[name];
  return known?.length ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: generic }) : generic;
}

function integerArbitrary(schema: JsonSchema, mode: Mode): fc.Arbitrary<number> {
  const min = (schema.minimum as number | undefined) ?? -(2 ** 31);
  const max = (schema.maximum as number | undefined) ?? 2 ** 31;
  if (mode === 'boundary') return fc.constantFrom(...distinct([min, max, min - 1, max + 1, 0, -1, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2]));
  return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max));
}

function arrayArbitrary(schema: JsonSchema, mode: Mode, name: string): fc.Arbitrary<unknown[]> {
  // At a boundary the length is what is tested; the items stay valid (nested bounds would multiply).
  const items = arbitrary(schema.items as JsonSchema, 'valid', name);
  const min = (schema.minItems as number | undefined) ?? 0;
  const max = schema.maxItems as number | undefined;
  if (mode === 'boundary') {
    const lengths = distinct([min, Math.max(min - 1, 0), max ?? 200, (max ?? 200) + 1]);
    // Long arrays repeat one generated element: the bound is what is being tested.
    return fc
      .constantFrom(...lengths)
      .chain((length) =>
        length > 20 ? items.map((item) => Array.from({ length }, () => item)) : fc.array(items, { minLength: length, maxLength: length }),
      );
  }
  return fc.array(items, { minLength: min, maxLength: Math.min(max ?? 4, Math.max(min, 4)) });
}

function objectArbitrary(schema: JsonSchema, mode: Mode, name: string): fc.Arbitrary<Record<string, unknown>> {
  const additional = schema.additionalProperties;
  if (additional !== null && typeof additional === 'object') {
    // A map: keys from propertyNames, values from additionalProperties.
    const keys = arbitrary(
      { type: 'string', ...(schema.propertyNames as JsonSchema | undefined) },
      mode === 'boundary' ? 'valid' : mode,
      `${name}.key`,
    );
    const maxProperties = schema.maxProperties as number | undefined;
    const maxKeys = mode === 'boundary' ? (maxProperties ?? 20) + 1 : Math.min(maxProperties ?? 4, 4);
    return fc.dictionary(keys, arbitrary(additional as JsonSchema, 'valid', `${name}.value`), {
      maxKeys,
      minKeys: mode === 'boundary' ? Math.min(maxKeys, 1) : 0,
    });
  }
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  // At a boundary, each property is at one of its bounds or valid.
  const child = (key: string, childSchema: JsonSchema) =>
    mode === 'boundary'
      ? fc.oneof(arbitrary(childSchema, 'boundary', key), arbitrary(childSchema, 'valid', key))
      : arbitrary(childSchema, 'valid', key);
  const model = Object.fromEntries(Object.entries(properties).map(([key, childSchema]) => [key, child(key, childSchema)]));
  return fc.record(model, { requiredKeys: (schema.required as string[] | undefined) ?? [] }) as fc.Arbitrary<Record<string, unknown>>;
}

/** Values for `schema`: within it (`valid`), or at and just past its bounds (`boundary`). */
function arbitrary(schema: JsonSchema, mode: Mode, name = ''): fc.Arbitrary<unknown> {
  const unknown = Object.keys(schema).filter((keyword) => !KEYWORDS.has(keyword));
  if (unknown.length > 0) throw new Error(`fuzz: no generator for keyword(s) ${unknown.join(', ')} at ${name || 'the root'}`);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) {
    const members = fc.constantFrom(...(schema.enum as unknown[]));
    return mode === 'boundary'
      ? fc.oneof(members, fc.constantFrom('', String(schema.enum[0]).toUpperCase(), `${String(schema.enum[0])} `))
      : members;
  }
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as JsonSchema[]).map((option) => arbitrary(option, mode, name)));
  switch (schema.type) {
    case 'string':
      return stringArbitrary(schema, mode, name);
    case 'integer':
      return integerArbitrary(schema, mode);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return arrayArbitrary(schema, mode, name);
    case 'object':
      return objectArbitrary(schema, mode, name);
    default:
      throw new Error(`fuzz: no generator for type ${JSON.stringify(schema.type)} at ${name || 'the root'}`);
  }
}

// ── hostile arguments ──────────────────────────────────────────────────────────────────────
/** Keys that are dangerous wherever an object is built from input. */
const POLLUTING_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, -0, 1e308, 2 ** 53 + 2, '', ' ', '0', 'true', [], {}, [null], { '': '' }),
  },
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.string({ unit: 'binary', maxLength: 64 }),
      fc.constantFrom(
        '\u0000',
        '\ud800',
        '\udfff',
        '\u202e\u0645',
        '\ufeffbom',
        'e\u0301',
        '\u2028\u2029',
        '😀'.repeat(300),
        '../../etc/passwd',
        '%00',
        '${jndi:x}',
      ),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(65_536, 300_000, 1_100_000).map((length) => 'A'.repeat(length)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(64, 1_000, 5_000, 50_000), fc.constantFrom<'array' | 'object'>('array', 'object'))
      .map(([depth, kind]) => new DeepNesting(depth, kind)),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('{"__proto__":{"confirm":true,"isError":true}}', '{"constructor":{"prototype":{"confirm":true}}}', '{"__proto__":null}')
      .map((text) => JSON.parse(text) as unknown),
  },
);

/** An own property, even for `__proto__` (as JSON.parse makes it), never a prototype change. */
function withOwn(target: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy = { ...target };
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

type Mutation = (args: Record<string, unknown>, schema: JsonSchema) => unknown;

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  // a property (existing, required, or any declared one) gets a value of the wrong kind
  fc.tuple(fc.nat(), hostileValue).map(
    ([pick, value]): Mutation =>
      (args, schema) => {
        const names = distinct([...Object.keys(args), ...Object.keys((schema.properties ?? {}) as object)]);
        return names.length === 0 ? withOwn(args, 'unexpected', value) : withOwn(args, names[pick % names.length]!, value);
      },
  ),
  // a required property goes missing
  fc.nat().map(
    (pick): Mutation =>
      (args, schema) => {
        const required = (schema.required as string[] | undefined) ?? [];
        if (required.length === 0) return withOwn(args, 'unexpected', 1);
        const { [required[pick % required.length]!]: _dropped, ...rest } = args;
        return rest;
      },
  ),
  // an extra property, often one that pollutes prototypes
  fc.tuple(fc.oneof(fc.constantFrom(...POLLUTING_KEYS), fc.string({ maxLength: 12 })), hostileValue).map(
    ([key, value]): Mutation =>
      (args) =>
        withOwn(args, key, value),
  ),
  // a polluting key one level down, inside an object-valued property
  fc.tuple(fc.constantFrom(...POLLUTING_KEYS), fc.constantFrom<unknown>({ confirm: true }, 'x', null)).map(
    ([key, value]): Mutation =>
      (args) => {
        const host = Object.keys(args).find((name) => args[name] !== null && typeof args[name] === 'object' && !Array.isArray(args[name]));
        return host ? withOwn(args, host, withOwn(args[host] as Record<string, unknown>, key, value)) : withOwn(args, key, value);
      },
  ),
  // the arguments are not an object at all
  fc.constantFrom<unknown>(null, [], 5, 'args', true, [{}]).map(
    (replacement): Mutation =>
      () =>
        replacement,
  ),
);

function callArbitrary(tool: Tool): fc.Arbitrary<Call> {
  const schema = tool.inputSchema;
  const of =
    (kind: Kind) =>
    (args: unknown): Call => ({ tool: tool.name, kind, args });
  return fc.oneof(
    { weight: 4, arbitrary: arbitrary(schema, 'valid').map(of('valid')) },
    { weight: 2, arbitrary: arbitrary(schema, 'boundary').map(of('boundary')) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(arbitrary(schema, 'valid'), mutation)
        .map(([args, mutate]) => of('hostile')(mutate(args as Record<string, unknown>, schema))),
    },
  );
}

// ── judging the answers ────────────────────────────────────────────────────────────────────
/**
 * When a call must be gated, written from the contract (§6.2, plus docs/deviations.md) rather than
 * taken from the handlers' gate functions, so the oracle does not weaken with the code.
 */
const ALWAYS_GATED = new Set([
  'b2_delete_bucket',
  'b2_delete_key',
  's3_delete_object',
  's3_delete_objects',
  's3_abort_multipart_upload',
  'b2_create_key',
  'b2_create_group_member',
  'b2_reserve_trial_create_account',
  'b2_eject_group_member',
  'b2_set_bucket_notification_rules',
  // Every S3 lifecycle action deletes or discards: expiration, noncurrent expiration, abort of unfinished uploads.
  's3_put_bucket_lifecycle',
]);
type Rule = Record<string, unknown>;
const set = (value: unknown) => value !== undefined && value !== null;
const rulesOf = (value: unknown): Rule[] => (Array.isArray(value) ? (value as Rule[]) : []);
const CONDITIONALLY_GATED: Record<string, (args: Rule) => boolean> = {
  s3_get_presigned_url: (a) => a.operation === 'PutObject',
  b2_update_file_retention: (a) => (a.fileRetention as Rule | undefined)?.mode === null || a.bypassGovernance === true,
  b2_update_file_legal_hold: (a) => a.legalHold === 'off',
  b2_create_bucket: (a) => a.bucketType === 'allPublic',
  b2_update_bucket: (a) =>
    a.bucketType === 'allPublic' ||
    a.fileLockEnabled === false ||
    a.defaultRetention !== undefined ||
    rulesOf(a.lifecycleRules).some(
      (rule) => set(rule.daysFromHidingToDeleting) || set(rule.daysFromStartingToCancelingUnfinishedLargeFiles),
    ) ||
    a.replicationConfiguration !== undefined ||
    (a.defaultServerSideEncryption as Rule | undefined)?.mode === 'none',
};
const isGatedByContract = (tool: string, args: Rule): boolean => ALWAYS_GATED.has(tool) || (CONDITIONALLY_GATED[tool]?.(args) ?? false);

const preview = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 240 ? `${text.slice(0, 240)}… (${text.length} chars)` : text;
};

const resultText = (response: JsonRpcResponse): string =>
  ((response.result?.content as Array<{ text?: unknown }> | undefined)?.[0]?.text as string | undefined) ?? '';

/** What is wrong with the answer to a call the schema admits (undefined when nothing is). */
function judgeValid(call: Call, response: JsonRpcResponse): string | undefined {
  if (!response.result) return `a valid call got a protocol error: ${preview(response.error)}`;
  const text = resultText(response);
  if (text.trim() === '') return 'the result has no text';
  if (STACK_TRACE.test(text)) return `the result shows a stack trace: ${preview(text)}`;
  if (isGatedByContract(call.tool, onTheWire(call.args) as Rule)) {
    tally.blocked += 1;
    return response.result.isError === true && text.startsWith('B2 Error [destructive_policy_blocked] (HTTP 403)')
      ? undefined
      : `a destructive call was not refused: ${preview(text)}`;
  }
  if (response.result.isError !== true) return undefined;
  tally.toolErrors += 1;
  if (text.startsWith('Input validation error')) return `the server refused arguments its own schema admits: ${preview(text)}`;
  if (!TOOL_ERROR_SHAPE.test(text)) return `unclear tool error: ${preview(text)}`;
  if (text.includes('failed unexpectedly')) return `the handler threw something unexpected: ${preview(text)}`;
  return undefined;
}

/** How the server refuses arguments: a schema violation, or too many elements. */
const INPUT_REFUSAL = /^(Input validation error: )?Invalid arguments for tool [a-z0-9_]+: \S/;

/** What is wrong with the answer to a call outside the schema. */
function judgeInvalid(response: JsonRpcResponse): string | undefined {
  if (response.error) {
    tally.protocolErrors += 1;
    return isClearJsonRpcError(response) && !STACK_TRACE.test(String(response.error.message))
      ? undefined
      : `unclear JSON-RPC error: ${preview(response.error)}`;
  }
  const text = resultText(response);
  if (response.result?.isError !== true) return `a call outside the schema was served: ${preview(text)}`;
  tally.validationErrors += 1;
  if (STACK_TRACE.test(text)) return `the error shows a stack trace: ${preview(text)}`;
  return INPUT_REFUSAL.test(text) ? undefined : `unclear validation error: ${preview(text)}`;
}

async function runBatch(calls: Call[]): Promise<void> {
  const problems: string[] = [];
  await Promise.all(
    calls.map(async (call) => {
      const admitted = isValidCall(call);
      const side = admitted ? valid : invalid;
      let response: JsonRpcResponse;
      try {
        response = await side.server.request('tools/call', { name: call.tool, arguments: call.args }, frameText);
      } catch (error) {
        problems.push(`${call.tool} (${call.kind}, ${admitted ? 'valid' : 'invalid'}) ${preview(call.args)}: ${(error as Error).message}`);
        return;
      }
      tally.calls += 1;
      tally.byKind[call.kind] += 1;
      if (admitted) tally.valid += 1;
      else tally.invalid += 1;
      const problem = admitted ? judgeValid(call, response) : judgeInvalid(response);
      if (problem) problems.push(`${call.tool} (${call.kind}) ${preview(call.args)}: ${problem}`);
    }),
  );
  const leaked = invalid.sandbox.context.requests.list().length - invalidBaseline;
  if (leaked > 0)
    problems.push(`calls outside the schema reached sandbox I: ${preview(invalid.sandbox.context.requests.list().slice(-leaked))}`);
  if (!valid.server.alive || !invalid.server.alive) problems.push('a server process exited');
  if (problems.length > 0) throw new Error(problems.slice(0, 5).join('\n'));
}

// ── set-up ─────────────────────────────────────────────────────────────────────────────────
async function startSide(policy: 'block' | 'confirm' = 'block'): Promise<Side> {
  const sandbox = await startTestSandbox();
  const key = await createKey(sandbox, { capabilities: ALL_KEY_CAPABILITIES });
  const server = RawStdioServer.start(
    serverEnv({
      LOG_LEVEL: 'warn',
      B2_MCP_PROFILE: 'full',
      ...sandboxCredentials(sandbox, key, { partner: true }),
      B2_DESTRUCTIVE_POLICY: policy,
      // Secret tools expose their real schemas; local paths stay out of reach of random strings.
      B2_SECRET_SINK: 'inline',
      B2_ALLOW_LOCAL_FILES: 'false',
    }),
  );
  const opened = await server.initialize();
  expect(opened.result?.protocolVersion).toBeDefined();
  return { sandbox, server };
}

function sandboxHints(sandbox: RunningSandbox): Record<string, string[]> {
  const store = sandbox.store;
  const buckets = store.listBuckets().filter((bucket) => bucket.bucketName.startsWith('demo-'));
  const bucketNames = buckets.map((bucket) => bucket.bucketName);
  const assets = store.findBucketByName('demo-private-assets')!;
  const files = store
    .listFileNames(assets.bucketId, { maxFileCount: 20 })
    .entries.flatMap((entry) => (entry.kind === 'version' ? [entry.version] : []));
  const objectKeys = files.map((file) => file.fileName);
  const unfinished = store.listUnfinishedLargeFiles(assets.bucketId, { maxFileCount: 5 }).files;
  const group = store.listGroups()[0]!;
  return {
    bucket: bucketNames,
    bucketName: bucketNames,
    sourceBucket: bucketNames,
    destinationBucket: bucketNames,
    bucketId: buckets.map((bucket) => bucket.bucketId),
    key: objectKeys,
    sourceKey: objectKeys,
    destinationKey: objectKeys.map((key) => `fuzz/${key}`),
    copySource: objectKeys.map((key) => `demo-private-assets/${key}`),
    fileId: files.map((file) => file.fileId),
    fileName: objectKeys,
    uploadId: unfinished.map((file) => file.fileId),
    adminAccountId: [sandbox.accountId],
    groupId: [group.groupId],
    memberAccountId: group.members.map((member) => member.accountId),
    applicationKeyId: store.allKeys().map((key) => key.applicationKeyId),
  };
}

beforeAll(async () => {
  [valid, invalid] = await Promise.all([startSide(), startSide()]);
  const listed = await valid.server.request('tools/list');
  tools = (listed.result?.tools as Tool[] | undefined) ?? [];
  const listedByI = await invalid.server.request('tools/list');
  expect(listedByI.result?.tools).toEqual(tools);
  for (const tool of tools) validators.set(tool.name, ajv.compile(tool.inputSchema));
  hints = sandboxHints(valid.sandbox);
  invalidBaseline = invalid.sandbox.context.requests.list().length;
});

afterAll(async () => {
  await Promise.all([valid?.server.close(), invalid?.server.close()]);
  await Promise.all([valid?.sandbox.close(), invalid?.sandbox.close()]);
});

/** The probe table rules/probes/gates.json: a second, independent account of every gate trigger. */
interface GateRow {
  tool: string;
  trigger: Rule;
  harmless?: { arguments: Rule };
}
const GATE_TABLE = (
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'rules', 'probes', 'gates.json'), 'utf8')) as {
    gates: GateRow[];
  }
).gates;

describe('the gating oracle agrees with the probe table', () => {
  it('both name the same gated tools', () => {
    expect(GATE_TABLE.map((row) => row.tool).sort()).toEqual([...ALWAYS_GATED, ...Object.keys(CONDITIONALLY_GATED)].sort());
  });

  it.each(GATE_TABLE)("$tool: the table's trigger is gated, its harmless twin is not", ({ tool, trigger, harmless }) => {
    expect(isGatedByContract(tool, trigger)).toBe(true);
    if (harmless) expect(isGatedByContract(tool, harmless.arguments)).toBe(false);
    expect(harmless === undefined).toBe(ALWAYS_GATED.has(tool));
  });
});

describe('fuzzing every tool inputSchema over stdio', () => {
  it('the full surface is listed (40 tools) and every schema has a generator', () => {
    expect(tools.length).toBe(40);
    for (const tool of tools) expect(() => callArbitrary(tool)).not.toThrow();
  });

  it(`${TOTAL_CALLS} generated calls: clear answers, no crash, nothing outside the schema reaches B2`, async () => {
    const perTool = Math.ceil(TOTAL_CALLS / tools.length);
    const started = performance.now();
    for (const [index, tool] of tools.entries()) {
      const runs = Math.ceil(perTool / BATCH);
      await fc.assert(fc.asyncProperty(fc.array(callArbitrary(tool), { minLength: BATCH, maxLength: BATCH }), runBatch), {
        numRuns: runs,
        seed: SEED + index,
        endOnFailure: true,
        // Counterexamples can hold megabyte strings: report the problems and the seed, not the value.
        reporter: (details) => {
          if (details.failed)
            throw new Error(`${tool.name}, seed ${details.seed}: ${(details.errorInstance as Error | undefined)?.message ?? 'failed'}`);
        },
      });
    }
    const seconds = (performance.now() - started) / 1000;
    console.info(`fuzz: ${tally.calls} calls in ${seconds.toFixed(1)} s — ${JSON.stringify(tally)}`);

    expect(tally.calls).toBeGreaterThanOrEqual(TOTAL_CALLS);
    for (const kind of ['valid', 'boundary', 'hostile'] as const) expect(tally.byKind[kind]).toBeGreaterThan(TOTAL_CALLS / 10);
    expect(tally.valid).toBeGreaterThan(TOTAL_CALLS / 5);
    expect(tally.invalid).toBeGreaterThan(TOTAL_CALLS / 5);
    expect(tally.blocked).toBeGreaterThan(0);
    expect(tally.protocolErrors).toBeGreaterThan(0);
    expect(tally.validationErrors).toBeGreaterThan(0);
  }, 600_000);

  it('afterwards: both servers still answer, stderr holds no errors, sandbox I saw no request, nothing destructive ran on V', async () => {
    for (const side of [valid, invalid]) {
      expect(side.server.alive).toBe(true);
      const listed = await side.server.request('tools/list');
      expect((listed.result!.tools as unknown[]).length).toBe(40);
      expect(stderrProblems(side.server.stderr)).toEqual([]);
    }
    const requestsOnI = await adminCall<{ requests: unknown[] }>(invalid.sandbox, 'GET', '/requests');
    expect(requestsOnI.requests.length).toBe(invalidBaseline);
    const mutationsOnV = await adminCall<{ mutations: Array<{ operation: string }> }>(valid.sandbox, 'GET', '/mutations');
    const alwaysGated = [
      'b2_delete_bucket',
      'b2_delete_key',
      'b2_eject_group_member',
      'b2_create_group_member',
      'b2_reserve_trial_create_account',
      'b2_create_key',
      'b2_set_bucket_notification_rules',
      'AbortMultipartUpload',
      'DeleteObject',
      'DeleteObjects',
    ];
    expect(mutationsOnV.mutations.filter((entry) => alwaysGated.includes(entry.operation))).toEqual([]);
  });
});

describe('destructive calls without confirm under B2_DESTRUCTIVE_POLICY=confirm', () => {
  let side: Side;

  beforeAll(async () => {
    side = await startSide('confirm');
  });

  afterAll(async () => {
    await side?.server.close();
    await side?.sandbox.close();
  });

  // The gated tools as the server advertises them: the ones with a confirm field.
  const gatedTools = () => tools.filter((tool) => 'confirm' in ((tool.inputSchema as { properties?: object }).properties ?? {}));

  /** Generated calls each gate fires for, without `confirm`: each must be refused, nothing must reach B2. */
  async function expectRefusals(runs: number, seedOffset: number): Promise<number> {
    const requestsBefore = side.sandbox.context.requests.list().length;
    let refused = 0;
    for (const [index, tool] of gatedTools().entries()) {
      const calls = arbitrary(tool.inputSchema, 'valid')
        .map((args) => {
          const { confirm: _confirm, ...rest } = args as Record<string, unknown>;
          return rest;
        })
        .filter((args) => isGatedByContract(tool.name, onTheWire(args) as Rule) && isValidCall({ tool: tool.name, kind: 'valid', args }));
      await fc.assert(
        fc.asyncProperty(calls, async (args) => {
          const response = await side.server.request('tools/call', { name: tool.name, arguments: args }, frameText);
          const text = resultText(response);
          if (
            response.result?.isError !== true ||
            !text.startsWith('B2 Error [destructive_confirmation_required] (HTTP 409): Confirmation required')
          ) {
            throw new Error(`${tool.name} ${preview(args)} was not refused: ${preview(response)}`);
          }
          refused += 1;
        }),
        { numRuns: runs, seed: SEED + seedOffset + index, endOnFailure: true },
      );
    }
    expect(side.sandbox.context.requests.list().length).toBe(requestsBefore);
    return refused;
  }

  it('every gated tool refuses generated calls that lack confirm, and B2 sees nothing', async () => {
    expect(
      gatedTools()
        .map((tool) => tool.name)
        .sort(),
    ).toEqual([...ALWAYS_GATED, ...Object.keys(CONDITIONALLY_GATED)].sort());
    const mutationsBefore = (await adminCall<{ mutations: unknown[] }>(side.sandbox, 'GET', '/mutations')).mutations;
    expect(await expectRefusals(10, 1_000)).toBe(gatedTools().length * 10);
    expect((await adminCall<{ mutations: unknown[] }>(side.sandbox, 'GET', '/mutations')).mutations).toEqual(mutationsBefore);
  });

  it('prototype-pollution attempts neither pass nor weaken the gate afterwards', async () => {
    const bucketId = side.sandbox.store.findBucketByName('demo-private-assets')!.bucketId;
    const polluted = (text: string) => JSON.parse(text) as Record<string, unknown>;
    // Top level: __proto__ is refused as an unknown key (the SDK would otherwise drop it silently); constructor too.
    for (const args of [
      polluted(`{"bucketId":"${bucketId}","__proto__":{"confirm":true}}`),
      polluted(`{"bucketId":"${bucketId}","constructor":{"prototype":{"confirm":true}}}`),
    ]) {
      const response = await side.server.request('tools/call', { name: 'b2_delete_bucket', arguments: args });
      expect(judgeInvalid(response), preview(response)).toBeUndefined();
    }
    // Inside free-form maps the keys are legal: the calls run, and nothing leaks into prototypes.
    const mapped = await side.server.request('tools/call', {
      name: 's3_put_object',
      arguments: {
        bucket: 'demo-private-assets',
        key: 'fuzz/proto.txt',
        content: 'eA==',
        metadata: polluted('{"__proto__":"x","constructor":"y","prototype":"z"}'),
      },
    });
    expect(mapped.result?.isError, resultText(mapped)).toBeFalsy();
    expect(await expectRefusals(3, 2_000)).toBe(gatedTools().length * 3);
    expect(side.server.alive).toBe(true);
    expect(stderrProblems(side.server.stderr)).toEqual([]);
  });
});
