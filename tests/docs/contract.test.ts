/**
 * The project cites only itself: every rule's `source` names a section of docs/contract.md (or
 * another document in the repository) that exists, and no rule, doc, comment or test points at
 * documents outside the repository or at planning tags.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';
import { PACKAGE_ROOT } from '../../src/conformance/package-root.js';
import { loadRules } from '../../src/conformance/rules/engine.js';

const contract = readFileSync(join(PACKAGE_ROOT, 'docs', 'contract.md'), 'utf8');
const sections = new Set([...contract.matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.? /gm)].map((match) => match[1]!));

test('docs/contract.md is numbered: the sections rules cite exist', () => {
  expect(sections.size).toBeGreaterThan(25);
  for (const rule of loadRules().rules) {
    expect(rule.source, `${rule.id} has a source`).toBeTruthy();
    const [document, cited = ''] = rule.source!.split(/ (?=§)/);
    expect(existsSync(join(PACKAGE_ROOT, document!.replace(/#.*$/, ''))), `${rule.id}: ${rule.source}`).toBe(true);
    if (document === 'docs/contract.md') {
      const numbers = [...cited.matchAll(/§(\d+(?:\.\d+)?)/g)].map((match) => match[1]!);
      expect(numbers.length, `${rule.id}: ${rule.source}`).toBeGreaterThan(0);
      for (const number of numbers) expect(sections, `${rule.id} cites §${number}`).toContain(number);
    }
  }
});

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.(ts|mjs|js|json|md|yml|sh)$/.test(name) ? [path] : [];
  });
}

test('nothing refers to documents outside the repository or to planning tags', () => {
  const roots = ['src', 'bin', 'scripts', 'bench', 'tests', 'rules', 'docs', 'action', 'README.md', 'action.yml'].map((path) =>
    join(PACKAGE_ROOT, path),
  );
  const outside = /CONTRACT_FACTS|MCP_SDK_FACTS|TOOL_CONTRACT\.md|\/work\/shared|issue \[[A-Z]\]|\bissue #\d+/;
  const offending = roots
    .flatMap((root) => (statSync(root).isDirectory() ? files(root) : [root]))
    .filter((file) => file !== join(PACKAGE_ROOT, 'tests', 'docs', 'contract.test.ts'))
    .filter((file) => outside.test(readFileSync(file, 'utf8')))
    .map((file) => relative(PACKAGE_ROOT, file));
  expect(offending).toEqual([]);
});
