/**
 * A tool's gate and handler read arguments typed from the schema builders that describe its
 * input, so reading a property the schema does not have, or as a type it does not admit, fails to
 * compile. The compiler itself is the judge here: a small tool module is type-checked against the
 * real builders and each line marked `// TSnnnn` must be refused with exactly that error, every
 * other line accepted.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const TOOLS = join(ROOT, 'src/server/tools');

const PROBE = `
import { defineTool, type GateTrigger, type ToolHandler } from '${TOOLS}/definition.js';
import { array, boolean, integer, nullable, object, oneOf, string, stringMap, toolInput } from '${TOOLS}/schema.js';

const input = toolInput(
  {
    bucketName: string(),
    bucketType: oneOf(['allPublic', 'allPrivate']),
    limit: integer(1, 10),
    retention: nullable(object({ days: integer(1, 9) }, ['days'])),
    tags: array(string()),
    info: stringMap(string(), string()),
    quiet: boolean(),
  },
  ['bucketName', 'bucketType'],
);

const handler: ToolHandler<typeof input> = async (args) => {
  const name: string = args.bucketName;
  const type: 'allPublic' | 'allPrivate' = args.bucketType;
  const limit: number = args.limit ?? 5;
  const days: number | undefined = args.retention?.days;
  const tags: string[] = args.tags ?? [];
  const info: Record<string, string> | undefined = args.info;
  const quiet: boolean | undefined = args.quiet;
  const misspelt = args.bucketNme; // TS2551
  const wrongType: number = args.bucketName; // TS2322
  const maybeAbsent: number = args.limit; // TS2322
  const notAnEnumValue = args.bucketType === 'allPublik'; // TS2367
  const retentionMayBeNull: number = args.retention.days; // TS18049
  return { structured: { name, type, limit, days, tags, info, quiet, misspelt, wrongType, maybeAbsent, notAnEnumValue, retentionMayBeNull } };
};

const gate: GateTrigger<typeof input> = (args) => (args.bucketTyp === 'allPublic' ? 'expose' : undefined); // TS2551

export const tool = defineTool({
  name: 'probe',
  title: 'Probe',
  description: 'Probe.',
  input,
  backing: 'customMcp',
  capabilities: 'unmapped',
  effect: 'read',
  gate,
  handler,
});

export const mismatched = defineTool({
  name: 'mismatched',
  title: 'Mismatched',
  description: 'A handler written for another input.',
  input: toolInput({ key: string() }, ['key']), // TS2375
  backing: 'customMcp',
  capabilities: 'unmapped',
  effect: 'read',
  handler,
});
`;

/** `line → error code` for each line the probe marks. */
function expectedErrors(source: string): Map<number, string> {
  const expected = new Map<number, string>();
  source.split('\n').forEach((line, index) => {
    const mark = /\/\/ (TS\d+)$/.exec(line);
    if (mark) expected.set(index + 1, mark[1]!);
  });
  return expected;
}

/** `line → error code` for each error the compiler reports in the probe (the first per line). */
function reportedErrors(output: string): Map<number, string> {
  const reported = new Map<number, string>();
  for (const match of output.matchAll(/probe\.ts\((\d+),\d+\): error (TS\d+)/g)) {
    const line = Number(match[1]);
    if (!reported.has(line)) reported.set(line, match[2]!);
  }
  return reported;
}

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tool-argument-types-'));
  writeFileSync(join(dir, 'probe.ts'), PROBE);
  const config = {
    extends: join(ROOT, 'tsconfig.json'),
    compilerOptions: { noEmit: true, rootDir: '/', typeRoots: [join(ROOT, 'node_modules/@types')], noUnusedLocals: false },
    files: ['probe.ts'],
    include: [],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tool arguments are typed from the input schema builders', () => {
  it('refuses exactly the lines that misread an argument, and accepts the rest', async () => {
    const compile = promisify(execFile)(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: ROOT });
    const output = await compile.then(
      ({ stdout }) => stdout,
      (failure: { stdout?: string }) => failure.stdout ?? String(failure),
    );
    expect(Object.fromEntries(reportedErrors(output))).toEqual(Object.fromEntries(expectedErrors(PROBE)));
  }, 60_000);
});
