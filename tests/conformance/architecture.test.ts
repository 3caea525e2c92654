import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { expect, test } from 'vitest';
import { CHANGE_KINDS } from '../../src/conformance/diff/changes.js';
import { BUNDLED, PACKAGE_ROOT } from '../../src/conformance/package-root.js';
import { PASS_ONLY_ASPECTS, PROBE_ASPECTS } from '../../src/conformance/probes/aspects.js';
import { loadRules } from '../../src/conformance/rules/engine.js';
import { CHECK_KINDS } from '../../src/conformance/rules/kinds/index.js';
import { SCENARIO_ASPECTS } from '../../src/conformance/probes/scenarios.js';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

const CHECKER_FILES = [...sourceFiles(join(PACKAGE_ROOT, 'src', 'conformance')), join(PACKAGE_ROOT, 'bin', 'b2-mcp-conform.ts')];

function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g)].map((match) => match[1]!);
}

test('the checker never imports the server: it sees every server, ours included, only over MCP', () => {
  const offending = CHECKER_FILES.flatMap((file) =>
    specifiers(file)
      .filter((specifier) => /(^|\/)server(\/|$)/.test(specifier) && specifier.startsWith('.'))
      .map((specifier) => `${relative(PACKAGE_ROOT, file)} imports ${specifier}`),
  );
  expect(CHECKER_FILES.length).toBeGreaterThan(20);
  expect(offending).toEqual([]);
});

test('the checker imports only the contract module, the sandbox (the probes start it) and itself from this repository', () => {
  for (const file of CHECKER_FILES) {
    for (const specifier of specifiers(file).filter((candidate) => candidate.startsWith('.'))) {
      const target = relative(PACKAGE_ROOT, join(file, '..', specifier));
      expect(target, `${relative(PACKAGE_ROOT, file)} imports ${specifier}`).toMatch(/^src\/(conformance|contract|sandbox)\//);
    }
  }
});

test('nor does the sandbox import the server, so the checker cannot reach it through the sandbox', () => {
  const sandboxFiles = sourceFiles(join(PACKAGE_ROOT, 'src', 'sandbox'));
  const offending = sandboxFiles.flatMap((file) =>
    specifiers(file)
      .filter((specifier) => specifier.startsWith('.') && relative(PACKAGE_ROOT, join(file, '..', specifier)).startsWith('src/server/'))
      .map((specifier) => `${relative(PACKAGE_ROOT, file)} imports ${specifier}`),
  );
  expect(sandboxFiles.length).toBeGreaterThan(5);
  expect(offending).toEqual([]);
});

test.each([
  ['contract', []],
  ['server', ['contract']],
  ['sandbox', ['contract']],
])('src/%s imports no other part of the repository than %j (docs/architecture.md)', (part, allowed) => {
  const files = sourceFiles(join(PACKAGE_ROOT, 'src', part));
  const parts = new Set([part, ...allowed]);
  const offending = files.flatMap((file) =>
    specifiers(file)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => relative(PACKAGE_ROOT, join(file, '..', specifier)))
      .filter((target) => !parts.has(target.split('/')[1]!) || !target.startsWith('src/'))
      .map((target) => `${relative(PACKAGE_ROOT, file)} imports ${target}`),
  );
  expect(files.length).toBeGreaterThan(5);
  expect(offending).toEqual([]);
});

test('the rule engine and the check kinds never name a rule', () => {
  const ids = loadRules().rules.map((rule) => rule.id);
  for (const file of CHECKER_FILES) {
    const text = readFileSync(file, 'utf8');
    for (const id of ids)
      expect(text.includes(`'${id}'`) || text.includes(`"${id}"`), `${relative(PACKAGE_ROOT, file)} names ${id}`).toBe(false);
  }
});

test('the rules validate against the rule-file schema and their check kinds', () => {
  const ruleSet = loadRules(undefined, { validate: true });
  expect(new Set(ruleSet.rules.map((rule) => rule.id)).size).toBe(ruleSet.rules.length);
  const usedKinds = new Set(ruleSet.rules.map((rule) => rule.check.kind));
  expect([...usedKinds].sort()).toEqual(Object.keys(CHECK_KINDS).sort());
});

test('each change kind the differ names maps to exactly one diff rule, with a class', () => {
  const diffRules = loadRules().rules.filter((rule) => rule.check.kind === 'diff-change');
  for (const kind of CHANGE_KINDS) {
    const matching = diffRules.filter((rule) => rule.check.change === kind);
    expect(
      matching.map((rule) => rule.id),
      kind,
    ).toEqual([`diff/${kind}`]);
    expect(matching[0]!.class).toMatch(/^(breaking|non-breaking|info)$/);
    expect(matching[0]!.frozenSeverity).toBe('error');
  }
  expect(diffRules).toHaveLength(CHANGE_KINDS.length);
});

/** The aspects the bundled rules of a check kind name, sorted. */
function judgedAspects(kind: string): string[] {
  const named = loadRules()
    .rules.filter((rule) => rule.check.kind === kind)
    .flatMap((rule) => rule.check.aspects as string[]);
  return [...new Set(named)].sort();
}

test('every aspect a probe or a scenario records that can fail is judged by a rule, and rules name no other', () => {
  const canFail = PROBE_ASPECTS.filter((aspect) => !PASS_ONLY_ASPECTS.includes(aspect));
  expect(judgedAspects('probe-observations')).toEqual([...canFail].sort());
  expect(judgedAspects('scenario-observations')).toEqual([...SCENARIO_ASPECTS].sort());
});

test('every listed aspect is named in the checker outside its list, where a probe or scenario records it', () => {
  const texts = CHECKER_FILES.map((file) => readFileSync(file, 'utf8'));
  for (const aspect of [...PROBE_ASPECTS, ...SCENARIO_ASPECTS]) {
    const mentions = texts.reduce((count, text) => count + text.split(`'${aspect}'`).length - 1, 0);
    expect(mentions, aspect).toBeGreaterThanOrEqual(2);
  }
});

test('a rule naming an aspect nothing records fails rule validation, naming the rule', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rules-aspect-'));
  try {
    cpSync(BUNDLED.rulesDir, dir, { recursive: true });
    const file = join(dir, 'secret-probe.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"secret.leak"', '"secret.leek"'));
    expect(() => loadRules(dir)).not.toThrow();
    expect(() => loadRules(dir, { validate: true })).toThrow(
      /rule secret-probe\/canary-leak \(secret-probe\.json\): check parameters \/aspects\/0 must be equal to one of the allowed values/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bin/b2-mcp-conform.ts stays a thin entry point', () => {
  const text = readFileSync(join(PACKAGE_ROOT, 'bin', 'b2-mcp-conform.ts'), 'utf8');
  expect(specifiers(join(PACKAGE_ROOT, 'bin', 'b2-mcp-conform.ts'))).toEqual(['../src/conformance/cli.js']);
  expect(text.split('\n').length).toBeLessThan(12);
});

/**
 * Every import circle under `roots` of `baseDir`, type-only imports included (swc reads the
 * TypeScript, so the compiler's own API is not needed), each as `a.ts → b.ts → a.ts`.
 */
async function importCircles(baseDir: string, roots: string[]): Promise<{ modules: number; circles: string[] }> {
  const ruleSet = { forbidden: [{ name: 'no-circular', severity: 'error' as const, from: {}, to: { circular: true } }] };
  const { output } = await cruise(roots, {
    baseDir,
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    validate: true,
    ruleSet,
  });
  const { summary } = output as ICruiseResult;
  const circles = summary.violations.map((violation) => [violation.from, ...(violation.cycle ?? []).map((step) => step.name)].join(' → '));
  return { modules: summary.totalCruised, circles };
}

/** The folders the build compiles (tsconfig.json's include): src, bin, scripts, bench, … */
const COMPILED_ROOTS: string[] = [
  ...new Set<string>(
    JSON.parse(readFileSync(join(PACKAGE_ROOT, 'tsconfig.json'), 'utf8')).include.map((glob: string) => glob.split('/')[0]),
  ),
];

test('no module imports itself through others: no import circle in any folder the build compiles', async () => {
  expect(COMPILED_ROOTS).toEqual(expect.arrayContaining(['src', 'bin', 'scripts', 'bench']));
  const { modules, circles } = await importCircles(PACKAGE_ROOT, COMPILED_ROOTS);
  expect(modules).toBeGreaterThan(250);
  expect(circles).toEqual([]);
}, 60_000);

test('the circle check sees a circle made only of type imports', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'import-circle-'));
  try {
    writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.js';\nexport type A = { b?: B };\n");
    writeFileSync(join(dir, 'b.ts'), "import type { A } from './a.js';\nexport type B = { a?: A };\n");
    writeFileSync(join(dir, 'c.ts'), "import type { A } from './a.js';\nexport const c: A = {};\n");
    const { modules, circles } = await importCircles(dir, ['.']);
    expect(modules).toBe(3);
    expect(circles).toEqual(['a.ts → b.ts → a.ts']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

/**
 * What `cli` (a path under `baseDir`) imports from `src/` besides the API (`src/conformance/api.ts`,
 * and what it re-exports) and the report renderers, found by dependency-cruiser, as `from → to`.
 */
async function cliImportsPastTheApi(baseDir: string, cli: string): Promise<{ modules: number; imports: string[] }> {
  const rule = {
    name: 'cli-only-through-the-api',
    severity: 'error' as const,
    from: { path: `^${cli.replaceAll('.', '\\.')}$` },
    to: { path: '^src/', pathNot: '^src/conformance/(api\\.ts$|report/)' },
  };
  const { output } = await cruise([cli], {
    baseDir,
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    maxDepth: 1,
    validate: true,
    ruleSet: { forbidden: [rule] },
  });
  const { summary } = output as ICruiseResult;
  return { modules: summary.totalCruised, imports: summary.violations.map((violation) => `${violation.from} → ${violation.to}`) };
}

test('the CLI is flags over the API: cli.ts imports only api.ts and the report renderers, never a stage', async () => {
  const { modules, imports } = await cliImportsPastTheApi(PACKAGE_ROOT, 'src/conformance/cli.ts');
  expect(modules).toBeGreaterThan(5);
  expect(imports).toEqual([]);
}, 60_000);

test('the CLI rule sees a CLI that imports a stage, a static or a lazy import', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-imports-'));
  try {
    for (const folder of ['connect', 'probes', 'report']) mkdirSync(join(dir, 'src', 'conformance', folder), { recursive: true });
    writeFileSync(join(dir, 'src/conformance/api.ts'), 'export const api = 1;\n');
    writeFileSync(join(dir, 'src/conformance/report/pretty.ts'), 'export const pretty = 1;\n');
    writeFileSync(join(dir, 'src/conformance/connect/target.ts'), 'export const target = 1;\n');
    writeFileSync(join(dir, 'src/conformance/probes/sandbox.ts'), 'export const sandbox = 1;\n');
    writeFileSync(
      join(dir, 'src/conformance/cli.ts'),
      "import { api } from './api.js';\nimport { pretty } from './report/pretty.js';\nimport { target } from './connect/target.js';\nexport const all = async () => [api, pretty, target, await import('./probes/sandbox.js')];\n",
    );
    const { imports } = await cliImportsPastTheApi(dir, 'src/conformance/cli.ts');
    expect(imports.sort()).toEqual([
      'src/conformance/cli.ts → src/conformance/connect/target.ts',
      'src/conformance/cli.ts → src/conformance/probes/sandbox.ts',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
