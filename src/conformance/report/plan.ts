import { extname, resolve } from 'node:path';
import { ConformError } from '../errors.js';
import { FORMATS, type Format } from './formats.js';

export interface PlannedReport {
  format: Format;
  /** Null: stdout. */
  file: string | null;
}

/** File extensions that say which format a file holds; a file with one of them must get that format. */
const EXTENSION_FORMATS: Record<string, readonly Format[]> = {
  '.sarif': ['sarif'],
  '.json': ['json', 'sarif'],
  '.xml': ['junit'],
  '.md': ['markdown'],
  '.markdown': ['markdown'],
  '.html': ['html'],
  '.htm': ['html'],
};

function formatOf(name: string): Format {
  if (!(FORMATS as readonly string[]).includes(name))
    throw new ConformError('usage', `unknown --format "${name}" (expected ${FORMATS.join(', ')})`);
  return name as Format;
}

/** `.sarif.json` says sarif, `.json` says json or sarif. */
function formatsFor(file: string): readonly Format[] | undefined {
  if (/\.sarif\.json$/i.test(file)) return ['sarif'];
  return EXTENSION_FORMATS[extname(file).toLowerCase()];
}

/**
 * Which report goes where. Each `--format NAME=FILE` names its own file; a bare `--format NAME`
 * goes to stdout (at most one does). `--output FILE` is accepted only beside exactly one bare
 * `--format` (or none, for pretty), so a file can never receive a format by position. Anything
 * ambiguous is a usage error: two reports into one file, a file whose extension names another
 * format.
 */
export function reportPlan(formats: readonly string[] = [], outputs: readonly string[] = [], cwd = process.cwd()): PlannedReport[] {
  const plan: PlannedReport[] = (formats.length > 0 ? formats : ['pretty']).map((value) => {
    const at = value.indexOf('=');
    if (at === -1) return { format: formatOf(value), file: null };
    const file = value.slice(at + 1);
    if (!file)
      throw new ConformError(
        'usage',
        `--format ${value} names no file: use --format ${value.slice(0, at)}=FILE, or leave out "=" for stdout`,
      );
    return { format: formatOf(value.slice(0, at)), file };
  });
  if (outputs.length > 0) {
    const bare = plan.filter((entry) => entry.file === null);
    if (outputs.length > 1 || bare.length !== 1 || plan.length !== 1) {
      throw new ConformError(
        'usage',
        '--output is ambiguous here: name each report file with its format, e.g. --format sarif=conform.sarif --format junit=conform.xml',
      );
    }
    bare[0]!.file = outputs[0]!;
  }
  if (plan.filter((entry) => entry.file === null).length > 1) {
    throw new ConformError('usage', 'only one --format can go to stdout; write the others to files with --format NAME=FILE');
  }
  const seen = new Map<string, Format>();
  for (const { format, file } of plan) {
    if (file === null) continue;
    const key = resolve(cwd, file);
    if (seen.has(key))
      throw new ConformError('usage', `${file} would receive both the ${seen.get(key)} and the ${format} report; give each its own file`);
    seen.set(key, format);
    const expected = formatsFor(file);
    if (expected && !expected.includes(format)) {
      throw new ConformError(
        'usage',
        `${file} looks like a ${expected[0]} file but would receive the ${format} report; use --format ${expected[0]}=${file}, or another file name`,
      );
    }
  }
  return plan;
}
