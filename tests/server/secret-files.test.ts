import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, withSecretFiles } from '../../src/server/config.js';

const dir = mkdtempSync(join(tmpdir(), 'b2-mcp-secret-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function secretFile(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('*_FILE secrets', () => {
  it('reads each declared secret from its file, dropping one trailing newline only', () => {
    const env = withSecretFiles({
      B2_APPLICATION_KEY_ID_FILE: secretFile('id', 'key-id-from-file\n'),
      B2_APPLICATION_KEY_FILE: secretFile('key', 'key-from-file\r\n'),
      B2_MASTER_KEY_ID_FILE: secretFile('master-id', 'master-id\n\n'),
      B2_MASTER_KEY_FILE: secretFile('master', 'master-key'),
      B2_MCP_REDIS_URL_FILE: secretFile('redis', 'redis://:pw@127.0.0.1:6379\n'),
      B2_OAUTH_INTROSPECTION_CLIENT_ID_FILE: secretFile('client-id', 'client\n'),
      B2_OAUTH_INTROSPECTION_CLIENT_SECRET_FILE: secretFile('client-secret', 'client-secret\n'),
      B2_PRINCIPAL_CREDENTIAL_MAP_FILE: secretFile('map', '{"alice":"a"}\n'),
      B2_CREDENTIAL_A_APPLICATION_KEY_ID_FILE: secretFile('a-id', 'a-id\n'),
      B2_CREDENTIAL_A_APPLICATION_KEY_FILE: secretFile('a-key', 'a-key\n'),
      B2_LOG_FILE: '/var/log/b2-mcp.log',
      B2_SECRET_SINK_FILE: '/var/lib/b2-mcp/secrets.jsonl',
    });
    expect(env).toEqual({
      B2_APPLICATION_KEY_ID: 'key-id-from-file',
      B2_APPLICATION_KEY: 'key-from-file',
      B2_MASTER_KEY_ID: 'master-id\n',
      B2_MASTER_KEY: 'master-key',
      B2_MCP_REDIS_URL: 'redis://:pw@127.0.0.1:6379',
      B2_OAUTH_INTROSPECTION_CLIENT_ID: 'client',
      B2_OAUTH_INTROSPECTION_CLIENT_SECRET: 'client-secret',
      B2_PRINCIPAL_CREDENTIAL_MAP: '{"alice":"a"}',
      B2_CREDENTIAL_A_APPLICATION_KEY_ID: 'a-id',
      B2_CREDENTIAL_A_APPLICATION_KEY: 'a-key',
      // Paths, not secrets: left as they are.
      B2_LOG_FILE: '/var/log/b2-mcp.log',
      B2_SECRET_SINK_FILE: '/var/lib/b2-mcp/secrets.jsonl',
    });
    expect(loadConfig(env, 'stdio').credentials).toMatchObject({ applicationKeyId: 'key-id-from-file', applicationKey: 'key-from-file' });
  });

  it('refuses a variable set both ways, naming neither value', () => {
    const path = secretFile('both', 'file-secret-value\n');
    const attempt = () => withSecretFiles({ B2_APPLICATION_KEY: 'env-secret-value', B2_APPLICATION_KEY_FILE: path });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow('Set B2_APPLICATION_KEY or B2_APPLICATION_KEY_FILE, not both.');
    expect(() => withSecretFiles({ B2_CREDENTIAL_T_APPLICATION_KEY: 'x', B2_CREDENTIAL_T_APPLICATION_KEY_FILE: path })).toThrow(
      'Set B2_CREDENTIAL_T_APPLICATION_KEY or B2_CREDENTIAL_T_APPLICATION_KEY_FILE, not both.',
    );
  });

  it('refuses a file that cannot be read, with its path and the reason', () => {
    const missing = join(dir, 'missing');
    expect(() => withSecretFiles({ B2_MASTER_KEY_FILE: missing })).toThrow(
      `B2_MASTER_KEY_FILE names a file that cannot be read (${missing}: ENOENT).`,
    );
    expect(() => withSecretFiles({ B2_APPLICATION_KEY_FILE: dir })).toThrow(
      `B2_APPLICATION_KEY_FILE names a file that cannot be read (${dir}: EISDIR).`,
    );
  });

  it('leaves an empty *_FILE and undeclared names alone', () => {
    expect(withSecretFiles({ B2_APPLICATION_KEY_FILE: ' ', B2_REGION_FILE: '/etc/passwd' })).toEqual({
      B2_APPLICATION_KEY_FILE: ' ',
      B2_REGION_FILE: '/etc/passwd',
    });
  });
});
