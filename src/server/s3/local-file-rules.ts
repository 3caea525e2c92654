/**
 * What the local-file gate (`local-files.ts`) refuses, as data: where the file root may not be,
 * what a save may never create inside it, and what an upload may never carry to B2.
 * Names are compared without case: macOS and Windows file systems ignore it.
 */
import { basename, dirname, extname, isAbsolute, relative, sep } from 'node:path';

/** The folder local files live in when `B2_FILE_ROOT` is not set: `<home>/b2-mcp-files`. */
export const DEFAULT_FILE_ROOT = '~/b2-mcp-files';

/** `path` is `root` or lies under it, compared by path segments. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

const segmentsOf = (path: string): string[] => path.split(sep).map((segment) => segment.toLowerCase());

/** Trees of the operating system and installed software: never a file root, nor inside one. */
const SYSTEM_TREES: readonly string[] = [
  '/proc',
  '/sys',
  '/dev',
  '/run',
  '/boot',
  '/etc',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/usr',
  '/opt',
  '/snap',
  '/var/lib',
  '/var/spool',
  '/var/run',
  '/private/etc',
  '/private/var/run',
  '/System',
  '/Library',
  '/Applications',
];
/** Shared top-level directories: a root may lie below them, never be one of them. */
const SHARED_TOPS: readonly string[] = [
  '/tmp',
  '/var',
  '/private',
  '/private/tmp',
  '/private/var',
  '/mnt',
  '/media',
  '/srv',
  '/Volumes',
  '/home',
  '/Users',
];
/** Parents whose children are home directories. */
const HOME_PARENTS: readonly string[] = ['/home', '/Users'];
/** Per-user configuration trees (macOS `~/Library`, Windows `AppData`): a root never lies in one. */
const CONFIGURATION_SEGMENTS: readonly string[] = ['library', 'appdata'];

/**
 * Why `root` (an absolute path, real or as configured) cannot be the file root, if it cannot:
 * the file-system root, a home directory or what contains one, a system path.
 */
export function fileRootProblem(root: string, home: string): string | undefined {
  if (dirname(root) === root) return 'is the root of the file system';
  if (isInside(root, home)) return 'is or contains the home directory';
  if (HOME_PARENTS.includes(dirname(root)) || root === '/root' || root === '/var/root') return 'is a home directory';
  if (SHARED_TOPS.includes(root)) return 'is a shared top-level directory';
  if (SYSTEM_TREES.some((tree) => isInside(tree, root))) return 'is a system path';
  if (isInside(home, root) && segmentsOf(relative(home, root)).some((segment) => CONFIGURATION_SEGMENTS.includes(segment))) {
    return 'lies in a per-user configuration tree (Library, AppData)';
  }
  return autorunReason(root);
}

/**
 * What a save never creates, wherever it lies: files and folders that a program loads or runs
 * by itself, without the user opening them. A path is refused when any of its segments is one
 * of `segments`, or its last one is one of `names` or ends in one of `extensions`.
 */
interface AutorunRule {
  why: string;
  segments: readonly string[];
  names?: readonly string[];
  extensions?: readonly string[];
}

const AUTORUN_RULES: readonly AutorunRule[] = [
  {
    why: 'Python imports or runs it by itself',
    segments: ['site-packages', 'dist-packages', '__pycache__'],
    names: ['sitecustomize.py', 'usercustomize.py', 'conftest.py'],
    extensions: ['.pth', '._pth'],
  },
  {
    why: 'a shell or desktop session reads it at start-up',
    segments: ['profile.d'],
    names: [
      '.bashrc',
      '.bash_profile',
      '.bash_login',
      '.bash_logout',
      '.profile',
      '.zshrc',
      '.zshenv',
      '.zprofile',
      '.zlogin',
      '.zlogout',
      '.cshrc',
      '.tcshrc',
      '.login',
      '.logout',
      '.kshrc',
      '.mkshrc',
      'config.fish',
      '.envrc',
      '.inputrc',
      '.xinitrc',
      '.xprofile',
      '.xsession',
      '.xsessionrc',
      '.pam_environment',
    ],
  },
  {
    why: 'the desktop or the service manager starts it',
    segments: ['autostart', 'launchagents', 'launchdaemons', 'startupitems', 'startup', 'systemd', 'init.d', 'rc.d'],
    extensions: ['.desktop', '.service', '.timer', '.socket', '.path', '.mount', '.automount'],
  },
  { why: 'cron runs it', segments: ['cron.d', 'cron.hourly', 'cron.daily', 'cron.weekly', 'cron.monthly', 'crontabs'], names: ['crontab'] },
  { why: 'it grants or configures remote log-in', segments: ['.ssh'], names: ['authorized_keys', 'authorized_keys2'] },
  {
    why: 'a package manager, git or an editor loads it and can run commands from it',
    segments: ['node_modules', '.git', 'hooks', '.vscode'],
    names: ['.npmrc', '.yarnrc', '.yarnrc.yml', '.gitconfig', 'pip.conf', 'pip.ini', '.vimrc', '.gvimrc', '.exrc', '.wgetrc', '.curlrc'],
  },
  { why: 'it lies on a command search path', segments: ['bin', 'sbin'] },
];

/** Why a save must not create `path` (an absolute path), if it must not. */
export function autorunReason(path: string): string | undefined {
  const segments = segmentsOf(path);
  const name = basename(path).toLowerCase();
  const extension = extname(name);
  for (const rule of AUTORUN_RULES) {
    const segment = segments.find((part) => rule.segments.includes(part));
    if (segment !== undefined) return `lies in "${segment}" (${rule.why})`;
    if (rule.names?.includes(name) || rule.extensions?.includes(extension)) return `is a file ${rule.why}`;
  }
  return undefined;
}

/** Configuration files of MCP clients, which hold the keys of the servers they start: never uploaded. */
const CLIENT_CONFIG_NAMES: readonly string[] = [
  'claude_desktop_config.json',
  '.claude.json',
  'mcp.json',
  '.mcp.json',
  'mcp_config.json',
  'mcp_settings.json',
  'cline_mcp_settings.json',
];

export const isClientConfigName = (path: string): boolean => CLIENT_CONFIG_NAMES.includes(basename(path).toLowerCase());

/** The byte forms a secret takes in a text file: as written, JSON- and URL-escaped, in UTF-16 of either order. */
function secretForms(secret: string): Buffer[] {
  const texts = [...new Set([secret, secret.replaceAll('/', '\\/'), encodeURIComponent(secret)])];
  return texts.flatMap((text) => {
    const utf16le = Buffer.from(text, 'utf16le');
    return [Buffer.from(text), utf16le, Buffer.from(utf16le).swap16()];
  });
}

/** Does `bytes` hold one of `secrets` in any of its forms? */
export function holdsSecret(bytes: Buffer, secrets: readonly string[]): boolean {
  return secrets.some((secret) => secretForms(secret).some((form) => bytes.includes(form)));
}
