import { existsSync, readFileSync } from 'node:fs';
import { extname, isAbsolute, join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, expect, test } from 'vitest';
import { main } from '../../../../src/conformance/cli.js';
import { PACKAGE_ROOT } from '../../../../src/conformance/package-root.js';
import { reportPlan } from '../../../../src/conformance/report/plan.js';
import { splitCommandLine } from '../../../../src/conformance/connect/target.js';
import { baselineSurface } from '../../../support/baseline.js';
import { SERVERS_DIR, removeTempDirs, tempDir, writeJson } from '../../../support/checker-harness.js';

afterAll(() => removeTempDirs());

/** Every invocation of the checker in a fenced code block, joined across `\` and YAML `>` folds. */
function recipes(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^ *```(?:sh|yaml)\n([\s\S]*?)^ *```$/gm)].map((match) => match[1]!);
  const commands: string[] = [];
  for (const block of blocks) {
    const lines = block.split('\n');
    const logical: string[] = [];
    for (let index = 0; index < lines.length; index++) {
      let line = lines[index]!;
      if (/(^|\s)>\s*$/.test(line)) {
        // A folded YAML scalar: the more-indented lines below are one line.
        const indent = /^\s*/.exec(line)![0].length;
        const parts: string[] = [];
        while (index + 1 < lines.length && /^\s*/.exec(lines[index + 1]!)![0].length > indent && lines[index + 1]!.trim())
          parts.push(lines[++index]!.trim());
        line = parts.join(' ');
      }
      while (line.endsWith('\\') && index + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++index]!.trim()}`;
      logical.push(line);
    }
    for (const line of logical) {
      const at = line.search(/(node dist\/bin\/b2-mcp-conform\.js|npx b2-mcp-conform) /);
      if (at === -1 || line.trimStart().startsWith('#')) continue;
      let command = line
        .slice(at)
        .split(/\s(?:\|\||&&|;|>|&)(?:\s|$)/)[0]!
        .trim();
      if ((command.match(/'/g)?.length ?? 0) % 2 === 1) command = command.replace(/'$/, ''); // the end of sh -c '…'
      if ((command.match(/\)/g)?.length ?? 0) > (command.match(/\(/g)?.length ?? 0)) command = command.replace(/\)$/, ''); // the end of a ( … ) subshell
      commands.push(command.replace(/^(node dist\/bin\/b2-mcp-conform\.js|npx b2-mcp-conform) /, ''));
    }
  }
  return commands;
}

/** A stand-in for a fork run over stdio: the test surface server with a small conforming surface. */
const forkCommand = () =>
  `node ${join(SERVERS_DIR, 'surface-server.mjs')} stdio ${writeJson(tempDir(), 'surface.json', baselineSurface())}`;

/** The --format values of a recipe, and its --output values. */
function reportOptions(args: readonly string[]): { formats: string[]; outputs: string[] } {
  const formats: string[] = [];
  const outputs: string[] = [];
  args.forEach((arg, index) => {
    if (arg === '--format') formats.push(args[index + 1]!);
    else if (arg.startsWith('--format=')) formats.push(arg.slice('--format='.length));
    else if (arg === '--output') outputs.push(args[index + 1]!);
  });
  return { formats, outputs };
}

/** The file holds what its extension says. */
function expectFormat(file: string, format: string): void {
  const text = readFileSync(file, 'utf8');
  const kind = /\.sarif(\.json)?$/.test(file) ? 'sarif' : extname(file);
  expect(kind === 'sarif' ? 'sarif' : { '.json': 'json', '.xml': 'junit', '.md': 'markdown' }[kind], file).toBe(format);
  if (format === 'sarif') expect(JSON.parse(text).version).toBe('2.1.0');
  if (format === 'json') expect(JSON.parse(text).schemaVersion).toBeGreaterThan(0);
  if (format === 'junit') {
    expect(XMLValidator.validate(text)).toBe(true);
    expect(new XMLParser().parse(text).testsuites).toBeDefined();
  }
  if (format === 'markdown') expect(text).toMatch(/^### b2-mcp-conform (check|diff)/);
}

const ciRecipes = recipes(readFileSync(join(PACKAGE_ROOT, 'docs', 'ci.md'), 'utf8'));

test('docs/ci.md has the recipes this test expects to find', () => {
  expect(ciRecipes.length).toBeGreaterThanOrEqual(9);
  expect(ciRecipes.filter((recipe) => recipe.startsWith('check'))).not.toHaveLength(0);
  expect(ciRecipes.some((recipe) => recipe.startsWith('snapshot'))).toBe(true);
  expect(ciRecipes.some((recipe) => recipe.startsWith('diff'))).toBe(true);
  expect(ciRecipes.some((recipe) => recipe.startsWith('check') && / --lint( |$)/.test(recipe))).toBe(true);
});

test('every recipe in docs/ci.md runs, and each file it writes has the format its extension says', async () => {
  const cwd = tempDir();
  const candidate = tempDir();
  const substitute = (recipe: string) =>
    recipe
      .replace(/\$\{\{ matrix\.profile \}\}/g, 'default')
      .replace(/"\$profile"/g, 'default')
      .replace(/\/tmp\/candidate/g, candidate)
      .replace(/\/tmp\/contract-diff\.md/g, join(cwd, 'contract-diff.md'))
      .replace(/node \.\.\/their-fork\/dist\/index\.js/g, forkCommand())
      // The recipes run in a checkout of this repository: --lint reads it.
      .replace(/--lint(?= |'|$)/g, `--lint ${PACKAGE_ROOT}`);
  const runs: { recipe: string; args: string[]; plan: ReturnType<typeof reportPlan> }[] = [];
  for (const recipe of ciRecipes) {
    const args = splitCommandLine(substitute(recipe)).map((arg) =>
      !arg.startsWith('-') && !isAbsolute(arg) && /\//.test(arg) && existsSync(join(PACKAGE_ROOT, arg)) ? join(PACKAGE_ROOT, arg) : arg,
    );
    const { formats, outputs } = reportOptions(args);
    const plan = args[0] === 'snapshot' ? [] : reportPlan(formats, outputs, cwd); // never ambiguous, never a file of another format
    // Not run here: a deployed server (--url), a sandbox kept running (--sandbox-env), and the
    // probes (their own tests cover them; here they would only add minutes).
    if (args.some((arg) => ['--url', '--sandbox-env', '--probes', '--only-probes'].includes(arg))) continue;
    if (args[0] === 'check' && !args.includes('--no-probes')) args.push('--no-probes');
    runs.push({ recipe, args, plan });
  }
  const execute = async ({ recipe, args, plan }: (typeof runs)[number]) => {
    let stdout = '';
    let stderr = '';
    const code = await main(['node', 'b2-mcp-conform', ...args], {
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      color: false,
      cwd,
      env: { PATH: process.env.PATH },
    });
    expect([0, 1], `${recipe}\n${stderr}`).toContain(code);
    for (const { format, file } of plan) {
      if (file) expectFormat(isAbsolute(file) ? file : join(cwd, file), format);
      else if (format === 'github') expect(stdout.trimEnd().split('\n').at(-1)).toMatch(/^b2-mcp-conform (PASS|FAIL) /);
      else if (format === 'pretty') expect(stdout.trimEnd().split('\n').at(-1)).toMatch(/^(PASS|FAIL) /);
    }
    if (args[0] === 'snapshot') expect(stdout).toMatch(/^wrote .*default\.modern\.json/m);
  };
  // The snapshot writes what the diff recipe reads; the rest are independent.
  const snapshots = runs.filter((run) => run.args[0] === 'snapshot');
  for (const run of snapshots) await execute(run);
  await Promise.all(runs.filter((run) => run.args[0] !== 'snapshot').map(execute));
  const executed = runs.length;
  expect(executed).toBeGreaterThanOrEqual(6);
}, 180_000);
