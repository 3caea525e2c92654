/**
 * The package as people outside this repository get it: `npm pack` (which runs `prepare`, a
 * clean build) and the git URL of the committed HEAD, each installed into a fresh project from
 * the npm cache; both bins and both entry points run from there. `npm run test:package`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDir, gitSource, installInto, packTarball, removeDir, REPO_ROOT, runBin, tarballFiles, tarballSource } from './consumer.js';

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Record<string, any>;

describe('package.json', () => {
  it('names the product, keeps both bins, builds on prepare, and says where it lives', () => {
    expect(manifest.name).toBe('b2-mcp-conform');
    expect(Object.keys(manifest.bin).sort()).toEqual(['b2-mcp', 'b2-mcp-conform']);
    expect(manifest.scripts.prepare).toMatch(/npm run build/);
    expect(manifest.license).toBe('MIT');
    expect(readFileSync(join(REPO_ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
    for (const field of ['repository', 'homepage', 'bugs']) expect(manifest[field], field).toBeTruthy();
    expect(manifest.exports['.']).toEqual({ types: './dist/src/index.d.ts', default: './dist/src/index.js' });
    expect(manifest.exports['./vitest']).toEqual({ types: './dist/src/vitest.d.ts', default: './dist/src/vitest.js' });
  });
});

describe('the packed tarball, installed into a fresh project', () => {
  let work: string;
  let project: string;
  let files: string[];
  beforeAll(() => {
    work = freshDir('b2-mcp-pack-');
    const tarball = packTarball(work, { runScripts: true });
    files = tarballFiles(tarball);
    project = freshDir('b2-mcp-consumer-');
    const { offline } = installInto(project, tarballSource(tarball));
    if (!offline) console.warn('the npm cache lacked a dependency: installed with --prefer-offline');
  }, 240_000);
  afterAll(() => {
    removeDir(work);
    removeDir(project);
  });

  it('ships what runs and nothing else', () => {
    for (const needed of [
      'dist/bin/b2-mcp.js',
      'dist/bin/b2-mcp-conform.js',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/vitest.d.ts',
      'docs/generated/tool-profile-contract.json',
      'docs/report.schema.json',
      'fixtures/tool-contract/default.modern.json',
      'rules/diff.json',
      'LICENSE',
      'README.md',
    ]) {
      expect(files, needed).toContain(needed);
    }
    expect(files.filter((file) => /^(fixtures\/result-corpus|bench|dist\/bench|dist\/scripts|scripts|tests|src)\//.test(file))).toEqual([]);
    // Bundle chunks of the bins are rewritten from scratch by every build, so they cannot be stale.
    expect(files.some((file) => file.startsWith('dist/bin/chunks/b2-mcp/'))).toBe(true);
    for (const file of files.filter((path) => path.startsWith('dist/') && path.endsWith('.js') && !path.startsWith('dist/bin/chunks/'))) {
      const source = file.replace(/^dist\//, '').replace(/\.js$/, '.ts');
      expect(existsSync(join(REPO_ROOT, source)), `${file} has no source (stale build output)`).toBe(true);
    }
  });

  it('b2-mcp-conform check --profile default passes against the bundled server', () => {
    const run = runBin(project, 'b2-mcp-conform', ['check', '--profile', 'default']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^PASS 0 errors/m);
  });

  it('b2-mcp --help prints its usage', () => {
    const run = runBin(project, 'b2-mcp', ['--help']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Usage: b2-mcp/);
    expect(run.stdout).toContain('sandbox');
  });

  it('both entry points import, and their types are there', () => {
    const script = [
      "const api = await import('b2-mcp-conform');",
      "const matchers = await import('b2-mcp-conform/vitest');",
      "const bundled = new URL('./fixtures/tool-contract', import.meta.resolve('b2-mcp-conform/package.json')).pathname;",
      'const report = await api.diff({ before: bundled, after: bundled });',
      "const refused = await api.check({ server: 'x', url: 'http://127.0.0.1:1/mcp' }).catch((error) => ({ code: error.code, exitCode: error.exitCode }));",
      "const handler = api.createFetchHandler({ env: { B2_MCP_PROFILE: 'read-only', B2_SECRET_SINK: 'off', LOG_LEVEL: 'silent' } });",
      "const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'consumer', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };",
      "const served = await handler(new Request('http://localhost/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-method': 'tools/list', 'x-b2-mcp-key-id': 'id', 'x-b2-mcp-key': 'secret' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } }) }));",
      'const fetchTools = (await served.json()).result.tools.length;',
      'await handler.close();',
      'console.log(JSON.stringify({ api: Object.keys(api).sort(), matchers: Object.keys(matchers).sort(), rules: api.loadRules().rules.length > 0, verdict: report.verdict, compared: report.evidence.target.compared.length, refused, fetchTools }));',
    ].join('\n');
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const seen = JSON.parse(run.stdout) as {
      api: string[];
      matchers: string[];
      rules: boolean;
      verdict: string;
      compared: number;
      refused: unknown;
      fetchTools: number;
    };
    expect(seen.api).toEqual(
      expect.arrayContaining(['check', 'diff', 'snapshot', 'loadRules', 'ConformError', 'createFetchHandler', 'ConfigError']),
    );
    // The server as a fetch handler, from the installed package: the read-only surface.
    expect(seen.fetchTools).toBe(20);
    expect(seen.matchers).toEqual(expect.arrayContaining(['contractMatchers', 'toPassContract']));
    expect(seen.rules).toBe(true);
    expect(seen).toMatchObject({ verdict: 'pass', compared: 6, refused: { code: 'usage', exitCode: 2 } });
    const installed = join(project, 'node_modules', 'b2-mcp-conform', 'dist', 'src');
    expect(readFileSync(join(installed, 'index.d.ts'), 'utf8')).toMatch(/export declare function loadRules/);
    expect(readFileSync(join(installed, 'conformance', 'api.d.ts'), 'utf8')).toMatch(/export interface ConformanceReport/);
  });
});

describe('the git URL, installed into a fresh project', () => {
  let project: string;
  beforeAll(() => {
    project = freshDir('b2-mcp-git-consumer-');
    const { offline } = installInto(project, gitSource());
    if (!offline) console.warn('the npm cache lacked a dependency: installed with --prefer-offline');
  }, 300_000);
  afterAll(() => removeDir(project));

  it('was built by prepare, and both bins run', () => {
    expect(existsSync(join(project, 'node_modules', 'b2-mcp-conform', 'dist', 'src', 'index.d.ts'))).toBe(true);
    const help = runBin(project, 'b2-mcp', ['--help']);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/Usage: b2-mcp/);
    const check = runBin(project, 'b2-mcp-conform', ['check', '--profile', 'read-only', '--no-probes']);
    expect(check.status, check.stderr).toBe(0);
    expect(check.stdout).toMatch(/^PASS 0 errors/m);
  });
});
