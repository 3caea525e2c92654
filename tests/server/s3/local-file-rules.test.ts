/**
 * The local-file gate's decisions as data (src/server/s3/local-file-rules.ts) and the start-up
 * check of B2_FILE_ROOT: where the root may not be, what a save never creates, what an upload
 * never carries.
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/server/config.js';
import { autorunReason, fileRootProblem, holdsSecret, isClientConfigName } from '../../../src/server/s3/local-file-rules.js';

const HOME = '/home/alice';

describe('where the file root may be', () => {
  it.each([
    ['/', 'is the root of the file system'],
    [HOME, 'is or contains the home directory'],
    ['/home', 'is or contains the home directory'],
    ['/home/bob', 'is a home directory'],
    ['/Users/carol', 'is a home directory'],
    ['/root', 'is a home directory'],
    ['/var/root', 'is a home directory'],
    ['/tmp', 'is a shared top-level directory'],
    ['/etc', 'is a system path'],
    ['/usr/local/share/files', 'is a system path'],
    ['/opt/homebrew/lib', 'is a system path'],
    ['/proc/self', 'is a system path'],
    ['/System/Library', 'is a system path'],
    [`${HOME}/Library/Application Support/Claude`, 'lies in a per-user configuration tree (Library, AppData)'],
    [`${HOME}/AppData/Roaming/Claude`, 'lies in a per-user configuration tree (Library, AppData)'],
    [`${HOME}/.local/lib/python3.11/site-packages`, 'lies in "site-packages" (Python imports or runs it by itself)'],
    [`${HOME}/bin`, 'lies in "bin" (it lies on a command search path)'],
  ])('%s %s', (root, problem) => {
    expect(fileRootProblem(root, HOME)).toBe(problem);
  });

  it.each([
    `${HOME}/b2-mcp-files`,
    `${HOME}/.local/share/b2-mcp-files`,
    '/srv/b2/files',
    '/tmp/b2-files',
    '/mnt/data/exchange',
    '/var/tmp/files',
  ])('%s is allowed', (root) => {
    expect(fileRootProblem(root, HOME)).toBeUndefined();
  });
});

describe('what a save never creates', () => {
  it.each([
    'venv/lib/python3.11/site-packages/zz.pth',
    '/x/evil.pth',
    '/x/python311._pth',
    '/x/usercustomize.py',
    '/x/conftest.py',
    '/x/__pycache__/mod.cpython-311.pyc',
    '/x/.zshenv',
    '/x/.profile',
    '/x/config.fish',
    '/x/etc/profile.d/z.sh',
    '/x/.config/autostart/a.desktop',
    '/x/Library/LaunchDaemons/com.x.plist',
    '/x/.config/systemd/user/x.timer',
    '/x/x.service',
    '/x/crontab',
    '/x/cron.d/job',
    '/x/authorized_keys',
    '/x/.npmrc',
    '/x/.gitconfig',
    '/x/repo.git/hooks/post-checkout',
    '/x/.vscode/settings.json',
    '/x/sbin/tool',
    '/x/Start Menu/Programs/Startup/x.lnk',
  ])('%s', (path) => {
    expect(autorunReason(path)).toBeDefined();
  });

  it.each([
    '/x/report.pdf',
    '/x/binary/data.bin',
    '/x/webhooks/log.json',
    '/x/bashrc.txt',
    '/x/notes.pth.txt',
    '/x/python/readme.md',
    '/x/.env',
  ])('%s is allowed', (path) => {
    expect(autorunReason(path)).toBeUndefined();
  });
});

describe('what an upload never carries', () => {
  const secret = 'K005SecretValue/With+Signs';

  it('a secret as written, JSON- or URL-escaped, or in UTF-16 of either order', () => {
    for (const bytes of [
      Buffer.from(`x${secret}y`),
      Buffer.from(`"${secret.replace('/', '\\/')}"`),
      Buffer.from(encodeURIComponent(secret)),
      Buffer.from(secret, 'utf16le'),
      Buffer.from(secret, 'utf16le').swap16(),
    ]) {
      expect(holdsSecret(bytes, ['unrelated-secret', secret])).toBe(true);
    }
    expect(holdsSecret(Buffer.from(secret.slice(0, -1)), [secret])).toBe(false);
    expect(holdsSecret(Buffer.from(secret), [])).toBe(false);
  });

  it.each([
    'claude_desktop_config.json',
    '/a/Claude/Claude_Desktop_Config.json',
    '/p/.cursor/mcp.json',
    '/p/.mcp.json',
    '/h/.claude.json',
    '/h/.codeium/windsurf/mcp_config.json',
    'cline_mcp_settings.json',
  ])('%s is an MCP client configuration', (path) => {
    expect(isClientConfigName(path)).toBe(true);
  });

  it('other names are not', () => {
    expect(isClientConfigName('/p/package.json')).toBe(false);
    expect(isClientConfigName('/p/mcp.json.txt')).toBe(false);
  });
});

describe('B2_FILE_ROOT at start-up', () => {
  let base: string;
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'file-root-config-'));
    symlinkSync('/etc', join(base, 'etc-link'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const load = (extra: Record<string, string>) => loadConfig({ B2_MCP_PROFILE: 'full', B2_ALLOW_LOCAL_FILES: 'true', ...extra }, 'stdio');

  it('defaults to ~/b2-mcp-files, created on first use', () => {
    expect(load({})).toMatchObject({ fileRoot: join(homedir(), 'b2-mcp-files'), createFileRoot: true });
    expect(load({ B2_FILE_ROOT: base })).toMatchObject({ fileRoot: base, createFileRoot: false });
  });

  it.each([
    ['/', 'is the root of the file system'],
    ['~/', 'is or contains the home directory'],
    ['/etc', 'is a system path'],
    ['/home/someone', 'is a home directory'],
  ])('B2_FILE_ROOT=%s stops start-up, naming the setting', (root, problem) => {
    expect(() => load({ B2_FILE_ROOT: root })).toThrow(ConfigError);
    expect(() => load({ B2_FILE_ROOT: root })).toThrow(
      new RegExp(`^B2_FILE_ROOT \\(.*\\) ${problem}; local files need a folder of their own, such as ~/b2-mcp-files\\.$`),
    );
  });

  it('a root whose real path is a system path is refused by that path', () => {
    expect(() => load({ B2_FILE_ROOT: join(base, 'etc-link') })).toThrow(/is a system path/);
  });

  it('with local files off, the root is not judged', () => {
    expect(loadConfig({ B2_MCP_PROFILE: 'full', B2_ALLOW_LOCAL_FILES: 'false', B2_FILE_ROOT: '/' }, 'stdio').fileRoot).toBe('/');
  });
});
