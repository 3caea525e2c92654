import type { Severity } from '../rules/findings.js';
import type { RunResult } from './evidence.js';
import { renderGithub } from './github.js';
import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';
import { renderPretty } from './pretty.js';
import { renderSarif } from './sarif.js';
import { verdictOf } from './verdict.js';

import type { Format } from './formats.js';

export type { Format } from './formats.js';

/** Every report is a rendering of the same findings and evidence. */
export interface RenderOptions {
  failOn: Severity;
  color: boolean;
  /** Everything in full (pretty and Markdown are bounded without it). */
  verbose?: boolean;
  /** A file of the same run holding every finding (JSON or SARIF), named in overflow notes. */
  fullReport?: string;
}

export function render(format: Format, result: RunResult, options: RenderOptions): string {
  const verdict = verdictOf(result.findings, options.failOn);
  switch (format) {
    case 'pretty':
      return renderPretty(result, verdict, { color: options.color, verbose: options.verbose ?? false });
    case 'json':
      return renderJson(result, verdict);
    case 'sarif':
      return renderSarif(result, verdict);
    case 'junit':
      return renderJunit(result, verdict);
    case 'markdown':
      return renderMarkdown(result, verdict, {
        verbose: options.verbose ?? false,
        ...(options.fullReport ? { fullReport: options.fullReport } : {}),
      });
    case 'github':
      return renderGithub(result, verdict);
    case 'html':
      return renderHtml(result, verdict);
  }
}
