import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareLocalTarget, readLocalFile } from '../../../src/server/s3/local-files.js';
import { ToolError } from '../../../src/server/errors.js';

/**
 * B2_FILE_ROOT (docs/contract.md): a path is inside the root when its real path lies under the
 * root's real path, by path segments, not by text: `/data/root-evil` is not inside `/data/root`.
 */
let base: string;
let root: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'file-root-'));
  root = join(base, 'root');
  for (const dir of [root, join(base, 'root-evil'), join(base, 'rootx'), join(root, 'sub')]) mkdirSync(dir);
  for (const file of [
    join(base, 'root-evil', 'f.txt'),
    join(base, 'rootx', 'f.txt'),
    join(root, 'sub', 'f.txt'),
    join(root, 'f.txt'),
    join(root, '..f.txt'),
  ])
    writeFileSync(file, 'data');
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const policy = () => ({ allowLocalFiles: true, fileRoot: root });

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'allowed';
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return (error as ToolError).code;
  }
}

describe('B2_FILE_ROOT compares path segments', () => {
  it.each(['root-evil/f.txt', 'rootx/f.txt'])(
    "a sibling whose name starts with the root's (%s) is outside: reads and saves refused",
    async (relative) => {
      expect(await codeOf(readLocalFile(policy(), join(base, relative), 1024, []))).toBe('local_file_refused');
      expect(await codeOf(prepareLocalTarget(policy(), join(base, relative.replace('f.txt', 'new.txt'))))).toBe('local_file_refused');
    },
  );

  it.each(['f.txt', 'sub/f.txt', '..f.txt'])('%s inside the root is read (a name starting with ".." is still inside)', async (relative) => {
    expect((await readLocalFile(policy(), join(root, relative), 1024, [])).toString()).toBe('data');
  });

  it('the root itself is inside, its parent is not', async () => {
    expect((await prepareLocalTarget(policy(), join(root, 'new.txt'))).path).toBe(join(root, 'new.txt'));
    expect(await codeOf(prepareLocalTarget(policy(), join(base, 'new.txt')))).toBe('local_file_refused');
  });
});
