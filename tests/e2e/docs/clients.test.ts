/**
 * docs/clients.md is true: every JSON snippet parses, every server entry in it and every command
 * line in its shell blocks is started as written (the `b2-mcp` command is this build's bin; the
 * placeholders become a sandbox key; the documented port 3000 becomes a free one), and an MCP
 * client lists the tools through it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitCommandLine } from '../../../src/conformance/connect/target.js';
import type { RunningSandbox } from '../../../src/sandbox/index.js';
import { createKey, startTestSandbox, type SandboxKey } from '../../support/sandbox-harness.js';
import { SERVER_BIN, startHttpServer, type HttpServer } from '../../support/server-harness.js';
import { tempDir, removeTempDirs } from '../../support/checker-harness.js';

const DOC = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'clients.md'), 'utf8');
const DOCUMENTED_URL = 'http://127.0.0.1:3000/mcp';
const PLACEHOLDER = /^(<[a-zA-Z]+>|\$\{[A-Z0-9_]+\}|\$\{input:[a-z0-9-]+\})$/;

const blocks = (language: string) =>
  [...DOC.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((match) => match[1]!);

interface Entry {
  client: string;
  name: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  type?: string;
}

function heading(block: string): string {
  const before = DOC.slice(0, DOC.indexOf(block));
  return [...before.matchAll(/^## (.+)$/gm)].at(-1)![1]!;
}

const jsonEntries: Entry[] = blocks('json').flatMap((block) => {
  const parsed = JSON.parse(block) as {
    mcpServers?: Record<string, Omit<Entry, 'name' | 'client'>>;
    servers?: Record<string, Omit<Entry, 'name' | 'client'>>;
  };
  return Object.entries(parsed.mcpServers ?? parsed.servers ?? {}).map(([name, entry]) => ({ client: heading(block), name, ...entry }));
});

/** `claude mcp add …` and `npx @modelcontextprotocol/inspector …` lines as entries. */
const shellEntries: Entry[] = blocks('sh').flatMap((block) =>
  block
    .split('\n')
    .filter((line) => /^(claude mcp add|npx @modelcontextprotocol\/inspector) /.test(line))
    .map((line): Entry => {
      const words = splitCommandLine(line);
      const env: Record<string, string> = {};
      const flag = words[0] === 'claude' ? '--env' : '-e';
      words.forEach((word, index) => {
        if (word === flag) {
          const [key, value] = words[index + 1]!.split(/=(.*)/s);
          env[key!] = value!;
        }
      });
      if (words.includes('--transport')) return { client: heading(block), name: words.at(-2)!, url: words.at(-1)! };
      const separator = words.indexOf('--');
      const command =
        separator >= 0
          ? words.slice(separator + 1)
          : words.slice(
              words.lastIndexOf(
                words.find(
                  (word, index) => index > 1 && !word.startsWith('-') && !words[index - 1]!.startsWith('-') && !word.includes('='),
                )!,
              ),
            );
      return { client: heading(block), name: line.slice(0, 40), command: command[0]!, args: command.slice(1), env };
    }),
);

let sandbox: RunningSandbox;
let key: SandboxKey;
let http: HttpServer;

const credentialFor = (name: string): string => {
  if (name === 'B2_APPLICATION_KEY_ID') return key.applicationKeyId;
  if (name === 'B2_APPLICATION_KEY') return key.applicationKey;
  throw new Error(`no sandbox value for ${name}`);
};

beforeAll(async () => {
  sandbox = await startTestSandbox();
  key = await createKey(sandbox, { capabilities: ['listBuckets', 'listFiles', 'readFiles'] });
  const serverLine = blocks('sh')
    .flatMap((block) => block.split('\n'))
    .find((line) => / b2-mcp http /.test(line))!;
  const words = splitCommandLine(serverLine);
  const assignments = Object.fromEntries(
    words.filter((word) => /^[A-Z0-9_]+=/.test(word)).map((word) => word.split(/=(.*)/s) as [string, string]),
  );
  expect(words.slice(Object.keys(assignments).length)).toEqual(['b2-mcp', 'http', '--port', '3000']);
  expect(assignments.B2_HTTP_CREDENTIAL_MODE).toBe('server');
  const env = Object.fromEntries(
    Object.entries(assignments).map(([name, value]) => [name, PLACEHOLDER.test(value) ? credentialFor(name) : value]),
  );
  http = await startHttpServer({ PATH: process.env.PATH ?? '', HOME: tempDir(), B2_API_URL: sandbox.apiUrl, ...env });
});
afterAll(async () => {
  await http?.stop();
  await sandbox?.close();
  removeTempDirs();
});

async function listedTools(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<string[]> {
  const client = new Client({ name: 'docs-clients-test', version: '1' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

describe('docs/clients.md', () => {
  it('covers Claude Desktop, Claude Code, VS Code, Cursor and the MCP Inspector, stdio and HTTP', () => {
    const entries = [...jsonEntries, ...shellEntries];
    for (const client of ['Claude Desktop', 'Claude Code', 'VS Code', 'Cursor', 'MCP Inspector']) {
      expect(
        entries.some((entry) => entry.client === client && entry.command),
        `${client} stdio`,
      ).toBe(true);
    }
    for (const client of ['Claude Code', 'VS Code', 'Cursor'])
      expect(
        entries.some((entry) => entry.client === client && entry.url),
        `${client} http`,
      ).toBe(true);
    expect(DOC).toMatch(/MCP Inspector[\s\S]*Streamable\s+HTTP[\s\S]*http:\/\/127\.0\.0\.1:3000\/mcp/);
  });

  it.each(
    [...jsonEntries, ...shellEntries].filter((entry) => entry.command).map((entry) => [`${entry.client}: ${entry.name}`, entry] as const),
  )("%s starts and lists the key's tools", async (_label, entry) => {
    expect(entry.command).toBe('b2-mcp');
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(entry.env ?? {})) {
      expect(value, `${name} is a placeholder, never a value`).toMatch(PLACEHOLDER);
      env[name] = credentialFor(name);
    }
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SERVER_BIN, ...(entry.args ?? [])],
      env: { PATH: process.env.PATH ?? '', HOME: tempDir(), LOG_LEVEL: 'silent', B2_API_URL: sandbox.apiUrl, ...env },
      stderr: 'pipe',
    });
    const names = await listedTools(transport);
    expect(names).toContain('b2_list_buckets');
    expect(names).not.toContain('b2_delete_bucket');
  });

  it.each(
    [...jsonEntries, ...shellEntries].filter((entry) => entry.url).map((entry) => [`${entry.client}: ${entry.name}`, entry] as const),
  )('%s reaches the HTTP server', async (_label, entry) => {
    expect(entry.url).toBe(DOCUMENTED_URL);
    if (entry.type !== undefined) expect(entry.type).toBe('http');
    const names = await listedTools(new StreamableHTTPClientTransport(http.url));
    expect(names).toContain('b2_list_buckets');
  });
});
