import { JSDOM } from 'jsdom';
import { expect, test } from 'vitest';
import { sortFindings, type Finding } from '../../../src/conformance/rules/findings.js';
import { render } from '../../../src/conformance/report/index.js';
import { loadRules } from '../../../src/conformance/rules/engine.js';
import type { RunResult } from '../../../src/conformance/report/evidence.js';
import { emptyEvidence, findingOf } from '../../support/report-input.js';

const rules = loadRules();

function finding(ruleId: string, tool: string, extra: Partial<Finding> = {}): Finding {
  return findingOf(rules, ruleId, tool, { message: `${ruleId} on ${tool}`, scopes: ['before'], profile: '*', ...extra });
}

const result: RunResult = {
  findings: sortFindings([
    finding('diff/tool-removed', 'b2_gone'),
    finding('diff/tool-added', 'b2_new'),
    finding('diff/description-changed', 'b2_list_buckets', {
      text: { before: 'List the buckets of the account.', after: 'List every bucket of the account.' },
    }),
    finding('description/length', 'b2_list_buckets'),
    finding('diff/default-changed', 'b2_list_files'),
  ]),
  evidence: emptyEvidence({ command: 'diff', versions: { 'b2-mcp-conform': '0.0.0' }, profile: null, rulesEvaluated: 3, durationMs: 10 }),
  rules,
  evaluated: [],
};

/** The page with its own script run, as a browser opening the file would. */
function open(html: string) {
  const errors: unknown[] = [];
  const dom = new JSDOM(html, { runScripts: 'dangerously' });
  dom.window.addEventListener('error', (event) => errors.push(event.error));
  return { document: dom.window.document, window: dom.window, errors };
}

const visibleRows = (document: Document) => [...document.querySelectorAll<HTMLElement>('tr[data-severity]')].filter((row) => !row.hidden);

test('the page shows every finding, the tool statuses and the word diff', () => {
  const { document, errors } = open(render('html', result, { failOn: 'error', color: false }));
  expect(errors).toEqual([]);
  expect(visibleRows(document)).toHaveLength(5);
  expect(document.getElementById('shown')!.textContent).toBe('5');
  const statuses = Object.fromEntries(
    [...document.querySelectorAll('#tools tbody tr')].map((row) => [row.children[0]!.textContent, row.children[1]!.textContent]),
  );
  expect(statuses).toMatchObject({ b2_gone: 'removed', b2_new: 'added', b2_list_buckets: 'changed' });
  expect(document.querySelector('del')!.textContent).toBe('the buckets');
  expect(document.querySelector('ins')!.textContent).toBe('every bucket');
  expect(document.getElementById('verdict')!.textContent).toMatch(/^FAIL /);
});

test('the filters hide findings by severity, class and category, and tools left without any', () => {
  const { document, window } = open(render('html', result, { failOn: 'error', color: false }));
  const toggle = (key: string, value: string) => {
    const box = document.querySelector<HTMLInputElement>(`input[data-filter="${key}"][value="${value}"]`)!;
    box.checked = !box.checked;
    box.dispatchEvent(new window.Event('change'));
  };
  toggle('severity', 'warning');
  const severities = visibleRows(document).map((row) => row.dataset.severity);
  expect(severities).not.toContain('warning');
  expect(document.getElementById('shown')!.textContent).toBe(String(severities.length));
  toggle('severity', 'warning');
  toggle('class', 'breaking');
  expect(visibleRows(document).map((row) => row.dataset.class)).not.toContain('breaking');
  expect(document.querySelector<HTMLElement>('section[data-tool="b2_gone"]')!.hidden).toBe(true);
  toggle('class', 'breaking');
  toggle('category', 'description');
  expect(visibleRows(document).map((row) => row.dataset.category)).not.toContain('description');
  expect(document.querySelector<HTMLElement>('section[data-tool="b2_list_buckets"]')!.hidden).toBe(false);
});

test('a changed tool shows its fixture and live input schema side by side, the changed paths marked', () => {
  const before = { type: 'object', properties: { limit: { type: 'integer', maximum: 100 }, prefix: { type: 'string' } } };
  const after = {
    type: 'object',
    properties: {
      limit: { type: 'integer', maximum: 1000 },
      prefix: { type: 'string' },
      '</pre><script>alert(1)</script>': { type: 'string' },
    },
  };
  const changed: RunResult = {
    ...result,
    findings: [
      finding('diff/bounds-loosened', 'b2_list_files', { path: 'inputSchema.properties.limit.maximum', schemas: { before, after } }),
      finding('diff/property-added', 'b2_list_files', { path: 'inputSchema.properties["</pre><script>alert(1)</script>"]' }),
    ],
  };
  const { document, errors } = open(render('html', changed, { failOn: 'error', color: false }));
  expect(errors).toEqual([]);
  const side = (which: string) => document.querySelector(`section[data-tool="b2_list_files"] pre[data-schema="${which}"]`)!;
  const marked = (which: string) => [...side(which).querySelectorAll('.changed')].map((line) => line.textContent!.trim());
  expect(marked('before')).toEqual(['"maximum": 100']);
  expect(marked('after')).toEqual(['"maximum": 1000', '"</pre><script>alert(1)</script>": {', '"type": "string"', '}']);
  expect(side('after').textContent).toContain('"prefix": {');
  expect(document.querySelectorAll('script')).toHaveLength(1);
  // A tool whose findings carry no schemas shows none.
  expect(document.querySelectorAll('pre[data-schema]')).toHaveLength(2);
});

test('a huge schema is cut at a bounded number of lines, with a note', () => {
  const properties = Object.fromEntries(Array.from({ length: 1000 }, (_, index) => [`p${index}`, { type: 'string' }]));
  const big: RunResult = {
    ...result,
    findings: [
      finding('diff/bounds-loosened', 'b2_big', {
        path: 'inputSchema.properties.p0',
        schemas: { before: { properties }, after: { properties } },
      }),
    ],
  };
  const { document } = open(render('html', big, { failOn: 'error', color: false }));
  const text = document.querySelector('pre[data-schema="before"]')!.textContent!;
  expect(text.split('\n')).toHaveLength(401);
  expect(text).toMatch(/first 400 lines shown\)$/);
});
