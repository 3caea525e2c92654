import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory holding this package's package.json, found by walking up from this module: the
 * same answer from `src/` (vitest) and from `dist/src/` (built). Fixtures, rules and the contract
 * artifact are found from here by the server's generator and by the checker alike.
 */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate) && JSON.parse(readFileSync(candidate, 'utf8')).name === 'b2-mcp-conform') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`b2-mcp-conform package root not found above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

export const PACKAGE_ROOT = findPackageRoot();
