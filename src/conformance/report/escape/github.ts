import { randomUUID } from 'node:crypto';
import { terminalSafe } from './terminal.js';

/**
 * GitHub Actions workflow commands. The log renders ANSI, so text is made terminal-safe first
 * (no line break survives, so no server string can start a line), then escaped as the runner
 * documents: `%`, CR and LF in data; also `:` and `,` in properties.
 */
export function githubData(text: string): string {
  return terminalSafe(text).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function githubProperty(text: string): string {
  return githubData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * Lines between `::stop-commands::<token>` and `::<token>::` are never read as commands; the
 * token is random per report, so a server cannot end the block early.
 */
export function withoutCommands(lines: readonly string[], token: string = randomUUID()): string[] {
  return [`::stop-commands::${token}`, ...lines, `::${token}::`];
}
