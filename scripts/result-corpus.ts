import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/server/package-info.js';

// fixtures/result-corpus: real read-tool results (npm run generate:corpus), read by the result-text benchmark and its test.

/** One captured `structuredContent`, with the tool that produced it and its shape class. */
export interface CorpusEntry {
  id: string;
  tool: string;
  shape: 'flat-table' | 'keyed-table' | 'nested' | 'mixed';
  value: unknown;
}

export function loadCorpus(): CorpusEntry[] {
  const dir = join(packageRoot(), 'fixtures', 'result-corpus');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as CorpusEntry);
}
