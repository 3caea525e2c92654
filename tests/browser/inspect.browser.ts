import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { BUNDLED } from '../../src/conformance/package-root.js';
import { freePort } from '../../scripts/free-port.js';

const INSPECT = fileURLToPath(new URL('../../dist/scripts/inspect.js', import.meta.url));

test('npm run inspect: sandbox, bundled server and the Inspector on loopback, the URL printed; stopping it stops all', async () => {
  const [clientPort, serverPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [INSPECT], {
    env: { ...process.env, CLIENT_PORT: String(clientPort), SERVER_PORT: String(serverPort) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  // The UI is served once the Inspector says it is up, after the URL with the session token.
  const url = await new Promise<URL>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`inspect exited with ${code}: ${lines.join('\n')}`)));
    let found: URL | undefined;
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      const link = /(http:\/\/\S+MCP_PROXY_AUTH_TOKEN=\S+)/.exec(line)?.[1];
      if (link) found = new URL(link);
      if (found && /is up and running/.test(line)) resolve(found);
    });
  });
  try {
    expect(lines[0]).toMatch(/^sandbox: http:\/\/127\.0\.0\.1:\d+ \(demo data\); server: b2-mcp stdio, profile full$/);
    expect(url.port).toBe(String(clientPort));
    const token = url.searchParams.get('MCP_PROXY_AUTH_TOKEN')!;
    // The proxy knows the server command it was given: the bundled server, pointed at the sandbox.
    const config = await (
      await fetch(`http://127.0.0.1:${serverPort}/config`, { headers: { 'x-mcp-proxy-auth': `Bearer ${token}` } })
    ).json();
    expect(JSON.stringify(config)).toContain(BUNDLED.serverEntry);
    expect((await fetch(`http://127.0.0.1:${serverPort}/config`)).status).toBe(401);
    const page = await fetch(`http://127.0.0.1:${clientPort}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }
  await expect(fetch(`http://127.0.0.1:${serverPort}/health`)).rejects.toThrow();
}, 90_000);
