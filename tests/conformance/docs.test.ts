import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PACKAGE_ROOT } from '../../src/conformance/package-root.js';
import { renderRuleDocs, renderRulesTable, anchorOf } from '../../src/conformance/rules/docs.js';
import { loadRules } from '../../src/conformance/rules/engine.js';

const ruleSet = loadRules(undefined, { validate: true });
const read = (path: string) => readFileSync(join(PACKAGE_ROOT, path), 'utf8');

describe('rule documentation is generated from rules/ and committed', () => {
  const pages = renderRuleDocs(ruleSet);

  test.each(Object.keys(pages))('%s is up to date', (path) => {
    const file = join(PACKAGE_ROOT, path);
    if (process.env.UPDATE_RULE_DOCS === '1') {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, pages[path]!);
    }
    expect(existsSync(file), `${path} missing: run UPDATE_RULE_DOCS=1 npx vitest run tests/conformance/docs.test.ts`).toBe(true);
    expect(read(path)).toBe(pages[path]);
  });

  test('no stale page for a category that no longer exists', () => {
    expect(readdirSync(join(PACKAGE_ROOT, 'docs', 'rules')).sort()).toEqual(
      Object.keys(pages)
        .map((path) => path.replace('docs/rules/', ''))
        .sort(),
    );
  });

  test("every rule's doc link points at its page and anchor", () => {
    for (const rule of ruleSet.rules) {
      expect(rule.doc).toBe(`docs/rules/${rule.category}.md#${anchorOf(rule)}`);
      expect(read(`docs/rules/${rule.category}.md`)).toContain(`<a id="${anchorOf(rule)}"></a>`);
    }
  });
});

test('docs/conformance.md lists exactly the rules in rules/', () => {
  const block = /(<!-- rules:start -->\n)[\s\S]*?(<!-- rules:end -->)/;
  if (process.env.UPDATE_RULE_DOCS === '1') {
    const file = join(PACKAGE_ROOT, 'docs', 'conformance.md');
    writeFileSync(
      file,
      read('docs/conformance.md').replace(
        block,
        (_match, start: string, end: string) => `${start}${renderRulesTable(ruleSet, 'rules/')}${end}`,
      ),
    );
  }
  const doc = read('docs/conformance.md');
  const listed = /<!-- rules:start -->\n([\s\S]*?)<!-- rules:end -->/.exec(doc)?.[1];
  expect(listed, 'docs/conformance.md needs a <!-- rules:start --> … <!-- rules:end --> block').toBeDefined();
  expect(listed).toBe(renderRulesTable(ruleSet, 'rules/'));
});

test('docs/conformance.md documents every exit code and every report format', () => {
  const doc = read('docs/conformance.md');
  for (const code of [0, 1, 2, 3, 4]) expect(doc).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
  for (const format of ['pretty', 'json', 'sarif', 'junit', 'markdown', 'github']) expect(doc).toContain(`\`${format}\``);
});
