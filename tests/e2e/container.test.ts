import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { PACKAGE_ROOT } from '../../src/contract/package-root.js';
import { JSON_HEADERS, modernMessage, postJson, rawRequest } from '../support/http-client.js';
import { testClock } from '../support/clock.js';

/**
 * Docker is not available where the suite runs: the Dockerfile and compose file are checked for
 * their structure, and the image's entry command is run as is from this checkout (laid out as the
 * image's /app: package.json, dist/, node_modules/).
 */

interface Instruction {
  keyword: string;
  args: string;
}

function instructions(text: string): Instruction[] {
  const logical = text
    .replace(/\\\r?\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  return logical.map((line) => {
    const [keyword, ...rest] = line.split(/\s+/);
    return { keyword: keyword!.toUpperCase(), args: rest.join(' ') };
  });
}

/** The instructions of each stage, by stage name. */
function stages(all: Instruction[]): Array<{ name: string; base: string; body: Instruction[] }> {
  const result: Array<{ name: string; base: string; body: Instruction[] }> = [];
  for (const instruction of all) {
    if (instruction.keyword === 'FROM') {
      const match = /^(\S+)\s+AS\s+(\S+)$/i.exec(instruction.args);
      expect(match, `FROM ${instruction.args} names its stage`).not.toBeNull();
      result.push({ base: match![1]!, name: match![2]!, body: [] });
    } else {
      result.at(-1)!.body.push(instruction);
    }
  }
  return result;
}

const execForm = (args: string): string[] => {
  const json = args.replace(/^(--\S+\s+)*CMD\s+/i, '');
  return JSON.parse(json) as string[];
};

const dockerfile = stages(instructions(readFileSync(join(PACKAGE_ROOT, 'Dockerfile'), 'utf8')));
const runtime = dockerfile.at(-1)!;
const only = (keyword: string) => runtime.body.filter((instruction) => instruction.keyword === keyword);
const runtimeEnv = Object.fromEntries(
  only('ENV').flatMap(({ args }) =>
    [...args.matchAll(/(\w+)=("[^"]*"|\S+)/g)].map((match) => [match[1]!, match[2]!.replace(/^"|"$/g, '')]),
  ),
);
const entry = execForm(only('CMD').at(-1)!.args);
const healthcheck = execForm(only('HEALTHCHECK').at(-1)!.args);
/** Names that carry secrets (B2_APPLICATION_KEY, B2_MASTER_KEY_ID, …): never baked into an image or compose file. */
const SECRET_NAME = /(^|_)(KEY|SECRET|TOKEN|PASSWORD)(_|$)/i;

describe('Dockerfile', () => {
  it('builds in one stage and runs from a clean one that copies only the build output', () => {
    expect(dockerfile.length).toBeGreaterThanOrEqual(2);
    const build = dockerfile[0]!;
    expect(build.body.some(({ keyword, args }) => keyword === 'RUN' && /npm run build/.test(args))).toBe(true);
    const copies = only('COPY').map(({ args }) => args);
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) expect(copy, copy).toMatch(new RegExp(`--from=${build.name}\\b`));
    expect(copies.map((copy) => copy.split(/\s+/).at(-2))).toEqual(['/app/package.json', '/app/node_modules', '/app/dist']);
    expect(only('RUN')).toEqual([]);
  });

  it('copies into the build stage every source the build needs, and nothing .dockerignore leaves out', () => {
    const ignored = readFileSync(join(PACKAGE_ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    expect(ignored).toEqual(expect.arrayContaining(['.git', 'node_modules', 'dist', '.env']));
    const copied = dockerfile[0]!.body.filter(({ keyword }) => keyword === 'COPY').flatMap(({ args }) => args.split(/\s+/).slice(0, -1));
    for (const source of copied) {
      expect(existsSync(join(PACKAGE_ROOT, source)), source).toBe(true);
      expect(ignored, source).not.toContain(source);
    }
    const tsconfig = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] };
    for (const glob of tsconfig.include) expect(copied, glob).toContain(glob.split('/')[0]);
  });

  it('runs as an unprivileged user with a health check, and bakes no secret in', () => {
    const user = only('USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(healthcheck[0]).toBe('node');
    for (const stage of dockerfile) {
      for (const { keyword, args } of stage.body.filter((instruction) => ['ENV', 'ARG'].includes(instruction.keyword))) {
        for (const [, name] of args.matchAll(/(\w+)=/g)) expect(name, `${keyword} ${name} in ${stage.name}`).not.toMatch(SECRET_NAME);
      }
    }
  });

  it('starts the b2-mcp bin over HTTP on the port it exposes', () => {
    const bin = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['b2-mcp'];
    expect(entry.slice(0, 3)).toEqual(['node', bin, 'http']);
    expect(only('EXPOSE').map(({ args }) => args)).toEqual([runtimeEnv.PORT]);
    expect(runtimeEnv.B2_MCP_TRANSPORT).toBe('http');
  });
});

describe('docker-compose.yml', () => {
  const compose = parseYaml(readFileSync(join(PACKAGE_ROOT, 'docker-compose.yml'), 'utf8')) as {
    services: Record<
      string,
      { build?: string; image?: string; read_only?: boolean; environment?: Record<string, string>; depends_on?: Record<string, unknown> }
    >;
  };

  it('runs the server read-only next to Redis, sharing limits through B2_MCP_REDIS_URL, with no secret in it', () => {
    const server = compose.services['b2-mcp']!;
    expect(server).toMatchObject({ build: '.', read_only: true, depends_on: { redis: expect.anything() } });
    expect(server.environment).toMatchObject({ B2_MCP_REDIS_URL: 'redis://redis:6379', B2_HTTP_CREDENTIAL_MODE: 'headers' });
    expect(Object.keys(server.environment!).filter((name) => SECRET_NAME.test(name))).toEqual([]);
    expect(compose.services.redis!.image).toMatch(/^redis:\d/);
  });
});

describe('the image entry command, run from this checkout', () => {
  let child: ChildProcess | undefined;
  afterAll(async () => {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  });

  const healthcheckExit = (port: number): number | null =>
    spawnSync(healthcheck[0] === 'node' ? process.execPath : healthcheck[0]!, healthcheck.slice(1), {
      env: { PORT: String(port) },
      timeout: 10_000,
    }).status;

  it('starts, answers MCP and health, and passes its own HEALTHCHECK (which fails with nothing listening)', async () => {
    // Only the listen address differs from the image: loopback here, and any free port.
    const args = entry.slice(1).map((arg, index, all) => (all[index - 1] === '--host' ? '127.0.0.1' : arg));
    child = spawn(process.execPath, [...testClock.nodeArgs, ...args], {
      cwd: PACKAGE_ROOT,
      env: {
        ...runtimeEnv,
        ...testClock.env,
        PORT: '0',
        PATH: process.env.PATH ?? '',
        HOME: '/nonexistent',
        B2_MCP_PROFILE: 'default',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const url = await new Promise<URL>((resolve, reject) => {
      let log = '';
      child!.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        const match = /"url":"(http:\/\/[^"]+)"/.exec(log);
        if (match) resolve(new URL(match[1]!));
      });
      child!.once('exit', (code) => reject(new Error(`exited with ${code}: ${log}`)));
    });
    const listed = await postJson(url, modernMessage('tools/list'), {
      ...JSON_HEADERS,
      'x-b2-mcp-key-id': 'tenant-id',
      'x-b2-mcp-key': 'tenant-secret',
    });
    expect([listed.status, (listed.json() as { result: { tools: unknown[] } }).result.tools.length]).toEqual([200, 37]);
    expect((await rawRequest(url, { method: 'GET', path: '/health' })).status).toBe(200);
    expect(healthcheckExit(Number(url.port))).toBe(0);
    expect(healthcheckExit(9)).toBe(1);
  });
});
