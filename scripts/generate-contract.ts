import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageRoot } from '../src/server/package-info.js';
import { generateContractFiles } from './contract/generate.js';

const root = packageRoot();
for (const [path, content] of await generateContractFiles()) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
  process.stdout.write(`wrote ${path}\n`);
}
