/**
 * Every shell block in README.md and docs/ runs as written, or says why it cannot with a marker
 * on the line before its fence: `<!-- docs-test: skip: <reason> -->`.
 *
 * A block runs with bash -e in a scratch directory that looks like a checkout (dist/, fixtures/,
 * rules/ and docs/ link to this one, and node_modules/b2-mcp-conform is this package), with this
 * build's `b2-mcp` and `b2-mcp-conform` first on the PATH (`npx` of either runs it; `npx` of
 * anything else fails: nothing is fetched), `npm run build` a no-op (the suite built dist/
 * already) and any other npm command refused, and /tmp/ paths redirected to a private directory.
 * Blocks of one file run in order and share the directory, as a reader following them would.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../../src/conformance/package-root.js';

interface Block {
  file: string;
  line: number;
  text: string;
  skip?: string;
}

const MARKER = /^<!-- docs-test: skip: (.+?) -->$/;

function markdownFiles(): string[] {
  const docs = readdirSync(join(PACKAGE_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  return ['README.md', ...docs];
}

function shellBlocks(file: string): Block[] {
  const lines = readFileSync(join(PACKAGE_ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^( *)```(sh|bash|shell)$/.exec(lines[index]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const start = index;
    const body: string[] = [];
    while (++index < lines.length && !/^ *```$/.test(lines[index]!)) body.push(lines[index]!.slice(indent));
    const marker = MARKER.exec((lines[start - 1] ?? '').trim()) ?? MARKER.exec((lines[start - 2] ?? '').trim());
    blocks.push({ file, line: start + 1, text: body.join('\n'), ...(marker ? { skip: marker[1]! } : {}) });
  }
  return blocks;
}

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** A directory that looks like a checkout, with the shims on its PATH. */
function workspace(): { cwd: string; env: Record<string, string>; tmp: string } {
  const root = mkdtempSync(join(tmpdir(), 'b2-mcp-docs-'));
  scratch.push(root);
  const cwd = join(root, 'work');
  const bin = join(root, 'bin');
  const tmp = join(root, 'tmp');
  for (const dir of [cwd, bin, tmp, join(cwd, 'node_modules')]) mkdirSync(dir, { recursive: true });
  for (const name of ['dist', 'fixtures', 'rules', 'docs']) symlinkSync(join(PACKAGE_ROOT, name), join(cwd, name));
  symlinkSync(PACKAGE_ROOT, join(cwd, 'node_modules', 'b2-mcp-conform'));
  const shim = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/usr/bin/env bash\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  shim('b2-mcp', `exec "${process.execPath}" "${join(PACKAGE_ROOT, 'dist', 'bin', 'b2-mcp.js')}" "$@"`);
  shim('b2-mcp-conform', `exec "${process.execPath}" "${join(PACKAGE_ROOT, 'dist', 'bin', 'b2-mcp-conform.js')}" "$@"`);
  shim(
    'npx',
    [
      'while [[ "$1" == -* ]]; do case "$1" in -p|--package) shift 2 ;; *) shift ;; esac; done',
      'case "$1" in b2-mcp|b2-mcp-conform) exec "$@" ;; *) echo "npx $1: not available offline in the docs test" >&2; exit 127 ;; esac',
    ].join('\n'),
  );
  shim(
    'npm',
    [
      'args="$*"',
      'case "$args" in "run build"|"run build --silent"|"run --silent build") exit 0 ;; esac',
      'echo "npm $args: not run by the docs test" >&2; exit 127',
    ].join('\n'),
  );
  return { cwd, tmp, env: { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: root, TMPDIR: tmp, LOG_LEVEL: 'silent' } };
}

const byFile = new Map(
  markdownFiles()
    .map((file) => [file, shellBlocks(file)] as const)
    .filter(([, blocks]) => blocks.length > 0),
);

// A file's blocks keep their order even when the suite is shuffled: a reader runs them in order.
for (const [file, blocks] of byFile)
  describe(file, { shuffle: false }, () => {
    let space: ReturnType<typeof workspace> | undefined;

    it.each(blocks.map((block) => [`block at line ${block.line}`, block] as const))(
      '%s runs or says why not',
      (_label, block) => {
        if (block.skip) {
          expect(block.skip.trim().length, `${file}:${block.line} needs a reason to skip`).toBeGreaterThan(10);
          return;
        }
        space ??= workspace();
        const script = block.text.replaceAll('/tmp/', `${space.tmp}/`);
        const run = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], {
          cwd: space.cwd,
          env: space.env,
          encoding: 'utf8',
          input: '',
          timeout: 120_000,
        });
        expect(
          run.status,
          `${file}:${block.line}\n${script}\n--- stdout\n${run.stdout.slice(-2000)}\n--- stderr\n${run.stderr.slice(-2000)}`,
        ).toBe(0);
      },
      150_000,
    );
  });

it('finds the shell blocks (the extractor reads indented and top-level fences)', () => {
  const all = [...byFile.values()].flat();
  expect(all.length).toBeGreaterThan(10);
  expect(all.some((block) => /^npm run build$/m.test(block.text) && block.file === 'docs/ci.md')).toBe(true);
});
