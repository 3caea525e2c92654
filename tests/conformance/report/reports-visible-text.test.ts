import { JSDOM } from 'jsdom';
import { describe, expect, test } from 'vitest';
import type { Evidence } from '../../../src/conformance/report/evidence.js';
import { sortFindings, type Finding } from '../../../src/conformance/rules/findings.js';
import { render, type Format } from '../../../src/conformance/report/index.js';
import { loadRules } from '../../../src/conformance/rules/engine.js';
import type { RunResult } from '../../../src/conformance/report/evidence.js';
import { reportSchemaValidator } from '../../support/report-schema.js';
import { emptyEvidence, findingOf } from '../../support/report-input.js';

/**
 * Every text a model reads that a change adds, removes or rewrites is shown in every report,
 * `check` and `diff` alike: the whole text when added or removed, a word diff when rewritten,
 * bounded per finding; an empty text shows as `""`.
 */
const rules = loadRules();
const FORMATS: Format[] = ['pretty', 'markdown', 'sarif', 'json', 'junit', 'github', 'html'];

const NEW_TOOL_TEXT = 'Copies the CORS rules of one bucket onto another, replacing what the target had.';
const GONE_TOOL_TEXT = 'Lists the retention settings of every file version under a prefix.';
const RENAMED_BEFORE = 'Runs a query over the bucket index.';
const RENAMED_AFTER = 'Unrestricted: runs any query the caller writes over the bucket index, writes included.';

type Mode = 'check' | 'diff';

function evidenceOf(command: Mode): Evidence {
  return emptyEvidence({
    command,
    versions: { 'b2-mcp-conform': '0.0.0', '@modelcontextprotocol/sdk': '1.0.0', '@modelcontextprotocol/client': '2.0.0', node: 'v20' },
    profile: command === 'check' ? 'default' : null,
    rulesEvaluated: 4,
    durationMs: 10,
  });
}

/** A change finding as `check` (frozen contract: every change an error) or `diff` (the rule's own severity) makes it. */
function change(mode: Mode, ruleId: string, tool: string, extra: Partial<Finding> = {}): Finding {
  const rule = rules.byId.get(ruleId)!;
  const severity = mode === 'check' ? (rule.frozenSeverity ?? rule.severity) : rule.severity;
  return findingOf(rules, ruleId, tool, { severity, message: `${ruleId} on ${tool}`, scopes: ['modern'], profile: 'default', ...extra });
}

function textRun(mode: Mode): RunResult {
  const findings = [
    change(mode, 'diff/tool-added', 'b2_copy_cors_rules', { text: { after: NEW_TOOL_TEXT } }),
    change(mode, 'diff/tool-removed', 'b2_list_retention', { text: { before: GONE_TOOL_TEXT } }),
    change(mode, 'diff/description-changed', 'b2_create_bucket', {
      path: 'inputSchema.properties.corsRuleName.description',
      text: { before: 'Name of the rule.', after: 'Name of the rule: 6 to 63 letters, digits or hyphens.' },
    }),
    change(mode, 'diff/tool-renamed', 'b2_run_query_unrestricted', { message: 'Tool b2_run_query is now b2_run_query_unrestricted' }),
    change(mode, 'diff/description-changed', 'b2_run_query_unrestricted', {
      path: 'description',
      text: { before: RENAMED_BEFORE, after: RENAMED_AFTER },
    }),
  ];
  return { findings: sortFindings(findings), evidence: evidenceOf(mode), rules, evaluated: rules.rules.map((rule) => rule.id) };
}

const renderAs = (format: Format, result: RunResult, verbose = false) => render(format, result, { failOn: 'error', color: false, verbose });

/** The message texts of a SARIF report, as code scanning shows them. */
function messages(sarif: string): string {
  return (JSON.parse(sarif) as { runs: { results: { message: { text: string } }[] }[] }).runs[0]!.results.map(
    (result) => result.message.text,
  ).join('\n');
}

/**
 * What a reader sees of a report with the removed words of each diff left out, so the text after
 * a change reads as one: the page's text for HTML, the message texts for SARIF, the findings for JSON.
 */
function readable(format: Format, report: string): string {
  if (format === 'html') {
    const { document } = new JSDOM(report).window;
    for (const removed of document.querySelectorAll('.text del')) removed.remove();
    return document.body.textContent!;
  }
  if (format === 'json') return JSON.stringify((JSON.parse(report) as { findings: unknown }).findings);
  const text = format === 'sarif' ? messages(report) : report;
  if (format === 'markdown') return text.replace(/<del>.*?<\/del>|<\/?ins>/g, '').replace(/\\([[\]_*`|~$\\])/g, '$1');
  return text.replace(/\[-.*?-\]|\{\+|\+\}/g, '');
}

describe.each(['check', 'diff'] as const)('%s: added, removed and rewritten text in every format', (mode) => {
  const result = textRun(mode);
  test.each(FORMATS)("%s shows a new tool's and a removed tool's whole text", (format) => {
    const shown = readable(format, renderAs(format, result));
    expect(shown).toContain(NEW_TOOL_TEXT);
    expect(shown).toContain(GONE_TOOL_TEXT);
  });

  test.each(FORMATS)("%s shows a rewritten text and the renamed tool's new description", (format) => {
    const shown = readable(format, renderAs(format, result));
    expect(shown).toContain('6 to 63 letters, digits or hyphens.');
    expect(shown).toContain('Unrestricted: runs any query the caller writes');
  });

  test('pretty, Markdown and SARIF say which text is new, which is gone, and mark the rewritten words', () => {
    const pretty = renderAs('pretty', result);
    expect(pretty).toContain(`      new text: ${NEW_TOOL_TEXT}`);
    expect(pretty).toContain(`      removed text: ${GONE_TOOL_TEXT}`);
    expect(pretty).toContain('      diff: Name of the [-rule.-]{+rule: 6 to 63 letters, digits or hyphens.+}');
    expect(pretty).toContain(
      '      diff: [-Runs a -]{+Unrestricted: runs any +}query {+the caller writes +}over the bucket [-index.-]{+index, writes included.+}',
    );
    const markdown = renderAs('markdown', result);
    expect(markdown).toContain('<br>new text: Copies the CORS rules');
    expect(markdown).toContain('<br>removed text: Lists the retention settings');
    expect(markdown).toContain('<ins>rule: 6 to 63 letters, digits or hyphens.</ins>');
    const sarif = messages(renderAs('sarif', result));
    expect(sarif).toContain(`\nnew text: ${NEW_TOOL_TEXT}\n`);
    expect(sarif).toContain(`\nremoved text: ${GONE_TOOL_TEXT}\n`);
    expect(sarif).toContain('[-rule.-]{+rule: 6 to 63 letters, digits or hyphens.+}');
  });
});

describe('bounds', () => {
  const huge = `${'a long sentence of the new text, '.repeat(2000)}the end.`;
  const result: RunResult = {
    findings: [change('diff', 'diff/tool-added', 'b2_verbose', { text: { after: huge } })],
    evidence: evidenceOf('diff'),
    rules,
    evaluated: ['diff/tool-added'],
  };

  test.each(['pretty', 'markdown', 'sarif', 'junit', 'github', 'html'] as const)(
    '%s shows a long text cut with an ellipsis, not in full',
    (format) => {
      const shown = readable(format, renderAs(format, result));
      expect(shown).toContain('a long sentence of the new text');
      expect(shown).toContain('…');
      expect(shown).not.toContain('the end.');
      // The text's 2,000 sentences are cut to a few dozen, however long the rest of the report grows.
      expect(shown.split('a long sentence of the new text').length - 1).toBeLessThan(200);
    },
  );

  test('JSON keeps the whole text; --verbose shows it in full', () => {
    expect(renderAs('json', result)).toContain('the end.');
    expect(renderAs('pretty', result, true)).toContain('the end.');
  });
});

test('an empty text is shown as "" in every format that shows text, never as nothing', () => {
  const result: RunResult = {
    findings: [
      change('diff', 'diff/tool-added', 'b2_blank', { text: { after: '' } }),
      change('diff', 'diff/tool-removed', 'b2_gone_blank', { text: { before: '' } }),
    ],
    evidence: evidenceOf('diff'),
    rules,
    evaluated: [],
  };
  expect(renderAs('pretty', result)).toContain('      new text: ""\n');
  expect(renderAs('pretty', result)).toContain('      removed text: ""\n');
  expect(renderAs('markdown', result)).toContain('<br>new text: &quot;&quot; |');
  expect(messages(renderAs('sarif', result))).toContain('\nnew text: ""\n');
  expect(readable('html', renderAs('html', result))).toContain('new text: ""');
  expect(renderAs('github', result)).toContain('removed text: "".');
});

describe('the same change has the same mark in check and in diff', () => {
  /** Each finding's mark, by rule and tool (`check` lists the findings in another order). */
  const marksOf = (report: string, line: RegExp) =>
    Object.fromEntries([...report.matchAll(line)].map(([, mark, rule, tool]) => [`${rule} ${tool}`, mark]));
  const glyphsOf = (mode: Mode) => marksOf(renderAs('pretty', textRun(mode)), /^ {4}([✖⚠ℹ]) (\S+) .*— \S+ on (\S+)$/gmu);
  const iconsOf = (mode: Mode) => marksOf(renderAs('markdown', textRun(mode)), /^\| (🔴|🟡|🔵) \| `(\S+)`.*\| \S+ on ([^<\s|]+)/gmu);

  test('pretty: a glyph per change class, whatever the severity', () => {
    expect(Object.keys(glyphsOf('check'))).toHaveLength(4);
    expect(glyphsOf('check')).toEqual(glyphsOf('diff'));
    expect(new Set(Object.values(glyphsOf('diff')))).toEqual(new Set(['✖', '⚠']));
  });

  test('Markdown: an icon per change class, whatever the severity', () => {
    expect(Object.keys(iconsOf('check'))).toHaveLength(4);
    expect(iconsOf('check')).toEqual(iconsOf('diff'));
    expect(new Set(Object.values(iconsOf('check')))).toEqual(new Set(['🔴', '🟡']));
  });

  test('check says the frozen contract made a non-breaking change an error; diff needs not', () => {
    expect(renderAs('pretty', textRun('check'))).toContain('⚠ diff/tool-added [non-breaking, counted as error]');
    expect(renderAs('pretty', textRun('diff'))).toContain('⚠ diff/tool-added [non-breaking]');
    expect(renderAs('markdown', textRun('check'))).toContain('| 🟡 | `diff/tool-added` (non-breaking, counted as error) |');
    // The verdict still follows the severity.
    expect(renderAs('pretty', textRun('check')).trimEnd().split('\n').at(-1)).toMatch(/^FAIL 5 errors/);
  });

  test('a finding that is no change keeps the mark of its severity', () => {
    const result: RunResult = {
      findings: [
        findingOf(rules, 'description/length', 'b2_x', { message: 'long', scopes: ['modern'], profile: 'default', severity: 'warning' }),
      ],
      evidence: evidenceOf('check'),
      rules,
      evaluated: [],
    };
    expect(renderAs('pretty', result)).toMatch(/^ {4}⚠ description\/length —/m);
  });
});

describe("JSON: each tool's two schemas once, referenced by its findings", () => {
  const property = (index: number) =>
    [
      `setting_${index}`,
      { type: 'string', description: `The ${index}th setting of the bucket, as the account stores it.`, maxLength: 100 + index },
    ] as const;
  const before = { type: 'object', properties: Object.fromEntries(Array.from({ length: 40 }, (_, index) => property(index))) };
  const after = { ...before, additionalProperties: false };
  const schemas = { before, after };
  /** A tool with 44 change findings, each carrying (a reference to) the same two schemas, and a tool with none. */
  const result: RunResult = {
    findings: sortFindings([
      ...Array.from({ length: 44 }, (_, index) =>
        change('diff', 'diff/bounds-tightened', 'b2_update_bucket', { path: `inputSchema.properties.setting_${index}.maxLength`, schemas }),
      ),
      change('diff', 'diff/tool-added', 'b2_other'),
    ]),
    evidence: evidenceOf('diff'),
    rules,
    evaluated: [],
  };
  const text = renderAs('json', result);
  const report = JSON.parse(text) as {
    schemaVersion: number;
    schemas: Record<string, unknown>;
    findings: { tool: string; schemas?: unknown; schemasRef?: string }[];
  };

  test("the schemas appear once; every finding of the tool names them, the other tool's do not", () => {
    expect(report.schemaVersion).toBe(2);
    expect(report.schemas).toEqual({ b2_update_bucket: schemas });
    expect(text.split('The 7th setting of the bucket').length - 1).toBe(2);
    const ofTool = report.findings.filter((finding) => finding.tool === 'b2_update_bucket');
    expect(ofTool).toHaveLength(44);
    for (const finding of ofTool) expect(finding).toMatchObject({ schemasRef: 'b2_update_bucket' });
    expect(report.findings.some((finding) => 'schemas' in finding)).toBe(false);
    expect(report.findings.find((finding) => finding.tool === 'b2_other')).not.toHaveProperty('schemasRef');
  });

  test('the report is about the size of one pair of schemas plus the findings, not 88 copies', () => {
    const pair = JSON.stringify(schemas, null, 2).length;
    const withoutSchemas = renderAs('json', { ...result, findings: result.findings.map(({ schemas: _schemas, ...rest }) => rest) }).length;
    expect(text.length).toBeLessThan(withoutSchemas + pair * 2);
  });

  test('it matches docs/report.schema.json', () => {
    const validate = reportSchemaValidator();
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
  });

  test('two different pairs for one tool (two profiles) are both kept, each finding naming its own', () => {
    const other = { before: after, after: before };
    const twoProfiles: RunResult = {
      ...result,
      findings: [
        change('diff', 'diff/bounds-tightened', 'b2_update_bucket', {
          path: 'inputSchema.additionalProperties',
          scopes: ['full.modern'],
          schemas,
        }),
        change('diff', 'diff/bounds-loosened', 'b2_update_bucket', {
          path: 'inputSchema.maxProperties',
          scopes: ['read-only.modern'],
          schemas: other,
        }),
        change('diff', 'diff/default-changed', 'b2_update_bucket', {
          path: 'inputSchema.properties.setting_1.default',
          scopes: ['read-only.modern'],
        }),
      ],
    };
    const parsed = JSON.parse(renderAs('json', twoProfiles)) as typeof report;
    expect(parsed.schemas).toEqual({ b2_update_bucket: schemas, 'b2_update_bucket#2': other });
    expect(parsed.findings.map((finding) => finding.schemasRef)).toEqual(['b2_update_bucket', 'b2_update_bucket#2', 'b2_update_bucket#2']);
  });
});

test('a change on a deep path keeps both its values in pretty and Markdown, not cut before the new one', () => {
  const path = `inputSchema.properties.${'nested.properties.'.repeat(5)}retentionPeriod.pattern`;
  const before = `^(${'[0-9]{1,4}d|'.repeat(8)})$`;
  const after = `^(${'[0-9]{1,3}h|'.repeat(8)}never)$`;
  const result: RunResult = {
    findings: [
      change('diff', 'diff/bounds-tightened', 'b2_set_retention', {
        path,
        message: `Tool b2_set_retention: ${path} tightened from ${before} to ${after}`,
      }),
    ],
    evidence: evidenceOf('diff'),
    rules,
    evaluated: [],
  };
  expect(result.findings[0]!.message.length).toBeGreaterThan(300);
  expect(renderAs('pretty', result)).toContain(`to ${after}\n`);
  expect(readable('markdown', renderAs('markdown', result))).toContain(`to ${after} |`);
});

test('what a diff left unpaired is a line of its own, each file with its side, never cut off behind long paths', () => {
  const folder = (side: string) => `/home/reviewer/checkouts/${'a-rather-deep-folder/'.repeat(6)}${side}/tests/fixtures/tool-contract`;
  const evidence: Evidence = {
    ...evidenceOf('diff'),
    target: {
      before: folder('before'),
      after: folder('after'),
      compared: ['full.modern.json', 'read-only.modern.json'],
      unmatched: ['archivist.modern.json (after only)', 'legacy-admin.modern.json (before only)'],
    },
  };
  const result: RunResult = { findings: [], evidence, rules, evaluated: [] };
  const pretty = renderAs('pretty', result);
  expect(pretty).toContain('\n  Unmatched: archivist.modern.json (after only), legacy-admin.modern.json (before only)\n');
  expect(pretty).toContain('\n  Compared: full.modern.json, read-only.modern.json\n');
  expect(pretty).not.toMatch(/Target: .*(compared|unmatched)/);
  expect(renderAs('markdown', result)).toContain(
    '| Unmatched | archivist.modern.json (after only), legacy-admin.modern.json (before only) |',
  );
});

test('pretty: in a tool with more findings than its share of lines, the text changes are among those shown', () => {
  const findings: Finding[] = [];
  for (let index = 0; index < 30; index++) {
    const tool = `b2_tool_${String(index).padStart(2, '0')}`;
    for (let bound = 0; bound < 12; bound++)
      findings.push(change('diff', 'diff/bounds-tightened', tool, { path: `inputSchema.properties.p${bound}.maxLength` }));
    findings.push(
      change('diff', 'diff/description-changed', tool, {
        path: 'description',
        text: { before: `Reads setting ${index}.`, after: `Reads and rewrites setting ${index}.` },
      }),
    );
  }
  const pretty = renderAs('pretty', { findings: sortFindings(findings), evidence: evidenceOf('diff'), rules, evaluated: [] });
  expect(pretty).toMatch(/… \d+ more \(--verbose shows all\)/);
  for (let index = 0; index < 30; index++) expect(pretty).toContain(`diff: Reads {+and rewrites +}setting ${index}.`);
});
