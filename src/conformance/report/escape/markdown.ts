import { terminalSafe } from './terminal.js';

/**
 * Markdown for GitHub comments and job summaries. Text is made terminal-safe first (one line, no
 * invisible characters). Then every character that could open markup is neutralised: HTML
 * (`<`, `>`, `&`, `"` become entities, so no tag, comment or entity survives), emphasis, code,
 * links and images, strikethrough, math and table cells (backslash escapes), and the literal
 * autolinks GitHub makes of `www.`, `scheme://` and mail addresses. `@` and `#` before a word
 * get a zero-width space so text cannot mention people or reference issues.
 */
const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

export function markdownText(text: string): string {
  return terminalSafe(text)
    .replace(/[\\`*_[\]|~$]/g, (char) => `\\${char}`)
    .replace(/[&<>"]/g, (char) => ENTITY[char]!)
    .replace(/:\/\//g, '\\://')
    .replace(/(www)\./gi, '$1\\.')
    .replace(/([@#])(?=[\p{L}\p{N}_-])/gu, '$1&#8203;')
    .replace(/^(\d+)([.)])/, '$1\\$2')
    .replace(/^[-+=#>]/, (char) => `\\${char}`);
}

/**
 * A code span around the text: the fence is one backtick longer than the longest run inside,
 * padded when the text starts or ends with a backtick. In a table cell `|` is escaped (GitHub
 * splits cells before it reads code spans and drops the backslash).
 */
export function markdownCode(text: string, options: { table?: boolean } = {}): string {
  let safe = terminalSafe(text);
  if (options.table) safe = safe.replace(/\|/g, '\\|');
  if (safe.trim() === '') return `\`${'\u00a0'.repeat(Math.max(1, safe.length))}\``;
  const longest = Math.max(0, ...[...safe.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = safe.startsWith('`') || safe.endsWith('`') || (safe.startsWith(' ') && safe.endsWith(' ')) ? ' ' : '';
  return `${fence}${pad}${safe}${pad}${fence}`;
}

/**
 * The checker's own prose, which may use Markdown (code spans): only `<` and `>` outside code
 * spans become entities, so placeholders like `<prefix>_<verb>_<noun>` are shown instead of being
 * dropped as unknown HTML tags.
 */
export function markdownProse(text: string): string {
  return text
    .split(/(`+[^`]*`+)/)
    .map((part, index) => (index % 2 === 1 ? part : part.replace(/</g, '&lt;').replace(/>/g, '&gt;')))
    .join('');
}
