import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * An independent reader of a server's tools: plain JSON-RPC over stdio, no SDK. It offers the
 * newest 2025-era protocol version with every client capability (answering the server's requests
 * as a user who shares nothing and declines), lists every page of tools and stops the server.
 */
export interface ServerLaunch {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
}

export async function rawListTools(launch: ServerLaunch, timeoutMs = 30_000): Promise<Record<string, unknown>[]> {
  const child = spawn(launch.command, launch.args, {
    cwd: launch.cwd,
    env: { ...process.env, ...launch.env },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const pending = new Map<number, { resolve: (result: Record<string, unknown>) => void; reject: (error: Error) => void }>();
  const exited = new Promise<never>((_resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => reject(new Error(`server exited (${signal ?? code}) before answering`)));
  });
  exited.catch(() => {});
  const send = (message: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  createInterface({ input: child.stdout }).on('line', (line) => {
    let message: { id?: number | string; method?: string; result?: Record<string, unknown>; error?: { message: string } };
    try {
      message = JSON.parse(line);
    } catch {
      return; // a log line on stdout is the checker's business, not this reader's
    }
    if (message.method && message.id !== undefined) {
      const result =
        message.method === 'roots/list'
          ? { result: { roots: [] } }
          : message.method === 'elicitation/create'
            ? { result: { action: 'decline' } }
            : { error: { code: -32601, message: 'declined' } };
      send({ id: message.id, ...result });
      return;
    }
    const waiter = typeof message.id === 'number' ? pending.get(message.id) : undefined;
    if (!waiter) return;
    pending.delete(message.id as number);
    if (message.error) waiter.reject(new Error(message.error.message));
    else waiter.resolve(message.result ?? {});
  });
  let nextId = 1;
  const request = (method: string, params: Record<string, unknown>) =>
    Promise.race([
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        send({ id, method, params });
      }),
      exited,
    ]);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    await request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } },
      clientInfo: { name: 'raw-reader', version: '1.0.0' },
    });
    send({ method: 'notifications/initialized' });
    const tools: Record<string, unknown>[] = [];
    let cursor: unknown;
    do {
      const page = await request('tools/list', cursor === undefined ? {} : { cursor });
      tools.push(...((page.tools as Record<string, unknown>[]) ?? []));
      cursor = page.nextCursor;
    } while (typeof cursor === 'string');
    return tools;
  } finally {
    clearTimeout(timer);
    child.kill('SIGTERM');
  }
}

/** One difference between two listings: a tool added or removed, or one top-level field of a tool that changed. */
export interface RawDifference {
  tool: string;
  field: string | 'added' | 'removed';
}

export function rawDifferences(before: readonly Record<string, unknown>[], after: readonly Record<string, unknown>[]): RawDifference[] {
  const byName = (tools: readonly Record<string, unknown>[]) => new Map(tools.map((tool) => [String(tool.name), tool]));
  const a = byName(before);
  const b = byName(after);
  const out: RawDifference[] = [];
  for (const name of a.keys()) if (!b.has(name)) out.push({ tool: name, field: 'removed' });
  for (const [name, tool] of b) {
    const old = a.get(name);
    if (!old) {
      out.push({ tool: name, field: 'added' });
      continue;
    }
    for (const field of [...new Set([...Object.keys(old), ...Object.keys(tool)])].sort()) {
      if (canonical(old[field]) !== canonical(tool[field])) out.push({ tool: name, field });
    }
  }
  return out;
}

/** JSON with object keys sorted, so key order is no difference. */
function canonical(value: unknown): string {
  return (
    JSON.stringify(value, (_key, inner: unknown) =>
      inner && typeof inner === 'object' && !Array.isArray(inner)
        ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
        : inner,
    ) ?? 'undefined'
  );
}
