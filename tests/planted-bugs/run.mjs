#!/usr/bin/env node
// Plants each bug of bugs.json, one at a time, in a copy of the working tree and runs the tests
// that must catch it. Usage: node tests/planted-bugs/run.mjs [id ...]. Exit 0 when every bug is
// caught, 1 when one is missed, 2 when the unmodified copy already fails its tests.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const SKIPPED = new Set(['node_modules', '.git', 'dist', '.stryker-tmp', 'reports', 'coverage']);
const { bugs: all } = JSON.parse(readFileSync(join(import.meta.dirname, 'bugs.json'), 'utf8'));
const wanted = process.argv.slice(2);
const bugs = wanted.length ? all.filter((bug) => wanted.includes(bug.id)) : all;
if (wanted.length && bugs.length !== wanted.length) {
  console.error(`unknown bug id: ${wanted.filter((id) => !all.some((bug) => bug.id === id)).join(', ')}`);
  process.exit(2);
}

const copy = mkdtempSync(join(tmpdir(), 'planted-bugs-'));
cpSync(ROOT, copy, { recursive: true, filter: (source) => !SKIPPED.has(relative(ROOT, source).split('/')[0]) });
symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');

function run(command, args) {
  const result = spawnSync(command, args, {
    cwd: copy,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}
const build = () => {
  const built = run('npm', ['run', '--silent', 'build']);
  if (!built.ok) throw new Error(`build failed:\n${built.output}`);
};
const vitest = (files, filter) =>
  run(process.execPath, [join(copy, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...files, ...(filter ? ['-t', filter] : [])]);
const failedFiles = (output) => [...new Set([...output.matchAll(/FAIL\s+(\S+\.test\.ts)/g)].map((match) => match[1]))];

function plant(bug) {
  const path = join(copy, bug.file);
  const source = readFileSync(path, 'utf8');
  const at = source.indexOf(bug.find);
  if (at < 0 || source.indexOf(bug.find, at + 1) >= 0)
    throw new Error(`${bug.id}: the text to replace must occur exactly once in ${bug.file}`);
  writeFileSync(path, source.slice(0, at) + bug.replace + source.slice(at + bug.find.length));
  return () => writeFileSync(path, source);
}

let exitCode = 0;
try {
  build();
  for (const filter of new Set(bugs.map((bug) => bug.filter))) {
    const baseline = vitest([...new Set(bugs.filter((bug) => bug.filter === filter).flatMap((bug) => bug.tests))], filter);
    if (!baseline.ok) {
      console.error(`the unmodified tree fails its tests (${failedFiles(baseline.output).join(', ')}); nothing planted`);
      process.exit(2);
    }
  }
  let caught = 0;
  let distPlanted = false;
  for (const bug of bugs) {
    const restore = plant(bug);
    try {
      if (bug.build) build();
      distPlanted = Boolean(bug.build);
      const outcome = vitest(bug.tests, bug.filter);
      if (outcome.ok) {
        exitCode = 1;
        console.log(`MISSED  ${bug.id}: ${bug.bug}`);
      } else {
        caught += 1;
        console.log(`caught  ${bug.id}: ${bug.bug} (by ${failedFiles(outcome.output).join(', ') || bug.tests.join(', ')})`);
      }
    } finally {
      restore();
      if (distPlanted) build();
      distPlanted = false;
    }
  }
  console.log(`${caught}/${bugs.length} planted bugs caught`);
} finally {
  rmSync(copy, { recursive: true, force: true });
}
process.exit(exitCode);
