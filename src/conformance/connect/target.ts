import { PROFILE_ALIASES, PROFILE_NAMES, resolveProfileName, type ProfileName } from '../../contract/constants.js';
import { ConformError } from '../errors.js';

/** A server spawned as a child process, spoken to over stdio. */
export interface StdioTarget {
  kind: 'stdio';
  command: string;
  args: string[];
  /** The only variables the child gets besides the SDK's safe defaults (HOME, PATH, ...). */
  env: Record<string, string>;
}

/** A running server reached over Streamable HTTP. */
export interface HttpTarget {
  kind: 'http';
  url: URL;
  headers: Record<string, string>;
  /** Set when this is the b2-mcp shipped with the checker, started for this run (see bundled.ts). */
  bundled?: { env: string[] };
}

export type Target = StdioTarget | HttpTarget;

/** A profile name and the other spellings of it (`phase1-default` and `default` are one profile). */
export function profileSpellings(name: string): string[] {
  const canonical = PROFILE_ALIASES[name];
  const aliases = Object.entries(PROFILE_ALIASES)
    .filter(([, target]) => target === name)
    .map(([alias]) => alias);
  return [...new Set([name, ...(canonical ? [canonical] : []), ...aliases])];
}

/**
 * The contract's own name for a profile the user typed: as the contract lists it, else under
 * another spelling of it. An unknown name is a usage error that lists what the contract has.
 */
export function resolveContractProfile(input: string, available: readonly string[], contractFile: string): string {
  const found = profileSpellings(input).find((name) => available.includes(name));
  if (found !== undefined) return found;
  const aliases = Object.entries(PROFILE_ALIASES).map(([alias, name]) => `${alias} = ${name}`);
  throw new ConformError(
    'usage',
    `unknown profile "${input}": the contract ${contractFile} has ${[...available].sort().join(', ')} (alias ${aliases.join(', ')}); name another contract with --contract FILE`,
  );
}

export function resolveProfile(input: string): ProfileName {
  const profile = resolveProfileName(input);
  if (!profile) {
    const aliases = Object.entries(PROFILE_ALIASES).map(([alias, name]) => `${alias} = ${name}`);
    throw new ConformError('usage', `unknown profile "${input}" (expected ${PROFILE_NAMES.join(', ')}; alias ${aliases.join(', ')})`);
  }
  return profile;
}

/**
 * Split a command line the way a POSIX shell splits words: whitespace separates, single quotes
 * are literal, double quotes allow backslash escapes of `"` and `\`. No expansion of any kind.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote === "'") {
      if (ch === "'") quote = null;
      else word += ch;
    } else if (quote === '"') {
      if (ch === '"') quote = null;
      else if (ch === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) word += line[++i];
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) throw new ConformError('usage', `--server: unterminated ${quote} quote in "${line}"`);
  if (inWord) words.push(word);
  return words;
}

/** `K=V` pairs (for --header and --env); a bare `K` takes its value from `fallback`, if given. */
export function parsePairs(
  option: string,
  items: readonly string[],
  fallback?: (key: string) => string | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    const key = (eq === -1 ? item : item.slice(0, eq)).trim();
    if (!key) throw new ConformError('usage', `${option} "${item}": expected NAME=VALUE`);
    if (eq === -1) {
      const inherited = fallback?.(key);
      if (inherited === undefined) throw new ConformError('usage', `${option} "${item}": expected NAME=VALUE`);
      out[key] = inherited;
    } else {
      out[key] = item.slice(eq + 1);
    }
  }
  return out;
}

export function stdioTarget(commandLine: string, env: Record<string, string>): StdioTarget {
  const [command, ...args] = splitCommandLine(commandLine);
  if (!command) throw new ConformError('usage', '--server needs a command to run');
  return { kind: 'stdio', command, args, env };
}

export function httpTarget(url: string, headers: Record<string, string>): HttpTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConformError('usage', `--url "${url}" is not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConformError('usage', `--url must be http:// or https://, got ${parsed.protocol}`);
  }
  return { kind: 'http', url: parsed, headers };
}

/** Values that must never be echoed: env values and header values given on the command line. */
export function secretValuesOf(target: Target): string[] {
  const values = target.kind === 'stdio' ? Object.values(target.env) : Object.values(target.headers);
  const fromUrl = target.kind === 'http' ? [target.url.password, ...target.url.searchParams.values()] : [];
  return [...values, ...fromUrl].filter((value) => value.length >= 4);
}

/** Mask the given secret values, and anything that looks like a long token, in free text. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join('***');
  // Key-like: a long run of token characters mixing letters and digits (paths contain '/').
  return out.replace(/[A-Za-z0-9+_-]{24,}={0,2}/g, (run) => (/\d/.test(run) && /[A-Za-z]/.test(run) ? '***' : run));
}

/** How the target appears in reports: names of env vars and headers, never their values. */
export function describeTarget(target: Target): Record<string, unknown> {
  if (target.kind === 'stdio')
    return { transport: 'stdio', command: target.command, args: target.args, env: Object.keys(target.env).sort() };
  if (target.bundled) return { transport: 'streamable-http', server: 'b2-mcp (bundled, loopback)', env: target.bundled.env };
  const url = new URL(target.url.href);
  url.username = '';
  url.password = '';
  for (const key of [...url.searchParams.keys()]) url.searchParams.set(key, '***');
  return { transport: 'streamable-http', url: url.href, headers: Object.keys(target.headers).sort() };
}
