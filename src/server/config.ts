import { readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { PROFILE_ALIASES, resolveProfileName, type ProfileName } from '../contract/constants.js';
import { DEFAULT_FILE_ROOT, fileRootProblem } from './s3/local-file-rules.js';

export type Transport = 'stdio' | 'http';

/** A configuration problem: reported as one line, exit code 1, never a stack trace. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

interface VariableSpec {
  name: string;
  description: string;
  /** Accepted values (case-insensitive); anything else is a startup error. */
  values?: readonly string[];
  defaults?: { stdio?: string; http?: string };
  /** A secret: `<name>_FILE` may name a file holding it instead (container secrets). */
  fromFile?: true;
}

/**
 * Every environment variable the server reads. The README's configuration table is generated
 * from this list, and a test fails if the code reads a variable that is not here.
 */
export const ENVIRONMENT_VARIABLES: readonly VariableSpec[] = [
  {
    name: 'B2_APPLICATION_KEY_ID',
    description:
      'Application key id. Required unless `B2_MCP_PROFILE` or `B2_REGISTER_ALL_TOOLS` pins the surface (tool calls then fail with `missing_credentials`).',
    fromFile: true,
  },
  { name: 'B2_APPLICATION_KEY', description: 'Application key secret; set together with `B2_APPLICATION_KEY_ID`.', fromFile: true },
  {
    name: 'B2_MASTER_KEY_ID',
    description: 'Partner (master) key id; a key distinct from the application key enables the Partner/Groups tools.',
    fromFile: true,
  },
  { name: 'B2_MASTER_KEY', description: 'Partner (master) key secret; set together with `B2_MASTER_KEY_ID`.', fromFile: true },
  {
    name: 'B2_API_URL',
    description: 'B2 Native API base URL used to authorize (point it at `b2-mcp sandbox` to try everything locally).',
    defaults: { stdio: 'https://api.backblazeb2.com', http: 'https://api.backblazeb2.com' },
  },
  {
    name: 'B2_MCP_PROFILE',
    description: 'Pin the tool surface to a named profile without contacting B2 (`phase1-default` is accepted for `default`).',
    values: ['full', 'default', 'read-only', ...Object.keys(PROFILE_ALIASES)],
  },
  {
    name: 'B2_REGISTER_ALL_TOOLS',
    description: "Serve the full surface without reading the key's capabilities.",
    values: ['true', 'false'],
    defaults: { stdio: 'false', http: 'false' },
  },
  {
    name: 'B2_MCP_OUTPUT_FORMAT',
    description:
      'Text block of structured results: compact JSON, TOON, or `auto` (per result, whichever is estimated to need fewer tokens; clients must accept both shapes). `structuredContent` is always the canonical JSON.',
    values: ['json', 'toon', 'auto'],
    defaults: { stdio: 'json', http: 'json' },
  },
  {
    name: 'B2_DESTRUCTIVE_POLICY',
    description: 'Destructive and protection-weakening calls: ask for confirmation, refuse, or allow.',
    values: ['confirm', 'block', 'allow'],
    defaults: { stdio: 'confirm', http: 'block' },
  },
  {
    name: 'B2_DESTRUCTIVE_ELICITATION',
    description: 'Ask the human through MCP form elicitation when the client supports it.',
    values: ['on', 'off', 'true', 'false', '1', '0'],
    defaults: { stdio: 'on', http: 'on' },
  },
  {
    name: 'B2_ELICITATION_TIMEOUT_MS',
    description:
      "Longest a 2025-era client may leave a confirmation question unanswered; the call is then refused. The client's progress notifications do not extend it (over HTTP the question holds one in-flight slot meanwhile).",
    defaults: { stdio: '600000', http: '600000' },
  },
  {
    name: 'B2_SECRET_SINK',
    description:
      'Where durable secrets (new keys, accounts) go: an owner-only file, inline in the result (explicit opt-in), or nowhere (those tools become unavailable stubs).',
    values: ['file', 'inline', 'off'],
    defaults: { stdio: 'file', http: 'off' },
  },
  {
    name: 'B2_SECRET_SINK_FILE',
    description: 'Absolute path of the secret ledger (JSON lines, mode 0600), created on first use.',
    defaults: { stdio: '~/.b2-mcp/secrets.jsonl' },
  },
  {
    name: 'B2_ALLOW_INLINE_SECRETS',
    description: 'Required opt-in for `B2_SECRET_SINK=inline` over HTTP.',
    values: ['true', 'false'],
    defaults: { stdio: 'false', http: 'false' },
  },
  {
    name: 'B2_ALLOW_KEY_MGMT_GRANTS',
    description: 'Let `b2_create_key` grant the key-management capabilities (`listKeys`, `writeKeys`, `deleteKeys`).',
    values: ['true', 'false'],
    defaults: { stdio: 'false', http: 'false' },
  },
  {
    name: 'B2_ALLOW_UNSCOPED_KEYS',
    description: 'Let `b2_create_key` create keys with write or delete capabilities that are not restricted to buckets.',
    values: ['true', 'false'],
    defaults: { stdio: 'false', http: 'false' },
  },
  {
    name: 'B2_MAX_KEY_DURATION_SECONDS',
    description: 'Longest lifetime `b2_create_key` may give a key (a positive integer); when set, every created key must expire within it.',
  },
  {
    name: 'B2_ALLOW_LOCAL_FILES',
    description:
      "Let `s3_get_object.saveToPath` and `s3_put_object.filePath` read and write local files, inside `B2_FILE_ROOT` only. The secret ledger and the log file are always refused; `saveToPath` never overwrites an existing path, never creates a file that something loads or runs by itself (`.pth`, `sitecustomize.py`, shell rc files, `.desktop`, LaunchAgents, systemd units, `authorized_keys`, `.npmrc`, anything under `site-packages`, `node_modules`, `bin`, `.git`, …) and creates files owner-only, not executable; `filePath` never uploads a file holding the server's or the caller's key id or key, another configured secret or the secret of a key this server created, nor an MCP client's configuration (`claude_desktop_config.json`, `mcp.json`, …).",
    values: ['true', 'false'],
    defaults: { stdio: 'true', http: 'false' },
  },
  {
    name: 'B2_FILE_ROOT',
    description: `The one directory local files are read from and saved to (symlinks resolved, checked on the opened file; relative paths are taken inside it); anything outside is refused. The default folder is created owner-only (0700) on first use; a root that is \`/\`, a home directory (or contains one), a system path, inside \`~/Library\`/\`AppData\` or in a folder a save may not write to (\`bin\`, \`site-packages\`, …) stops start-up.`,
    defaults: { stdio: DEFAULT_FILE_ROOT, http: DEFAULT_FILE_ROOT },
  },
  {
    name: 'B2_REGION',
    description: "Fallback S3 region; the authorized account's S3 endpoint wins once known.",
    defaults: { stdio: 'us-west-004', http: 'us-west-004' },
  },
  { name: 'B2_MCP_UA_SUFFIX', description: 'A token appended to the outbound User-Agent (`b2-mcp/<version> <suffix>`).' },
  { name: 'B2_LOG_FILE', description: 'Absolute path for JSON logs instead of stderr (never stdout).' },
  {
    name: 'LOG_LEVEL',
    description: 'Log level.',
    values: ['debug', 'info', 'warn', 'error', 'silent'],
    defaults: { stdio: 'info', http: 'info' },
  },
  {
    name: 'B2_ENABLE_MCP_PROMPTS',
    description: 'Serve the workflow prompts (off unless exactly `true`).',
    values: ['true', 'false'],
    defaults: { stdio: 'false', http: 'false' },
  },
  {
    name: 'B2_MCP_TRANSPORT',
    description: 'Transport when no subcommand is given.',
    values: ['stdio', 'http'],
    defaults: { stdio: 'stdio' },
  },
  { name: 'PORT', description: 'HTTP listen port when `--port` is not given.', defaults: { http: '3000' } },
  {
    name: 'B2_HTTP_CREDENTIAL_MODE',
    description:
      "Where the HTTP server gets the B2 key: per-request `X-B2-MCP-Key-Id`/`X-B2-MCP-Key` headers, its own `B2_APPLICATION_KEY_ID`/`B2_APPLICATION_KEY`, or (`principal`, with OAuth) the key `B2_PRINCIPAL_CREDENTIAL_MAP` maps the token's subject to. Credential headers are rejected in `server` and `principal` mode.",
    values: ['headers', 'server', 'principal'],
    defaults: { http: 'headers' },
  },
  {
    name: 'B2_PRINCIPAL_CREDENTIAL_MAP',
    description:
      "In `principal` mode: a JSON object from token subject (`sub`, or `<issuer>#<sub>`) to a credential reference `REF` (letters, digits, `_`, `-`); the reference's key is `B2_CREDENTIAL_<REF>_APPLICATION_KEY_ID` and `B2_CREDENTIAL_<REF>_APPLICATION_KEY` (optionally `_MASTER_KEY_ID`/`_MASTER_KEY`; `REF` upper-cased, `-` read as `_`), each also from `<name>_FILE`. Every mapped key is checked at start-up; a subject not in the map gets `403 principal_not_mapped`.",
    fromFile: true,
  },
  {
    name: 'B2_ALLOWED_HOSTS',
    description:
      'Comma-separated `Host` values accepted over HTTP (an entry without a port matches any port); unset with `B2_ALLOWED_ORIGINS` unset means loopback only.',
  },
  {
    name: 'B2_ALLOWED_ORIGINS',
    description:
      'Comma-separated exact `Origin` values accepted over HTTP; unset means the origin must match `B2_ALLOWED_HOSTS` (or be loopback).',
  },
  {
    name: 'B2_TRUST_PROXY_HEADERS',
    description:
      'Take the client address for HTTP limits from `X-Forwarded-For` (the entry `B2_TRUSTED_PROXY_HOPS` from the end, as appended by your proxies), or `X-Real-IP` when there is none; only behind trusted proxies (docs/deploy.md).',
    values: ['true', 'false'],
    defaults: { http: 'false' },
  },
  {
    name: 'B2_TRUSTED_PROXY_HOPS',
    description:
      'With `B2_TRUST_PROXY_HEADERS=true`: how many trusted proxies append to `X-Forwarded-For` before the server (nginx alone: 1; a cloud load balancer in front of nginx: 2). Entries further left were written by the client and never count.',
    defaults: { http: '1' },
  },
  {
    name: 'B2_MCP_RATE_LIMIT_RPS',
    description: 'HTTP token-bucket refill rate per client address and per credential (requests per second).',
    defaults: { http: '60' },
  },
  {
    name: 'B2_MCP_RATE_LIMIT_BURST',
    description: 'HTTP token-bucket size per client address and per credential.',
    defaults: { http: '120' },
  },
  {
    name: 'B2_MAX_SESSIONS',
    description:
      "Most HTTP requests in flight at once (each call of a 2025-03-26 batch counts), and most open 2025-era (legacy) sessions; more get 503 (to make room, the least recently used idle session of the requester's client address is closed, or one of an address holding at least two more; never a smaller holder's).",
    defaults: { http: '1000' },
  },
  {
    name: 'B2_MAX_SESSIONS_PER_KEY',
    description:
      "Most HTTP requests in flight per client address and per credential (a request counts against both), and most open legacy sessions per credential (or per address in `server` mode); more get 429, unless the owner's own least recently used idle session can be closed. A declared `clientInfo.name` plays no part.",
    defaults: { http: '20' },
  },
  {
    name: 'B2_MCP_REDIS_URL',
    description:
      'Share the HTTP rate limits, in-flight caps and legacy-session ownership with every instance that names the same Redis (`redis://[:password@]host:port[/db]`, `rediss://` for TLS); unset keeps them in this process. See docs/scaling.md.',
    fromFile: true,
  },
  {
    name: 'B2_MCP_REDIS_FAILURE',
    description:
      "While Redis cannot be reached: `open` applies this instance's own limits (never none), `closed` answers 503; the outage is logged once, when it starts and when it ends.",
    values: ['open', 'closed'],
    defaults: { http: 'open' },
  },
  {
    name: 'B2_MCP_PUBLIC_URL',
    description:
      'The URL clients reach the HTTP server at (e.g. `https://mcp.example.com`): the OAuth resource is `<url>/mcp` unless `B2_OAUTH_RESOURCE` says otherwise, its metadata `/.well-known/oauth-protected-resource/mcp`. With `B2_OAUTH_ISSUER`, this or `B2_OAUTH_RESOURCE` is required.',
  },
  {
    name: 'B2_OAUTH_RESOURCE',
    description:
      'The exact resource identifier (RFC 8707/9728) of this MCP endpoint, e.g. `https://mcp.example.com/mcp`: named as `resource` in the protected-resource metadata, and the default audience. Default `<B2_MCP_PUBLIC_URL>/mcp`.',
  },
  {
    name: 'B2_OAUTH_ISSUER',
    description:
      "Makes the HTTP server an OAuth 2.1 resource server: every MCP request needs a bearer token whose `iss` is exactly this: a JWT signed by a key of the issuer's JWKS (found through its RFC 8414 or OpenID metadata unless `B2_OAUTH_JWKS_URI` is set), or any token its introspection endpoint calls active (`B2_OAUTH_INTROSPECTION_ENDPOINT`); the `b2:read`, `b2:write`, `b2:admin` scopes narrow the tools to `read-only`, `default`, `full` (docs/deploy.md).",
  },
  {
    name: 'B2_OAUTH_AUDIENCE',
    description: 'The `aud` a token must name; by default the resource (`B2_OAUTH_RESOURCE`, else `<B2_MCP_PUBLIC_URL>/mcp`).',
  },
  {
    name: 'B2_OAUTH_REQUIRED_SCOPES',
    description:
      'Comma-separated scopes every token must hold besides one `b2:*` scope (they are added to `scopes_supported`); a token lacking one gets `403 insufficient_scope`.',
  },
  {
    name: 'B2_OAUTH_INTROSPECTION_ENDPOINT',
    description:
      'An RFC 7662 introspection endpoint: every bearer token (opaque or JWT) is checked there instead of against the JWKS, with the same issuer, audience, expiry, subject and scope rules; needs the client id and secret below.',
  },
  {
    name: 'B2_OAUTH_INTROSPECTION_CLIENT_ID',
    description: 'The client id this server authenticates to the introspection endpoint with (HTTP Basic).',
    fromFile: true,
  },
  { name: 'B2_OAUTH_INTROSPECTION_CLIENT_SECRET', description: 'The client secret for the introspection endpoint.', fromFile: true },
  {
    name: 'B2_OAUTH_INTROSPECTION_CACHE_TTL_SECONDS',
    description: 'How long an active introspection answer is reused for the same token (never past its `exp`); `0` asks every time.',
    defaults: { http: '60' },
  },
  { name: 'B2_OAUTH_JWKS_URI', description: "The issuer's JWKS URL, instead of the one its metadata names." },
  {
    name: 'B2_OAUTH_ALLOWED_SUBJECTS',
    description:
      "Comma-separated token subjects (`sub`, or `<issuer>#<sub>`) allowed to use the server; any other valid token gets `403 access_denied`. Unset: every valid token for the audience. Set it in `server` credential mode, where every caller uses the server's own B2 key.",
  },
  {
    name: 'B2_OAUTH_ALGORITHMS',
    description: 'Comma-separated JWS algorithms a token may be signed with (asymmetric only: `none` and `HS*` are never accepted).',
    defaults: { http: 'RS256' },
  },
  {
    name: 'B2_OAUTH_TOKEN_TYPES',
    description:
      'Comma-separated `typ` header values an access token may carry (case-insensitive, `application/` implied); a token with another `typ` (an ID or logout token) is refused, and one without `typ` unless the list holds `none`.',
    defaults: { http: 'at+jwt,JWT' },
  },
  {
    name: 'B2_OAUTH_DANGEROUSLY_ALLOW_INSECURE_ISSUER_URL',
    description: 'Accept `http://` issuer, JWKS and public URLs (local testing only: keys fetched without TLS can be forged).',
    values: ['true', 'false'],
    defaults: { http: 'false' },
  },
  { name: 'B2_HTTP_REQUEST_TIMEOUT_MS', description: 'Time allowed to receive a whole HTTP request.', defaults: { http: '30000' } },
  {
    name: 'B2_HTTP_HEADERS_TIMEOUT_MS',
    description: 'Time allowed to receive HTTP request headers (capped at the request timeout).',
    defaults: { http: '10000' },
  },
];

export interface Credentials {
  applicationKeyId: string;
  applicationKey: string;
  masterKeyId?: string;
  masterKey?: string;
}

export type OutputFormat = 'json' | 'toon' | 'auto';
export type DestructivePolicy = 'confirm' | 'block' | 'allow';
export type SecretSinkMode = 'file' | 'inline' | 'off';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** What `b2_create_key` may mint (contract §2.6). */
export interface KeyPolicy {
  allowKeyManagementGrants: boolean;
  allowUnscopedKeys: boolean;
  maxKeyDurationSeconds?: number;
}

export interface ServerConfig {
  transport: Transport;
  credentials?: Credentials | undefined;
  apiUrl: string;
  /** A pinned profile, or undefined to derive the surface from the key's capabilities. */
  profile?: ProfileName | undefined;
  registerAllTools: boolean;
  outputFormat: OutputFormat;
  destructivePolicy: DestructivePolicy;
  elicitation: boolean;
  /** How long a 2025-era client may take to answer a confirmation question. */
  elicitationTimeoutMs: number;
  secretSink: SecretSinkMode;
  secretSinkFile?: string | undefined;
  /** Why the secret tools are stubs although the sink was not switched off (set at start-up). */
  secretSinkUnavailable?: string;
  keyPolicy: KeyPolicy;
  allowLocalFiles: boolean;
  /** The one directory local files live in: `B2_FILE_ROOT`, or the default folder. */
  fileRoot: string;
  /** True for the default folder, created on first use; an operator's root must exist. */
  createFileRoot: boolean;
  region: string;
  logFile?: string | undefined;
  logLevel: LogLevel;
  promptsEnabled: boolean;
}

const SPECS = new Map(ENVIRONMENT_VARIABLES.map((spec) => [spec.name, spec]));

export function readSetting(env: NodeJS.ProcessEnv, transport: Transport, name: string): string | undefined {
  const spec = SPECS.get(name);
  if (!spec) throw new Error(`Undeclared environment variable ${name}`);
  const raw = env[name]?.trim();
  const value = raw === undefined || raw === '' ? spec.defaults?.[transport] : raw;
  if (value === undefined || !spec.values) return value;
  const normalized = value.toLowerCase();
  if (!spec.values.includes(normalized)) {
    throw new ConfigError(`${name} must be one of ${spec.values.join(', ')} (got "${value}").`);
  }
  return normalized;
}

/** The per-reference key variables of `principal` mode (`B2_CREDENTIAL_<REF>_…`). */
export const REFERENCE_KEY_FIELDS = ['APPLICATION_KEY_ID', 'APPLICATION_KEY', 'MASTER_KEY_ID', 'MASTER_KEY'] as const;
const REFERENCE_SECRET_FILE = new RegExp(`^B2_CREDENTIAL_[A-Z0-9_]+_(?:${REFERENCE_KEY_FIELDS.join('|')})_FILE$`);

/** The secret variables that may be given as `<name>_FILE`: the declared ones and every `B2_CREDENTIAL_<REF>_…`. */
function secretFileNames(env: NodeJS.ProcessEnv): string[] {
  const declared = ENVIRONMENT_VARIABLES.filter((spec) => spec.fromFile).map((spec) => spec.name);
  const references = Object.keys(env)
    .filter((name) => REFERENCE_SECRET_FILE.test(name))
    .map((name) => name.slice(0, -'_FILE'.length));
  return [...declared, ...references];
}

/**
 * The environment with each `<NAME>_FILE` replaced by `<NAME>` holding the file's content (one
 * trailing newline dropped), as container secret stores mount them. Setting both, or naming a
 * file that cannot be read, is a start-up error; the message names the variable, never the content.
 */
export function withSecretFiles(
  env: NodeJS.ProcessEnv,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): NodeJS.ProcessEnv {
  const resolved: NodeJS.ProcessEnv = { ...env };
  for (const name of secretFileNames(env)) {
    const fileName = `${name}_FILE`;
    const path = env[fileName]?.trim();
    if (!path) continue;
    if (env[name]?.trim()) throw new ConfigError(`Set ${name} or ${fileName}, not both.`);
    let content: string;
    try {
      content = readFile(path);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new ConfigError(`${fileName} names a file that cannot be read (${path}: ${reason}).`);
    }
    resolved[name] = content.replace(/\r?\n$/, '');
    delete resolved[fileName];
  }
  return resolved;
}

/** The password inside `B2_MCP_REDIS_URL` (as written and decoded), to be redacted like any other secret. */
export function redisUrlPasswords(env: NodeJS.ProcessEnv): string[] {
  const raw = env.B2_MCP_REDIS_URL?.trim();
  if (!raw || !URL.canParse(raw)) return [];
  const { password } = new URL(raw);
  if (!password) return [];
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // Malformed escapes: the written form is all there is.
  }
  return [...new Set([password, decoded])];
}

const isTrue = (value: string | undefined): boolean => value === 'true' || value === 'on' || value === '1';

function absolutePath(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const expanded = value.startsWith('~/') ? join(homedir(), value.slice(2)) : value;
  if (!isAbsolute(expanded)) throw new ConfigError(`${name} must be an absolute path (got "${value}").`);
  return expanded;
}

/**
 * The file root. While local files are allowed, an operator's root that is `/`, a home directory
 * or a system path stops start-up; the default folder is judged on first use, like any root.
 */
function fileRootOf(env: NodeJS.ProcessEnv, transport: Transport, allowLocalFiles: boolean): string {
  const root = resolve(absolutePath('B2_FILE_ROOT', readSetting(env, transport, 'B2_FILE_ROOT'))!);
  if (!allowLocalFiles || !env.B2_FILE_ROOT?.trim()) return root;
  let real = root;
  try {
    real = realpathSync(root);
  } catch {
    // Not there yet: judged as written (and again, by its real path, on first use).
  }
  const problem = fileRootProblem(root, homedir()) ?? fileRootProblem(real, homedir());
  if (problem)
    throw new ConfigError(`B2_FILE_ROOT (${root}) ${problem}; local files need a folder of their own, such as ${DEFAULT_FILE_ROOT}.`);
  return root;
}

function credentialPair(env: NodeJS.ProcessEnv, idName: string, secretName: string): [string, string] | undefined {
  const id = env[idName]?.trim();
  const secret = env[secretName]?.trim();
  if (!id && !secret) return undefined;
  if (!id || !secret) {
    throw new ConfigError(`${idName} and ${secretName} must be set together (only ${id ? idName : secretName} is set).`);
  }
  return [id, secret];
}

export function loadConfig(env: NodeJS.ProcessEnv, transport: Transport): ServerConfig {
  const primary = credentialPair(env, 'B2_APPLICATION_KEY_ID', 'B2_APPLICATION_KEY');
  const master = credentialPair(env, 'B2_MASTER_KEY_ID', 'B2_MASTER_KEY');
  if (master && !primary) throw new ConfigError('B2_MASTER_KEY_ID needs B2_APPLICATION_KEY_ID and B2_APPLICATION_KEY as well.');

  const profileValue = readSetting(env, transport, 'B2_MCP_PROFILE');
  const profile = profileValue === undefined ? undefined : resolveProfileName(profileValue);
  const registerAllTools = isTrue(readSetting(env, transport, 'B2_REGISTER_ALL_TOOLS'));
  // In HTTP headers and principal mode each request's key comes from elsewhere: the process needs none.
  const keyPerRequest = transport === 'http' && readSetting(env, transport, 'B2_HTTP_CREDENTIAL_MODE') !== 'server';
  if (!primary && !profile && !registerAllTools && !keyPerRequest) {
    throw new ConfigError('Set B2_APPLICATION_KEY_ID and B2_APPLICATION_KEY (or pin a surface with B2_MCP_PROFILE to run without a key).');
  }

  const secretSink = readSetting(env, transport, 'B2_SECRET_SINK') as SecretSinkMode;
  if (secretSink === 'inline' && transport === 'http' && !isTrue(readSetting(env, transport, 'B2_ALLOW_INLINE_SECRETS'))) {
    throw new ConfigError('B2_SECRET_SINK=inline over HTTP needs B2_ALLOW_INLINE_SECRETS=true.');
  }
  const explicitSinkFile = env.B2_SECRET_SINK_FILE?.trim();
  const allowLocalFiles = isTrue(readSetting(env, transport, 'B2_ALLOW_LOCAL_FILES'));
  if (secretSink === 'file' && transport === 'http' && (!explicitSinkFile || !allowLocalFiles)) {
    throw new ConfigError('B2_SECRET_SINK=file over HTTP needs an explicit B2_SECRET_SINK_FILE and B2_ALLOW_LOCAL_FILES=true.');
  }
  const logFile = absolutePath('B2_LOG_FILE', env.B2_LOG_FILE?.trim() || undefined);
  const secretSinkFile =
    secretSink === 'file' ? absolutePath('B2_SECRET_SINK_FILE', readSetting(env, transport, 'B2_SECRET_SINK_FILE')) : undefined;
  if (secretSinkFile && logFile && secretSinkFile === logFile) {
    throw new ConfigError('B2_SECRET_SINK_FILE must not be the log file.');
  }

  const maxKeyDuration = readSetting(env, transport, 'B2_MAX_KEY_DURATION_SECONDS');
  if (maxKeyDuration !== undefined && !/^[1-9]\d{0,15}$/.test(maxKeyDuration)) {
    throw new ConfigError(`B2_MAX_KEY_DURATION_SECONDS must be a positive whole number of seconds (got "${maxKeyDuration}").`);
  }

  const elicitationTimeout = readSetting(env, transport, 'B2_ELICITATION_TIMEOUT_MS') as string;
  if (!/^[1-9]\d{0,9}$/.test(elicitationTimeout)) {
    throw new ConfigError(`B2_ELICITATION_TIMEOUT_MS must be a positive whole number of milliseconds (got "${elicitationTimeout}").`);
  }

  const apiUrl = readSetting(env, transport, 'B2_API_URL') as string;
  try {
    const parsed = new URL(apiUrl);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error('protocol');
  } catch {
    throw new ConfigError(`B2_API_URL must be an http(s) URL (got "${apiUrl}").`);
  }

  return {
    transport,
    credentials: primary && {
      applicationKeyId: primary[0],
      applicationKey: primary[1],
      ...(master && { masterKeyId: master[0], masterKey: master[1] }),
    },
    apiUrl: apiUrl.replace(/\/+$/, ''),
    profile,
    registerAllTools,
    outputFormat: readSetting(env, transport, 'B2_MCP_OUTPUT_FORMAT') as OutputFormat,
    destructivePolicy: readSetting(env, transport, 'B2_DESTRUCTIVE_POLICY') as DestructivePolicy,
    elicitation: isTrue(readSetting(env, transport, 'B2_DESTRUCTIVE_ELICITATION')),
    elicitationTimeoutMs: Number(elicitationTimeout),
    secretSink,
    secretSinkFile,
    keyPolicy: {
      allowKeyManagementGrants: isTrue(readSetting(env, transport, 'B2_ALLOW_KEY_MGMT_GRANTS')),
      allowUnscopedKeys: isTrue(readSetting(env, transport, 'B2_ALLOW_UNSCOPED_KEYS')),
      ...(maxKeyDuration !== undefined && { maxKeyDurationSeconds: Number(maxKeyDuration) }),
    },
    allowLocalFiles,
    fileRoot: fileRootOf(env, transport, allowLocalFiles),
    createFileRoot: !env.B2_FILE_ROOT?.trim(),
    region: readSetting(env, transport, 'B2_REGION') as string,
    logFile,
    logLevel: readSetting(env, transport, 'LOG_LEVEL') as LogLevel,
    promptsEnabled: readSetting(env, transport, 'B2_ENABLE_MCP_PROMPTS') === 'true',
  };
}
