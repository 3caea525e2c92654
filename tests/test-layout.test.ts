/**
 * Where tests live (docs/testing.md, "Where a test lives"): a test's folder mirrors the folder of
 * the source it tests (src/<part>/…, or a project folder outside src such as scripts/ or docs/),
 * end-to-end tests mirror the same way under tests/e2e/, helpers live in tests/support/ only, no
 * two test files share a name, and no test imports bench/ code.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** Suites of real components, each with its own vitest config; they keep their own helpers. */
const REAL_COMPONENT_SUITES = ['browser', 'bundle', 'mcp-conformance', 'package', 'real-servers', 'redis', 'runtimes', 's3-real'];
const SUPPORT = 'support';
const E2E = 'e2e';
/** Not tests: the planted-bug runner and its list. */
const TOOLS = ['planted-bugs'];
const TEST_FILE = /\.(test|browser|redis|s3-real)\.ts$/;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Relative specifiers a module imports or resolves with `new URL(…, import.meta.url)`. */
function specifiersOf(source: string): string[] {
  const patterns = [
    /\bfrom\s*['"](\.[^'"]*)['"]/g,
    /\bimport\s*\(\s*['"](\.[^'"]*)['"]/g,
    /new URL\(\s*['"](\.[^'"]*)['"]\s*,\s*import\.meta\.url/g,
  ];
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((match) => match[1]!));
}

/** Every way the tests under `root`/tests break the layout, one sentence each (none: the layout holds). */
function layoutProblems(root: string): string[] {
  const testsDir = join(root, 'tests');
  const problems: string[] = [];
  const testFilesByName = new Map<string, string[]>();
  for (const path of filesUnder(testsDir)) {
    const rel = relative(testsDir, path).split(sep).join('/');
    const [top] = rel.split('/');
    const isTest = TEST_FILE.test(rel);
    if (isTest) testFilesByName.set(basename(rel), [...(testFilesByName.get(basename(rel)) ?? []), rel]);
    if (
      /\.(ts|mts|mjs|js)$/.test(rel) &&
      specifiersOf(readFileSync(path, 'utf8')).some((spec) => resolve(dirname(path), spec).startsWith(join(root, 'bench') + sep))
    ) {
      problems.push(`tests/${rel} imports bench/ code (move what it shares to src/ or scripts/)`);
    }
    if (REAL_COMPONENT_SUITES.includes(top!) || TOOLS.includes(top!)) continue;
    if (top === SUPPORT) {
      if (isTest) problems.push(`tests/${rel} is a test inside tests/support (support holds helpers only)`);
      continue;
    }
    if (!isTest) {
      problems.push(`tests/${rel} is a helper outside tests/support`);
      continue;
    }
    const folder = dirname(top === E2E ? rel.slice(E2E.length + 1) : rel);
    if (folder !== '.' && !existsSync(join(root, 'src', folder)) && !existsSync(join(root, folder))) {
      problems.push(`tests/${rel}: its folder mirrors nothing (no src/${folder} and no ${folder}/ in the project)`);
    }
  }
  for (const [name, paths] of testFilesByName)
    if (paths.length > 1) problems.push(`${name} names ${paths.length} test files: ${paths.map((p) => `tests/${p}`).join(', ')}`);
  return problems;
}

describe('test layout', () => {
  it('holds for this repository', () => {
    expect(layoutProblems(ROOT)).toEqual([]);
  });

  describe('fails on each kind of violation', () => {
    const root = mkdtempSync(join(tmpdir(), 'test-layout-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));
    const write = (path: string, text = ''): void => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    write('src/server/policy/gate.ts');
    write('scripts/tool.ts');
    write('bench/faults.ts');
    write('tests/server/policy/gate.test.ts');
    write('tests/scripts/tool.test.ts');
    write('tests/e2e/server/policy/gate-over-stdio.test.ts');
    write('tests/support/harness.ts');
    write('tests/redis/redis-helper.ts');

    it('a well-placed tree has no problem', () => {
      expect(layoutProblems(root)).toEqual([]);
    });

    it.each([
      [
        'a folder with no counterpart',
        'tests/unit/gate-table.test.ts',
        '',
        /tests\/unit\/gate-table\.test\.ts: its folder mirrors nothing/,
      ],
      [
        'an end-to-end folder with no counterpart',
        'tests/e2e/integration/cli.test.ts',
        '',
        /tests\/e2e\/integration\/cli\.test\.ts: its folder mirrors nothing/,
      ],
      ['a second file of the same name', 'tests/e2e/server/gate.test.ts', '', /gate\.test\.ts names 2 test files/],
      ['a helper outside tests/support', 'tests/server/policy/gate-support.ts', '', /gate-support\.ts is a helper outside tests\/support/],
      ['a test inside tests/support', 'tests/support/harness.test.ts', '', /harness\.test\.ts is a test inside tests\/support/],
      [
        'an import of bench/',
        'tests/server/policy/gate-soak.test.ts',
        "import { run } from '../../../bench/faults.js';",
        /gate-soak\.test\.ts imports bench\/ code/,
      ],
    ])('%s', (_what, path, text, problem) => {
      write(path, text);
      try {
        expect(layoutProblems(root)).toEqual([expect.stringMatching(problem)]);
      } finally {
        rmSync(join(root, path));
      }
    });
  });
});
