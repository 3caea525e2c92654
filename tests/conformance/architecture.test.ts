import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';
import { CHANGE_KINDS } from '../../src/conformance/diff.js';
import { PACKAGE_ROOT } from '../../src/conformance/package-root.js';
import { loadRules } from '../../src/conformance/rules/engine.js';
import { CHECK_KINDS } from '../../src/conformance/rules/kinds/index.js';

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

test('the rule engine and the check kinds never name a rule', () => {
  const ids = loadRules().rules.map((rule) => rule.id);
  for (const file of CHECKER_FILES) {
    const text = readFileSync(file, 'utf8');
    for (const id of ids) expect(text.includes(`'${id}'`) || text.includes(`"${id}"`), `${relative(PACKAGE_ROOT, file)} names ${id}`).toBe(false);
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
    expect(matching.map((rule) => rule.id), kind).toEqual([`diff/${kind}`]);
    expect(matching[0]!.class).toMatch(/^(breaking|non-breaking|info)$/);
    expect(matching[0]!.frozenSeverity).toBe('error');
  }
  expect(diffRules).toHaveLength(CHANGE_KINDS.length);
});

test('bin/b2-mcp-conform.ts stays a thin entry point', () => {
  const text = readFileSync(join(PACKAGE_ROOT, 'bin', 'b2-mcp-conform.ts'), 'utf8');
  expect(specifiers(join(PACKAGE_ROOT, 'bin', 'b2-mcp-conform.ts'))).toEqual(['../src/conformance/cli.js']);
  expect(text.split('\n').length).toBeLessThan(12);
});
