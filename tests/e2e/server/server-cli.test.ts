import { spawn, spawnSync } from 'node:child_process';
import { packageVersion } from '../../../src/server/package-info.js';
import { describe, expect, it } from 'vitest';
import { SERVER_BIN, serverEnv } from '../../support/server-harness.js';

const PACKAGE_VERSION = packageVersion();

function run(args: string[], env: Record<string, string>) {
  const result = spawnSync(process.execPath, [SERVER_BIN, ...args], { env, encoding: 'utf8', input: '', timeout: 10_000 });
  return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}

describe('b2-mcp startup errors', () => {
  it.each([
    [{ B2_MCP_PROFILE: 'default', B2_MCP_OUTPUT_FORMAT: 'yaml' }, /B2_MCP_OUTPUT_FORMAT must be one of json, toon, auto \(got "yaml"\)/],
    [{ B2_MCP_PROFILE: 'default', B2_DESTRUCTIVE_POLICY: 'confrim' }, /B2_DESTRUCTIVE_POLICY must be one of confirm, block, allow/],
    [{ B2_MCP_PROFILE: 'everything' }, /B2_MCP_PROFILE must be one of full, default, read-only/],
    [{ B2_MCP_PROFILE: 'default', B2_APPLICATION_KEY_ID: 'K005abc' }, /B2_APPLICATION_KEY_ID and B2_APPLICATION_KEY must be set together/],
    [{}, /Set B2_APPLICATION_KEY_ID and B2_APPLICATION_KEY/],
    [
      { B2_MCP_PROFILE: 'default', B2_SECRET_SINK: 'inline', transport: 'http' },
      /B2_SECRET_SINK=inline over HTTP needs B2_ALLOW_INLINE_SECRETS=true/,
    ],
  ])('%o → one clear line, exit 1, no stack trace', (extra, message) => {
    const { transport = 'stdio', ...settings } = extra as Record<string, string>;
    const { B2_SECRET_SINK: _sink, ...env } = serverEnv(settings);
    const result = run(transport === 'http' ? ['http', '--port', '0'] : ['stdio'], {
      ...env,
      ...(settings.B2_SECRET_SINK && { B2_SECRET_SINK: settings.B2_SECRET_SINK }),
      LOG_LEVEL: 'info',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\bat .*\.js:\d+/);
    expect(result.stdout).toBe('');
  });

  it('never echoes a half credential pair secret', () => {
    const result = run(['stdio'], serverEnv({ B2_APPLICATION_KEY: 'K005canarySecretValue123' }));
    expect(result.status).toBe(1);
    expect(result.stderr).not.toContain('K005canarySecretValue123');
  });

  it.each([
    [['--bogus'], /unknown option '--bogus'/],
    [['http', '--port', 'eighty'], /--port must be a port number/],
    [['http', '--port', '70000'], /--port must be a port number/],
    [['nonsense'], /unknown command|too many arguments/],
  ])('%o is a usage error with exit 2', (args, message) => {
    const result = run(args, serverEnv({ B2_MCP_PROFILE: 'default' }));
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('prints help and version', () => {
    expect(run(['--help'], serverEnv()).stdout).toMatch(/Usage: b2-mcp/);
    expect(run(['--version'], serverEnv()).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('logs one server.started line on stderr: JSON with transport, profile and version, and no secret', async () => {
    const secret = 'K005startupCanarySecret99';
    const child = spawn(process.execPath, [SERVER_BIN, 'stdio'], {
      env: serverEnv({
        LOG_LEVEL: 'info',
        B2_MCP_PROFILE: 'read-only',
        B2_APPLICATION_KEY_ID: 'K005startupKeyId',
        B2_APPLICATION_KEY: secret,
      }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    const started = new Promise<string>((resolve) =>
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const line = stderr.split('\n').find((l) => l.includes('"server.started"'));
        if (line) resolve(line);
      }),
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const record = JSON.parse(await started) as Record<string, unknown>;
      expect(record).toMatchObject({
        level: 'info',
        event: 'server.started',
        transport: 'stdio',
        profile: 'read-only',
        version: PACKAGE_VERSION,
      });
      expect(stderr).not.toContain(secret);
      expect(stderr).not.toContain('K005startupKeyId');
    } finally {
      child.stdin.end();
      await exited;
    }
    expect(stderr.split('\n').filter((l) => l.includes('"server.started"'))).toHaveLength(1);
  });
});
