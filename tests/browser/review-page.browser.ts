import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bundledEnvironment } from '../../src/conformance/connect/bundled.js';
import { sortFindings, type Finding } from '../../src/conformance/rules/findings.js';
import { loadRules } from '../../src/conformance/rules/engine.js';
import { groupBySubject } from '../../src/conformance/report/summary.js';
import { render } from '../../src/conformance/report/index.js';
import { checkServer } from '../../src/conformance/commands/check.js';
import type { RunResult } from '../../src/conformance/report/evidence.js';
import { stdioTarget } from '../../src/conformance/connect/target.js';
import { ALL, HOSTILE } from '../support/servers/hostile-output-strings.mjs';
import { baselineSurface } from '../support/baseline.js';
import { emptyEvidence, findingOf } from '../support/report-input.js';
import {
  check,
  mutate,
  propsOf,
  removeTempDirs,
  snapshotFixtures,
  startSurfaceHttp,
  tempDir,
  toolOf,
  writeContract,
  type SurfaceHttpServer,
} from '../support/checker-harness.js';
import { chromiumPath, launch, watchedPage } from './chromium.js';
import { connectionSettings } from '../../src/conformance/api.js';

/**
 * The review page (`--format html`) as a reviewer opens it: from disk, in Debian's headless
 * Chromium, for our bundled server, the project's test fork and a hostile server. Everything a
 * page does is read from the browser's own events: requests, script errors, console errors,
 * dialogs and Content-Security-Policy violations.
 */
const REPO = fileURLToPath(new URL('../../', import.meta.url));
const FORK_DIR = join(REPO, 'tests/support/fork');
const EDITS = JSON.parse(readFileSync(join(FORK_DIR, 'edits.json'), 'utf8')) as {
  renames: Record<string, string>;
  loosened: { tool: string; path: string[]; value: unknown }[];
};
const RENAMES = EDITS.renames;
const forkName = (name: string) => RENAMES[name] ?? name;
/** The tool the screenshot shows: renamed, and a bound loosened in its schema. */
const SHOWN_TOOL = forkName(EDITS.loosened.find(({ tool }) => RENAMES[tool])!.tool);
/** `UPDATE_SCREENSHOTS=1 npm run test:browser` rewrites the screenshots docs/conformance.md shows. */
const SCREENSHOT_DIR = process.env.UPDATE_SCREENSHOTS === '1' ? join(REPO, 'docs/images') : tempDir();

const executable = chromiumPath();
if (!executable) console.warn('test:browser skipped: no chromium on PATH (apt-get install chromium; .ci/run installs it where it can)');

let browser: Browser;
let hostileServer: SurfaceHttpServer | undefined;
const reports: Record<'bundled' | 'fork' | 'hostile', { result: RunResult; file: string }> = {} as never;

function writeReport(name: string, result: RunResult): { result: RunResult; file: string } {
  const file = join(tempDir(), `${name}.html`);
  writeFileSync(file, render('html', result, { failOn: 'error', color: false }));
  return { result, file };
}

async function hostileResult(): Promise<RunResult> {
  const baseline = baselineSurface();
  hostileServer = await startSurfaceHttp({
    baseline,
    hostile: mutate(baseline, (s) => {
      s.serverInfo = { name: `evil ${HOSTILE.ansi}`, version: HOSTILE.commands };
      toolOf(s, 'b2_list_buckets').description = `${ALL} List buckets.`;
      propsOf(s, 's3_list_objects_v2')[`key${HOSTILE.markdown}`] = {
        type: 'string',
        description: `${HOSTILE.xml} <img src="https://evil.example/i.png" onerror="alert(2)">`,
      };
      for (const [kind, text] of Object.entries(HOSTILE)) s.tools.push({ ...toolOf(s, 'b2_list_buckets'), name: `b2_list_${kind}${text}` });
      s.tools.push({
        ...toolOf(s, 'b2_list_buckets'),
        name: 'b2_list_</style><style>body{display:none}</style><script src="https://evil.example/x.js"></script><a href="javascript:alert(1)">x</a>',
      });
    }),
  });
  const fixturesDir = await snapshotFixtures(hostileServer.target('baseline'));
  return check(hostileServer.target('hostile'), { fixturesDir, contractFile: writeContract(fixturesDir) });
}

const active = (result: RunResult) => result.findings.filter((finding) => !finding.suppressed);

/** Not a blank or single-colour image: enough distinct colours and a spread of brightness. */
function pixelStats(png: Uint8Array): { colours: number; variance: number; width: number; height: number } {
  const image = PNG.sync.read(Buffer.from(png));
  const colours = new Set<number>();
  let sum = 0;
  let squares = 0;
  const pixels = image.width * image.height;
  for (let i = 0; i < image.data.length; i += 4) {
    const [r, g, b] = [image.data[i]!, image.data[i + 1]!, image.data[i + 2]!];
    colours.add((r << 16) | (g << 8) | b);
    const luma = 0.299 * r + 0.587 * g + 0.114 * b;
    sum += luma;
    squares += luma * luma;
  }
  const mean = sum / pixels;
  return { colours: colours.size, variance: squares / pixels - mean * mean, width: image.width, height: image.height };
}

describe.skipIf(!executable)('the review page in headless Chromium', () => {
  beforeAll(async () => {
    const [bundled, fork, hostile, opened] = await Promise.all([
      checkServer({ profile: 'default', target: null, era: 'both', connection: connectionSettings({ timeoutMs: 30_000 }) }),
      checkServer({
        profile: 'phase1-default',
        target: stdioTarget(`"${process.execPath}" "${join(FORK_DIR, 'fork-server.mjs')}"`, bundledEnvironment('default')),
        era: 'both',
        connection: connectionSettings({ timeoutMs: 30_000 }),
        cwd: tempDir(),
        today: '2026-11-30',
      }),
      hostileResult(),
      launch(executable!),
    ]);
    browser = opened;
    reports.bundled = writeReport('bundled', bundled);
    reports.fork = writeReport('fork', fork);
    reports.hostile = writeReport('hostile', hostile);
  });

  afterAll(async () => {
    await browser?.close();
    hostileServer?.stop();
    removeTempDirs();
  });

  async function open(name: keyof typeof reports) {
    const { page, log } = await watchedPage(browser);
    const url = pathToFileURL(reports[name].file).href;
    await page.goto(url, { waitUntil: 'load' });
    return { page, log, url };
  }

  async function expectInert(name: keyof typeof reports, log: Awaited<ReturnType<typeof open>>['log'], url: string) {
    expect(log.requests, `${name}: requests`).toEqual([url]);
    expect(log.scriptErrors, `${name}: script errors`).toEqual([]);
    expect(log.consoleErrors, `${name}: console errors`).toEqual([]);
    expect(log.dialogs, `${name}: dialogs`).toEqual([]);
    expect(await log.cspViolations(), `${name}: CSP violations`).toEqual([]);
  }

  for (const name of ['bundled', 'fork', 'hostile'] as const) {
    test(`${name}: the counts shown are the run's, and nothing but the file itself is requested`, async () => {
      const { page, log, url } = await open(name);
      const { result } = reports[name];
      const findings = active(result);
      const shown = await page.$eval('#shown', (element) => element.textContent);
      expect(shown).toBe(String(findings.length));
      expect(
        await page.$$eval('tr[data-severity]', (rows) => rows.filter((row) => (row as HTMLElement).offsetParent !== null).length),
      ).toBe(findings.length);
      expect(await page.$eval('#summary', (element) => element.textContent)).toMatch(new RegExp(`^${findings.length} findings: `));
      expect(await page.$$eval('#tools tbody tr', (rows) => rows.length)).toBe(groupBySubject(findings).length);
      await expectInert(name, log, url);
      await page.close();
    });
  }

  test('bundled: the only finding is the reviewed warning, and the verdict is PASS', async () => {
    const { page } = await open('bundled');
    expect(await page.$eval('#verdict', (element) => element.textContent)).toMatch(/^PASS /);
    expect(active(reports.bundled.result).map((finding) => finding.ruleId)).toEqual(['credentials/secret-like-nested']);
    await page.close();
  });

  test('fork: the four renames are shown as renamed, and filtering by severity and class hides and restores rows', async () => {
    const { page, log, url } = await open('fork');
    const statuses = Object.fromEntries(
      await page.$$eval('#tools tbody tr', (rows) => rows.map((row) => [row.children[0]!.textContent, row.children[1]!.textContent])),
    );
    for (const name of Object.values(RENAMES)) expect(statuses[name], name).toBe('renamed');
    expect(Object.values(statuses).filter((status) => status === 'renamed')).toHaveLength(Object.keys(RENAMES).length);

    const findings = active(reports.fork.result);
    const visible = () =>
      page.$$eval('tr[data-severity]', (rows) =>
        rows
          .filter((row) => (row as HTMLElement).offsetParent !== null)
          .map((row) => `${(row as HTMLElement).dataset.severity} ${(row as HTMLElement).dataset.class}`),
      );
    await page.click('input[data-filter="severity"][value="error"]');
    const withoutErrors = findings.filter((finding) => finding.severity !== 'error').length;
    expect(withoutErrors).toBeLessThan(findings.length);
    expect(await visible()).toHaveLength(withoutErrors);
    expect((await visible()).some((row) => row.startsWith('error '))).toBe(false);
    expect(await page.$eval('#shown', (element) => element.textContent)).toBe(String(withoutErrors));
    await page.click('input[data-filter="severity"][value="error"]');
    expect(await visible()).toHaveLength(findings.length);
    await page.click('input[data-filter="class"][value="breaking"]');
    expect(await visible()).toHaveLength(findings.filter((finding) => finding.class !== 'breaking').length);
    // A renamed tool has only breaking findings left hidden: its section goes with them.
    const renamed = Object.values(RENAMES)[0]!;
    const sectionShown = (tool: string) => page.$eval(`section[data-tool="${tool}"]`, (section) => !(section as HTMLElement).hidden);
    expect(await sectionShown(renamed)).toBe(
      findings.filter((finding) => finding.tool === renamed).some((finding) => finding.class !== 'breaking'),
    );
    await expectInert('fork', log, url);
    await page.close();
  });

  test('fork: each tool with a loosened bound shows both schemas side by side, the changed keyword marked on each side', async () => {
    const { page } = await open('fork');
    for (const { tool, path, value } of EDITS.loosened) {
      const marked = (side: string) =>
        page.$$eval(`section[data-tool="${forkName(tool)}"] pre[data-schema="${side}"] .changed`, (lines) =>
          lines.map((line) => line.textContent!.trim()),
        );
      const keyword = path.at(-1)!;
      const after = await marked('after');
      expect(after, tool).toEqual([expect.stringMatching(new RegExp(`^"${keyword}": ${value},?$`))]);
      const before = await marked('before');
      expect(before, tool).toHaveLength(1);
      expect(before[0], tool).toMatch(new RegExp(`^"${keyword}": \\d+,?$`));
      expect(before[0]).not.toBe(after[0]);
      // Both sides are readable next to each other, not stacked.
      const [left, right] = await page.$$eval(`section[data-tool="${forkName(tool)}"] pre[data-schema]`, (sides) =>
        sides.map((side) => side.getBoundingClientRect().left),
      );
      expect(right!).toBeGreaterThan(left!);
    }
    await page.close();
  });

  test('hostile: the hostile names are shown as text, and the page stays readable', async () => {
    const { page, log, url } = await open('hostile');
    // biome-ignore lint/performance/useDomNodeTextContent: innerText is the text a reader sees (CSS applied); textContent is not
    const body = await page.$eval('body', (element) => element.innerText);
    expect(body).toContain('<script src="https://evil.example/x.js"></script>');
    expect(body).toContain('javascript:alert(1)');
    expect(await page.$$eval('script', (scripts) => scripts.length)).toBe(1);
    expect(await page.$$eval('a, img, iframe, object, embed, link', (elements) => elements.length)).toBe(0);
    expect(await page.$eval('body', (element) => getComputedStyle(element).display)).toBe('block');
    await expectInert('hostile', log, url);
    await page.close();
  });

  test('light and dark mode: the page follows the colour scheme', async () => {
    const { page } = await open('fork');
    const background = () => page.$eval('body', (element) => getComputedStyle(element).backgroundColor);
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
    expect(await background()).toBe('rgb(255, 255, 255)');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    expect(await background()).toBe('rgb(13, 17, 23)');
    await page.close();
  });

  test('screenshots of the summary and of one tool are not blank', async () => {
    const { page } = await open('fork');
    await page.setViewport({ width: 1200, height: 900 });
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
    const bottom = await page.$eval('fieldset', (element) => element.getBoundingClientRect().bottom);
    const summary = await page.screenshot({ clip: { x: 0, y: 0, width: 1200, height: Math.ceil(bottom) + 16 } });
    const tool = await (await page.$(`section[data-tool="${SHOWN_TOOL}"]`))!.screenshot();
    for (const [name, png] of [
      ['review-summary.png', summary],
      ['review-tool.png', tool],
    ] as const) {
      const stats = pixelStats(png);
      expect(stats.width * stats.height, name).toBeGreaterThan(100 * 100);
      expect(stats.colours, name).toBeGreaterThan(16);
      expect(stats.variance, name).toBeGreaterThan(100);
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      writeFileSync(join(SCREENSHOT_DIR, name), png);
    }
    await page.close();
  });
});

/**
 * A changed tool with long schemas: property names, a pattern and a description with no space to
 * break at, a deep path, and texts that span several lines.
 */
function longSchemaResult(): RunResult {
  const rules = loadRules();
  const longName = `bucket_lifecycle_rule_for_objects_under_the_prefix_${'segment_'.repeat(8)}end`;
  const pattern = `^(${'[A-Za-z0-9._-]{1,63}\\/'.repeat(20)})$`;
  const property = (extra: Record<string, unknown>) => ({
    type: 'string',
    description: `${'unbroken-description-word-'.repeat(20)}end`,
    ...extra,
  });
  const before = {
    type: 'object',
    properties: {
      [longName]: property({ maxLength: 100 }),
      corsRules: { type: 'array', items: { type: 'object', properties: { corsRuleName: property({}) } } },
    },
  };
  const after = {
    type: 'object',
    properties: {
      [longName]: property({ maxLength: 50, pattern }),
      corsRules: { type: 'array', items: { type: 'object', properties: { corsRuleName: property({ minLength: 6 }) } } },
    },
  };
  const tool = 'b2_update_bucket_lifecycle_rules';
  const deep = `inputSchema.properties.corsRules.items.properties.corsRuleName.minLength`;
  const finding = (ruleId: string, path: string, extra: Partial<Finding> = {}) =>
    findingOf(rules, ruleId, tool, { message: `Tool ${tool}: ${path} changed`, path, scopes: ['before'], profile: '*', ...extra });
  const findings = sortFindings([
    finding('diff/bounds-tightened', `inputSchema.properties.${longName}.maxLength`, { schemas: { before, after } }),
    finding('diff/bounds-tightened', `inputSchema.properties.${longName}.pattern`),
    finding('diff/bounds-tightened', deep),
    finding('diff/description-changed', 'description', {
      text: {
        before: 'Updates the lifecycle rules.\nOld second line.',
        after: 'Updates the lifecycle rules.\nNew second line.\nA third line.',
      },
    }),
  ]);
  return {
    findings,
    evidence: emptyEvidence({ command: 'diff', versions: { 'b2-mcp-conform': '0.0.0' }, profile: null, rulesEvaluated: 4, durationMs: 10 }),
    rules,
    evaluated: [],
  };
}

describe.skipIf(!executable)('the review page of a tool with long schemas, at common window widths', () => {
  let file: string;
  let wide: Browser;
  beforeAll(async () => {
    wide = await launch(executable!);
    file = join(tempDir(), 'long.html');
    writeFileSync(file, render('html', longSchemaResult(), { failOn: 'error', color: false }));
  });

  afterAll(async () => {
    await wide?.close();
    removeTempDirs();
  });

  for (const width of [1024, 1400]) {
    test(`${width} px: the page never scrolls sideways, both schema panes sit inside the window, and long values wrap inside their pane`, async () => {
      const { page } = await watchedPage(wide);
      await page.setViewport({ width, height: 900 });
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      const layout = await page.evaluate(() => {
        const panes = [...document.querySelectorAll('pre[data-schema]')].map((pane) => {
          const box = pane.getBoundingClientRect();
          return { left: box.left, right: box.right, scrollWidth: pane.scrollWidth, clientWidth: pane.clientWidth };
        });
        return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, panes };
      });
      expect(layout.scrollWidth, 'page scroll width').toBeLessThanOrEqual(layout.innerWidth);
      expect(layout.panes).toHaveLength(2);
      const [fixture, live] = layout.panes;
      expect(live!.left, 'the live pane starts right of the fixture pane').toBeGreaterThan(fixture!.left);
      for (const pane of layout.panes) {
        expect(pane.right).toBeLessThanOrEqual(layout.innerWidth);
        expect(pane.scrollWidth, 'no scrolling inside a pane either').toBeLessThanOrEqual(pane.clientWidth);
      }
      await page.close();
    });

    test(`${width} px: rule ids and paths wrap at their separators, not letter by letter`, async () => {
      const { page } = await watchedPage(wide);
      await page.setViewport({ width, height: 900 });
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      const cells = await page.$$eval('section[data-tool] tbody tr', (rows) =>
        rows.map((row) => {
          const lines = (cell: Element) => {
            const code = cell.querySelector('code');
            // One rect per piece of a line box: the lines are the distinct tops.
            return code
              ? { text: code.textContent!, lines: new Set([...code.getClientRects()].map((rect) => Math.round(rect.top))).size }
              : null;
          };
          return { rule: lines(row.children[1]!)!, path: lines(row.children[2]!) };
        }),
      );
      expect(cells).toHaveLength(4);
      for (const { rule, path } of cells) {
        expect(rule.lines, rule.text).toBeLessThanOrEqual(2);
        // Whole segments per line: at least a dozen characters on each line of a long path.
        if (path) expect(path.lines, path.text).toBeLessThanOrEqual(Math.ceil(path.text.length / 12));
      }
      await page.close();
    });
  }

  test('line breaks of a text are kept, never shown as \\n', async () => {
    const { page } = await watchedPage(wide);
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    // biome-ignore lint/performance/useDomNodeTextContent: innerText is the text a reader sees (CSS applied); textContent is not
    const shown = await page.$eval('section[data-tool] .text', (element) => (element as HTMLElement).innerText);
    expect(shown).toContain('Updates the lifecycle rules.\n');
    expect(shown).toMatch(/\nA third line\.$/);
    expect(shown).not.toContain('\\n');
    await page.close();
  });
});
