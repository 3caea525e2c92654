import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PACKAGE_ROOT } from '../../../../src/conformance/package-root.js';
import { FORMATS } from '../../../../src/conformance/report/formats.js';
import { render, type Format } from '../../../../src/conformance/report/index.js';
import type { RunResult } from '../../../../src/conformance/report/evidence.js';
import { ALL, HOSTILE } from '../../../support/servers/hostile-output-strings.mjs';
import { baselineSurface } from '../../../support/baseline.js';
import { reportSchemaValidator, schemaValidator } from '../../../support/report-schema.js';
import {
  SERVERS_DIR,
  check,
  mutate,
  propsOf,
  removeTempDirs,
  runCli,
  snapshotFixtures,
  startSurfaceHttp,
  toolOf,
  writeContract,
  type SurfaceHttpServer,
} from '../../../support/checker-harness.js';

/** Anything a terminal or log viewer acts on, or that hides or reorders text (tab and LF are layout). */
const RAW_CONTROL =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|\udb40[\udc00-\udc7f]/;
/** The SGR sequences the checker itself draws when colour is on. */
const OWN_SGR = /\x1b\[[0-9;]*m/g;

let server: SurfaceHttpServer;
let result: RunResult;

beforeAll(async () => {
  const baseline = baselineSurface();
  server = await startSurfaceHttp({
    baseline,
    hostile: mutate(baseline, (s) => {
      s.serverInfo = { name: `evil ${HOSTILE.ansi}`, version: HOSTILE.commands };
      toolOf(s, 'b2_list_buckets').description = `${ALL} List buckets.`;
      propsOf(s, 's3_list_objects_v2')[`key${HOSTILE.markdown}`] = { type: 'string', description: HOSTILE.xml };
      for (const [kind, text] of Object.entries(HOSTILE)) s.tools.push({ ...toolOf(s, 'b2_list_buckets'), name: `b2_list_${kind}${text}` });
    }),
  });
  const fixturesDir = await snapshotFixtures(server.target('baseline'));
  result = await check(server.target('hostile'), { fixturesDir, contractFile: writeContract(fixturesDir) });
}, 60_000);

afterAll(() => {
  server?.stop();
  removeTempDirs();
});

const renderAs = (format: Format, color = false) => render(format, result, { failOn: 'error', color });

test('the hostile strings reach the findings and the evidence (or the test would prove nothing)', () => {
  const everything = JSON.stringify(result);
  for (const text of ['\x1b[8m', '::error title=forged::', '<script>', '\ufffe', '\u202e'])
    expect(everything).toContain(JSON.stringify(text).slice(1, -1));
  expect(result.findings.some((finding) => finding.tool?.includes('\x1b'))).toBe(true);
  expect(result.evidence.connections.modern?.serverInfo?.name).toContain('\x1b]0;owned');
});

describe('every format is safe', () => {
  test('pretty: no raw control besides our own colours, and the verdict is the last line, drawn by the checker', () => {
    for (const color of [false, true]) {
      const text = renderAs('pretty', color);
      expect(text.replace(OWN_SGR, ''), `color ${color}`).not.toMatch(RAW_CONTROL);
      if (!color) expect(text).not.toContain('\x1b');
      const lines = text.replace(OWN_SGR, '').trimEnd().split('\n');
      expect(lines.at(-1)).toMatch(/^FAIL \d+ errors?, /);
      // The forged verdict never starts a line of its own.
      expect(lines.filter((line) => /^\s*PASS\b/.test(line))).toEqual([]);
    }
  });

  test('json and sarif parse, validate and hold nothing raw a terminal acts on', () => {
    const json = renderAs('json');
    expect(json.replace(/\n/g, '')).not.toMatch(RAW_CONTROL);
    const report = JSON.parse(json);
    const validate = reportSchemaValidator();
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    // The same findings, each tool's schemas held once in `schemas` and named by its findings.
    const held = report.findings.map(({ schemasRef: _ref, ...finding }: { schemasRef?: string }) => finding);
    expect(JSON.stringify(held)).toBe(
      JSON.stringify(JSON.parse(JSON.stringify(result.findings.map(({ schemas: _schemas, ...finding }) => finding)))),
    );
    result.findings.forEach((finding, index) => {
      if (finding.schemas) expect(report.schemas[report.findings[index].schemasRef]).toEqual(JSON.parse(JSON.stringify(finding.schemas)));
    });
    const sarif = renderAs('sarif');
    expect(sarif.replace(/\n/g, '')).not.toMatch(RAW_CONTROL);
    const validateSarif = schemaValidator(new URL('../../../support/sarif-2.1.0-subset.schema.json', import.meta.url).pathname);
    expect(validateSarif(JSON.parse(sarif)), JSON.stringify(validateSarif.errors)).toBe(true);
  });

  test('junit parses with a strict XML parser and holds only XML 1.0 characters', () => {
    const xml = renderAs('junit');
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toMatch(/^[\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]*$/u);
    expect(xml.replace(/\n/g, '')).not.toMatch(RAW_CONTROL);
    const parsed = new XMLParser({ ignoreAttributes: false }).parse(xml);
    expect(parsed.testsuites['@_failures']).not.toBe('0');
  });

  test('markdown: the rendered HTML has only the markup the checker writes, no link, image or mention', () => {
    const markdown = renderAs('markdown');
    expect(markdown).not.toMatch(RAW_CONTROL);
    const html = micromark(markdown, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] });
    const tags = new Set([...html.matchAll(/<([a-z][a-z0-9]*)/gi)].map((match) => match[1]!.toLowerCase()));
    for (const tag of tags)
      expect(
        [
          'h3',
          'h4',
          'blockquote',
          'del',
          'ins',
          'p',
          'table',
          'thead',
          'tbody',
          'tr',
          'th',
          'td',
          'code',
          'details',
          'summary',
          'ul',
          'li',
          'strong',
          'em',
          'br',
        ],
        tag,
      ).toContain(tag);
    expect(html).not.toMatch(/<!--|<[a-z0-9]+\s[^>]*\b(on\w+|href|src|open)\b/i);
    // GitHub makes no mention or issue link inside code.
    const text = html.replace(/<code>[\s\S]*?<\/code>/g, '').replace(/<[^>]+>/g, '');
    expect(text).not.toMatch(/(^|[^\u200b\w])@octocat/);
    expect(text).not.toMatch(/#1\b/);
  });

  test('github: every command line is one the checker wrote; no server string starts a line', () => {
    const text = renderAs('github');
    expect(text).not.toMatch(RAW_CONTROL);
    const lines = text.trimEnd().split('\n');
    const token = /^::stop-commands::([0-9a-f-]{36})$/.exec(lines.find((line) => line.startsWith('::stop-commands::')) ?? '')?.[1];
    expect(token).toBeDefined();
    const start = lines.indexOf(`::stop-commands::${token}`);
    const end = lines.indexOf(`::${token}::`);
    expect(end).toBeGreaterThan(start);
    lines.forEach((line, index) => {
      const trimmed = line.trimStart();
      if (index > start && index < end) {
        expect(trimmed).toMatch(/^[A-Z][A-Za-z ]+: /); // an evidence line starts with its label
        return;
      }
      if (!trimmed.startsWith('::')) {
        expect(trimmed, line).toMatch(/^b2-mcp-conform (PASS|FAIL) /);
        return;
      }
      expect(trimmed, line).toMatch(
        /^::(error|warning|notice) (file=[^,:]+,line=\d+,)?title=[^:]*::[^\n]*$|^::(group::b2-mcp-conform evidence|endgroup::)$|^::stop-commands::|^::[0-9a-f-]{36}::$/,
      );
    });
    expect(lines.at(-1)).toMatch(/^b2-mcp-conform FAIL /);
  });

  test('html: only the tags of the checker and attributes, one inline script and style pinned by the CSP, nothing raw', () => {
    const html = renderAs('html');
    expect(html).not.toMatch(RAW_CONTROL);
    const tags = [...html.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>/g)];
    const allowed = [
      'html',
      'head',
      'meta',
      'title',
      'style',
      'body',
      'h1',
      'h2',
      'h3',
      'p',
      'strong',
      'code',
      'wbr',
      'table',
      'colgroup',
      'col',
      'thead',
      'tbody',
      'tr',
      'th',
      'td',
      'fieldset',
      'legend',
      'span',
      'label',
      'input',
      'br',
      'section',
      'div',
      'del',
      'ins',
      'pre',
      'ul',
      'li',
      'script',
    ];
    for (const [, , name, attributes] of tags) {
      expect(allowed, name).toContain(name!.toLowerCase());
      // Our attributes are always quoted; what is left between them must be nothing.
      expect(attributes!.replace(/\s([a-zA-Z-]+)(="[^"]*")?/g, '').trim(), attributes).toBe('');
      for (const [, attribute] of attributes!.matchAll(/\s([a-zA-Z-]+)(="[^"]*")?/g))
        expect(attribute, attributes).toMatch(/^(lang|charset|http-equiv|content|name|class|id|type|value|checked|data-[a-z]+)$/);
    }
    // Every "<" the server sent is text: the only tags are the ones counted above.
    expect(html.split('<').length - 1).toBe(tags.length + 1); // + the doctype
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1]!);
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1]!);
    expect(scripts).toHaveLength(1);
    expect(styles).toHaveLength(1);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
    const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
    expect(csp).toBe(
      `default-src 'none'; style-src ${hash(styles[0]!)}; script-src ${hash(scripts[0]!)}; img-src data:; base-uri 'none'; form-action 'none'`,
    );
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  test('every format renders (none left out of this test)', () => {
    expect([...FORMATS].sort()).toEqual(['github', 'html', 'json', 'junit', 'markdown', 'pretty', 'sarif']);
  });
});

describe('stderr and garbage stdout', () => {
  const hostileServer = (mode: string) => `"${process.execPath}" "${join(SERVERS_DIR, 'hostile-output-stdio.mjs')}" ${mode}`;

  for (const mode of ['stderr', 'stdout']) {
    test(`${mode}: the error line is terminal-safe (exit 3), and its JSON form parses`, async () => {
      const plain = await runCli(['check', '--server', hostileServer(mode), '--no-probes', '--timeout', '3000']);
      expect(plain.code, plain.stderr).toBe(3);
      expect(plain.stderr.replace(/\n/g, '')).not.toMatch(RAW_CONTROL);
      expect(
        plain.stderr
          .trimEnd()
          .split('\n')
          .every((line) => line.startsWith('b2-mcp-conform: ')),
      ).toBe(true);
      expect(plain.stdout).toBe('');
      const json = await runCli(['check', '--server', hostileServer(mode), '--no-probes', '--timeout', '3000', '--format', 'json']);
      expect(json.code).toBe(3);
      expect(json.stderr.replace(/\n$/, '')).not.toMatch(RAW_CONTROL);
      expect(JSON.parse(json.stderr).error.code).toMatch(/^(server-exited|protocol|connect|timeout)$/);
    });
  }
});

describe('what the SDK clients print and drop', () => {
  // A modern-era tool whose x-mcp-header declaration is invalid: over HTTP the 2.x client drops it
  // and warns, by name, on the console. Legacy clients never see it.
  const HIDDEN = `b2_list_hidden${HOSTILE.ansi}${HOSTILE.commands}`;
  let sdkServer: SurfaceHttpServer;
  beforeAll(async () => {
    const baseline = baselineSurface();
    sdkServer = await startSurfaceHttp({
      baseline,
      hiding: mutate(baseline, (s) => {
        s.legacyTools = structuredClone(s.tools);
        const hidden = { ...structuredClone(toolOf(s, 'b2_list_buckets')), name: HIDDEN };
        (hidden.inputSchema as { properties: Record<string, unknown> }).properties.exfil = {
          type: 'object',
          'x-mcp-header': `X${HOSTILE.ansi}`,
        };
        s.tools.push(hidden);
      }),
    });
  }, 60_000);
  afterAll(() => sdkServer?.stop());

  test('nothing a server chose reaches the console raw, stdout holds the report alone, and the dropped tool is judged', async () => {
    const fixturesDir = await snapshotFixtures(sdkServer.target('baseline'));
    const target = sdkServer.target('hiding');
    const url = target.kind === 'http' ? target.url.href : '';
    const args = [
      join(PACKAGE_ROOT, 'dist', 'bin', 'b2-mcp-conform.js'),
      'check',
      '--url',
      url,
      '--fixtures',
      fixturesDir,
      '--contract',
      writeContract(fixturesDir),
      '--no-probes',
      '--format',
      'json',
    ];
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (_error, out, err) =>
        resolve({ code: child.exitCode, stdout: out, stderr: err }),
      );
    });
    expect(code, stderr).toBe(1);
    expect(stderr).not.toMatch(RAW_CONTROL);
    expect(stderr).not.toContain('[mcp-sdk]');
    const report = JSON.parse(stdout) as { findings: { ruleId: string; tool?: string; era?: string }[] };
    const aboutHidden = report.findings.filter((finding) => finding.tool === HIDDEN);
    expect(aboutHidden.map((finding) => finding.ruleId)).toEqual(expect.arrayContaining(['diff/tool-added', 'credentials/x-mcp-header']));
  }, 120_000);
});
