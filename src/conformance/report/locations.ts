import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gitRootOf } from '../rules/config.js';
import type { Finding } from '../rules/findings.js';
import type { RunResult } from './evidence.js';

export interface SourceLocation {
  /**
   * Relative to the root of the repository the checker runs in (the git root of the working
   * directory, else the directory itself) when the file lies in it: code scanning and annotations
   * resolve paths from the repository root, wherever in it the job ran. Else a file URI.
   */
  uri: string;
  file: string;
  line: number;
}

/**
 * Lint findings name their file and line. The others are about a server, not a source file; they
 * are anchored to the fixture that records the expected tool or prompt (the file a reviewer edits
 * by regenerating), at its line when found.
 */
export function locate(finding: Finding, result: RunResult, cwd = process.cwd()): SourceLocation | undefined {
  if (finding.location && result.evidence.lint) {
    const file = join(result.evidence.lint.root, finding.location.file);
    return { uri: uriOf(file, gitRootOf(cwd) ?? cwd), file, line: finding.location.line };
  }
  const file = fileFor(finding, result);
  if (!file) return undefined;
  return { uri: uriOf(file, gitRootOf(cwd) ?? cwd), file, line: lineOf(file, finding.tool ?? finding.prompt) };
}

function fileFor(finding: Finding, result: RunResult): string | undefined {
  const { evidence } = result;
  if (finding.category === 'config') return evidence.config.file ?? undefined;
  const comparisons = finding.prompt === undefined ? evidence.hashes : (evidence.promptHashes ?? {});
  const scope = finding.scopes.find((candidate) => candidate in comparisons) ?? Object.keys(comparisons)[0];
  if (!scope) return undefined;
  const comparison = comparisons[scope]!;
  return evidence.command === 'diff' ? comparison.found.source : comparison.expected.source;
}

function uriOf(file: string, root: string): string {
  const rel = relative(root, file);
  if (rel && !rel.startsWith('..') && !isAbsolute(rel)) return rel.split('\\').join('/');
  return pathToFileURL(file).href;
}

const lineCache = new Map<string, string[]>();

function lineOf(file: string, name: string | undefined): number {
  if (!name || !existsSync(file)) return 1;
  let lines = lineCache.get(file);
  if (!lines) {
    lines = readFileSync(file, 'utf8').split('\n');
    lineCache.set(file, lines);
  }
  const needle = `"name": ${JSON.stringify(name)}`;
  const index = lines.findIndex((line) => line.includes(needle));
  return index === -1 ? 1 : index + 1;
}
