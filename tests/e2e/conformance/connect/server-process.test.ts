import { execFileSync, spawn } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PACKAGE_ROOT } from '../../../../src/conformance/package-root.js';
import { ChildStdioTransport } from '../../../../src/conformance/connect/stdio-transport.js';

/** The process group and session ids of a process, from /proc/<pid>/stat (fields 5 and 6). */
function groupAndSession(pid: number | 'self'): { group: number; session: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  return { group: Number(fields[2]), session: Number(fields[3]) };
}

/** A server that starts a long-lived process of its own, which keeps the server's stderr open, and says its pid. */
const SPAWNS_A_HELPER = `
const { spawn } = require('node:child_process');
const helper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: ['ignore', 'ignore', 'inherit'] });
process.stderr.write('helper ' + helper.pid + '\\n');
setInterval(() => {}, 1000);
`;

describe.skipIf(process.platform === 'win32')('a spawned server runs in a session of its own', () => {
  test('it has no share in the checker’s terminal session, and leads its own group', async () => {
    const transport = new ChildStdioTransport({ command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], env: {} });
    await transport.start();
    try {
      const child = groupAndSession(transport.pid!);
      expect(child).toEqual({ group: transport.pid, session: transport.pid });
      expect(child.session).not.toBe(groupAndSession('self').session);
    } finally {
      await transport.close();
    }
  });

  test('stopping it stops what it started too (the helper holding its stderr goes with it)', async () => {
    const transport = new ChildStdioTransport({ command: process.execPath, args: ['-e', SPAWNS_A_HELPER], env: {} });
    await transport.start();
    const stderr = transport.stderr!;
    let text = '';
    stderr.on('data', (chunk: string | Buffer) => void (text += String(chunk)));
    while (!/helper \d+\n/.test(text)) await once(stderr, 'data');
    const helper = Number(/helper (\d+)/.exec(text)![1]);
    expect(groupAndSession(helper).group).toBe(transport.pid);
    const ended = once(stderr, 'end');
    await transport.close();
    // The pipe ends only when every process holding it is gone: the helper too.
    await ended;
  });

  test('a signal that stops the checker stops a server that ignores its closed stdin too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'b2-conform-signal-'));
    try {
      // The server holds a FIFO open for writing: its reader sees the end when the server is gone.
      const fifo = join(dir, 'alive');
      execFileSync('mkfifo', [fifo]);
      const server = `require('node:fs').openSync(${JSON.stringify(fifo)}, 'w'); process.stdin.resume(); process.stdin.on('end', () => {}); setInterval(() => {}, 1000)`;
      const transport = join(PACKAGE_ROOT, 'dist', 'src', 'conformance', 'connect', 'stdio-transport.js');
      const checker = `import { ChildStdioTransport } from ${JSON.stringify(transport)};
        const t = new ChildStdioTransport({ command: process.execPath, args: ['-e', ${JSON.stringify(server)}], env: {} });
        await t.start(); setInterval(() => {}, 1000);`;
      const alive = createReadStream(fifo);
      const opened = once(alive, 'open');
      const gone = once(alive, 'end');
      alive.resume();
      const run = spawn(process.execPath, ['--input-type=module', '-e', checker], { stdio: ['ignore', 'ignore', 'inherit'] });
      await opened; // the server is up and holds the FIFO
      const exited = once(run, 'exit');
      run.kill('SIGINT');
      expect(await exited).toEqual([null, 'SIGINT']);
      await gone;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
