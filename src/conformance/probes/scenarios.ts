import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Document, LineCounter } from 'yaml';
import { ConformError } from '../errors.js';
import { jsonSchemaValidator } from '../connect/json-schema.js';
import { BUNDLED } from '../package-root.js';
import type { ConnectionSettings } from '../connect/settings.js';
import type { judgeUndeclared } from './arguments.js';
import type { CallOutcome, ProbeServer, ProbeSession } from './sessions.js';

/** One pointer assertion on a result's structuredContent. */
export interface Assertion {
  pointer: string;
  equals?: unknown;
  exists?: boolean;
  type?: 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';
}

export interface Scenario {
  name: string;
  tool: string;
  arguments?: Record<string, unknown>;
  expect?: { isError?: boolean; structuredContent?: Assertion[]; golden?: string; maxLatencyMs?: number };
}

/** A scenario file, validated, with its golden files read. */
export interface ScenarioFile {
  file: string;
  scenarios: (Scenario & { goldenValue?: unknown })[];
}

/** Every aspect a scenario expectation or `--call-tool` records, the one list rules may name. */
export const SCENARIO_ASPECTS = [
  'scenario.call',
  'scenario.is-error',
  'scenario.assertion',
  'scenario.golden',
  'scenario.latency',
  'call.text-block',
  'call.undeclared-argument',
] as const;

/** One expectation of one scenario, met or not; rules pick the aspects they judge. */
export interface ScenarioObservation {
  aspect: (typeof SCENARIO_ASPECTS)[number];
  passed: boolean;
  scenario: string;
  tool: string;
  /** The pointer an assertion looked at. */
  pointer?: string;
  detail: string;
}

export interface ScenarioOutcome {
  /** The scenario file, when one was given. */
  file?: string;
  /** How many --call-tool calls ran. */
  calls: number;
  observations: ScenarioObservation[];
}

/** `--call-tool NAME[=args.json]`: a read-only tool the user lets the checker call, with these arguments. */
export interface ToolCall {
  tool: string;
  arguments: Record<string, unknown>;
  /** One argument the tool's schema does not declare: the same call with it added must be refused. */
  undeclared?: Record<string, unknown>;
}

export function parseToolCall(spec: string, cwd: string): ToolCall {
  const eq = spec.indexOf('=');
  const tool = (eq === -1 ? spec : spec.slice(0, eq)).trim();
  if (!tool) throw new ConformError('usage', `--call-tool "${spec}": expected NAME or NAME=ARGS.json`);
  if (eq === -1) return { tool, arguments: {} };
  const file = resolve(cwd, spec.slice(eq + 1));
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConformError(
      'usage',
      `--call-tool ${tool}: cannot read its arguments from ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ConformError('usage', `--call-tool ${tool}: ${file} must hold a JSON object of arguments`);
  return { tool, arguments: value as Record<string, unknown> };
}

/**
 * A successful structured result must say the same in its text: some text block parses to JSON
 * equal to structuredContent (clients that show only text must not see something else). A
 * result without structuredContent, or an error result, has nothing to compare.
 */
function judgeTextBlock(call: ToolCall, outcome: CallOutcome): ScenarioObservation[] {
  const base = { scenario: `--call-tool ${call.tool}`, tool: call.tool };
  if (!outcome.result)
    return [
      {
        ...base,
        aspect: 'scenario.call',
        passed: false,
        detail: outcome.timedOut
          ? 'the call got no answer within --timeout'
          : `the call failed: ${(outcome.thrown ?? 'no result').slice(0, 200)}`,
      },
    ];
  const structured = outcome.result.structuredContent;
  if (outcome.result.isError === true || structured === undefined) return [];
  const texts = (outcome.result.content ?? []).flatMap((block) =>
    block.type === 'text' && typeof block.text === 'string' ? [block.text] : [],
  );
  const equal = texts.some((text) => {
    try {
      return isDeepStrictEqual(JSON.parse(text), structured);
    } catch {
      return false;
    }
  });
  return [
    {
      ...base,
      aspect: 'call.text-block',
      passed: equal,
      detail: equal
        ? 'a text block equals structuredContent'
        : texts.length === 0
          ? 'the result has structuredContent but no text block'
          : 'no text block parses to JSON equal to structuredContent',
    },
  ];
}

/**
 * The call again with one undeclared argument: it must be refused (invalid params or isError).
 * Without a sandbox nothing records a change, so only the answer is judged; the tool is one
 * the user allowed and that declares itself read-only.
 */
function judgeUndeclaredCall(call: ToolCall, outcome: CallOutcome, judge: typeof judgeUndeclared): ScenarioObservation {
  const extra = JSON.stringify(call.undeclared);
  const judged = outcome.timedOut
    ? { passed: false, detail: `${call.tool} did not answer the call with the undeclared argument ${extra} within --timeout` }
    : judge(call.tool, extra, { outcome, mutations: [], changes: [] });
  return { scenario: `--call-tool ${call.tool}`, tool: call.tool, aspect: 'call.undeclared-argument', ...judged };
}

function location(file: string, counter: LineCounter, offset: number): string {
  const { line, col } = counter.linePos(offset);
  return `${file}:${line}:${col}`;
}

/** The source offset of the node at an Ajv instance path, or of its nearest ancestor that exists. */
function offsetOf(document: Document, instancePath: string): number {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  for (let length = segments.length; length >= 0; length--) {
    const keys = segments.slice(0, length).map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
    const node = length === 0 ? document.contents : document.getIn(keys, true);
    const range = (node as { range?: [number, number, number] } | undefined)?.range;
    if (range) return range[0];
  }
  return 0;
}

/**
 * Read a YAML or JSON scenario file and validate it against docs/scenario.schema.json. Every
 * mistake is a config error (exit 2) naming the file, line and column.
 */
export async function loadScenarios(file: string): Promise<ScenarioFile> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConformError('usage', `scenario file not found: ${file} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  // The YAML parser loads only for a scenario file.
  const { LineCounter, parseDocument } = await import('yaml');
  const counter = new LineCounter();
  const document = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  const syntax = document.errors[0];
  if (syntax)
    throw new ConformError('config', `${location(file, counter, syntax.pos[0])}: not valid YAML or JSON: ${syntax.message.split('\n')[0]}`);
  const value = document.toJS({ maxAliasCount: 100 }) as unknown;
  const validate = jsonSchemaValidator().compile(JSON.parse(readFileSync(BUNDLED.scenarioSchema, 'utf8')));
  if (!validate(value)) {
    const error = validate.errors![0]!;
    const what =
      error.keyword === 'additionalProperties'
        ? `unknown key "${(error.params as { additionalProperty: string }).additionalProperty}"`
        : error.message;
    throw new ConformError(
      'config',
      `${location(file, counter, offsetOf(document, error.instancePath))}: ${error.instancePath || '/'} ${what}`,
    );
  }
  const scenarios = (value as { scenarios: Scenario[] }).scenarios;
  const seen = new Set<string>();
  return {
    file,
    scenarios: scenarios.map((scenario, index) => {
      const at = () => location(file, counter, offsetOf(document, `/scenarios/${index}/name`));
      if (seen.has(scenario.name)) throw new ConformError('config', `${at()}: scenario name "${scenario.name}" is used twice`);
      seen.add(scenario.name);
      const golden = scenario.expect?.golden;
      if (golden === undefined) return scenario;
      const goldenFile = resolve(dirname(file), golden);
      const where = location(file, counter, offsetOf(document, `/scenarios/${index}/expect/golden`));
      if (!existsSync(goldenFile)) throw new ConformError('config', `${where}: golden file not found: ${goldenFile}`);
      try {
        return { ...scenario, goldenValue: JSON.parse(readFileSync(goldenFile, 'utf8')) as unknown };
      } catch (error) {
        throw new ConformError('config', `${where}: golden file is not valid JSON: ${goldenFile} (${(error as Error).message})`);
      }
    }),
  };
}

/** The value an RFC 6901 pointer names, or `found: false`. */
function resolvePointer(value: unknown, pointer: string): { found: boolean; value?: unknown } {
  let current = value;
  for (const raw of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current) && /^(0|[1-9]\d*)$/.test(key) && Number(key) < current.length) current = current[Number(key)];
    else if (current !== null && typeof current === 'object' && !Array.isArray(current) && Object.hasOwn(current, key))
      current = (current as Record<string, unknown>)[key];
    else return { found: false };
  }
  return { found: true, value: current };
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** A server's value as findings quote it: JSON, cut short. */
function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function assertionDetail(assertion: Assertion, at: { found: boolean; value?: unknown }): string | undefined {
  if (assertion.exists !== undefined && assertion.exists !== at.found)
    return assertion.exists ? 'nothing is there' : `a value is there (${quote(at.value)})`;
  if (assertion.type !== undefined) {
    if (!at.found) return `expected a ${assertion.type}, nothing is there`;
    const type = jsonType(at.value);
    const matches = assertion.type === 'integer' ? Number.isInteger(at.value) : assertion.type === type;
    if (!matches) return `expected a ${assertion.type}, found a ${type}`;
  }
  if ('equals' in assertion) {
    if (!at.found) return `expected ${quote(assertion.equals)}, nothing is there`;
    if (!isDeepStrictEqual(at.value, assertion.equals)) return `expected ${quote(assertion.equals)}, found ${quote(at.value)}`;
  }
  return undefined;
}

/** Judge one call's outcome against its scenario; `latencyMs` is the call's duration on the run's clock. */
export function judgeScenario(scenario: ScenarioFile['scenarios'][number], outcome: CallOutcome, latencyMs: number): ScenarioObservation[] {
  const base = { scenario: scenario.name, tool: scenario.tool };
  if (!outcome.result) {
    return [
      {
        ...base,
        aspect: 'scenario.call',
        passed: false,
        detail: outcome.timedOut
          ? 'the call got no answer within --timeout'
          : `the call failed: ${(outcome.thrown ?? 'no result').slice(0, 200)}`,
      },
    ];
  }
  const observations: ScenarioObservation[] = [];
  const expect = scenario.expect ?? {};
  const isError = outcome.result.isError === true;
  const wantedError = expect.isError ?? false;
  observations.push({
    ...base,
    aspect: 'scenario.is-error',
    passed: isError === wantedError,
    detail: `expected isError ${wantedError}, the result has isError ${isError}`,
  });
  const structured = outcome.result.structuredContent;
  for (const assertion of expect.structuredContent ?? []) {
    const detail = assertionDetail(assertion, resolvePointer(structured, assertion.pointer));
    observations.push({
      ...base,
      aspect: 'scenario.assertion',
      passed: detail === undefined,
      pointer: assertion.pointer,
      detail: detail ?? 'as expected',
    });
  }
  if ('goldenValue' in scenario) {
    const equal = isDeepStrictEqual(structured, scenario.goldenValue);
    observations.push({
      ...base,
      aspect: 'scenario.golden',
      passed: equal,
      detail: equal ? 'equal to the golden file' : `structuredContent differs from ${scenario.expect!.golden} (found ${quote(structured)})`,
    });
  }
  if (expect.maxLatencyMs !== undefined) {
    const within = latencyMs <= expect.maxLatencyMs;
    observations.push({
      ...base,
      aspect: 'scenario.latency',
      passed: within,
      detail: `answered in ${Math.round(latencyMs)} ms, the budget is ${expect.maxLatencyMs} ms`,
    });
  }
  return observations;
}

/**
 * Call each scenario's tool once, in file order, over one session (the server as given, with no
 * probe sandbox), and judge every expectation. The call's latency is measured on `now`.
 */
export async function runScenarios(
  scenarios: ScenarioFile | undefined,
  calls: readonly ToolCall[],
  server: ProbeServer,
  options: { connection: ConnectionSettings; modern: boolean; now: () => number },
): Promise<ScenarioOutcome> {
  const { openSession } = await import('./sessions.js');
  const { judgeUndeclared } = await import('./arguments.js');
  let session: ProbeSession;
  try {
    session = await openSession(
      server,
      { name: 'plain', policy: null, outputFormat: null, elicitation: false, identity: 'vscode' },
      { env: {}, connection: options.connection, modern: options.modern },
    );
  } catch (error) {
    throw new ConformError(
      'connect',
      `the server could not be started or reached for the scenarios: ${String((error as Error)?.message ?? error).slice(0, 200)}`,
    );
  }
  const observations: ScenarioObservation[] = [];
  try {
    for (const scenario of scenarios?.scenarios ?? []) {
      const started = options.now();
      const outcome = await session.call(scenario.tool, scenario.arguments ?? {});
      observations.push(...judgeScenario(scenario, outcome, options.now() - started));
    }
    for (const call of calls) {
      observations.push(...judgeTextBlock(call, await session.call(call.tool, call.arguments)));
      if (call.undeclared)
        observations.push(
          judgeUndeclaredCall(call, await session.call(call.tool, { ...call.arguments, ...call.undeclared }), judgeUndeclared),
        );
    }
  } finally {
    await session.close();
  }
  return { ...(scenarios ? { file: scenarios.file } : {}), calls: calls.length, observations };
}
