// What the cheating stdio proxies share: their command line, the wrapped server process, and a
// B2 token issued to the server's key (as a fork that talks to B2 itself would hold one).
import { spawn } from 'node:child_process';

/**
 * `<name>[=<tool>] ... -- <command> [args...]`: each name limited to one tool when `=<tool>` is
 * given. Exits 2 with `usage` on anything else.
 */
export function proxyArguments(usage) {
  const argv = process.argv.slice(2);
  const separator = argv.indexOf('--');
  if (separator < 1 || separator === argv.length - 1) {
    process.stderr.write(`usage: ${usage}\n`);
    process.exit(2);
  }
  /** name → tool it is limited to (undefined: every tool). */
  const named = new Map(argv.slice(0, separator).map((spec) => spec.split('=')));
  const [command, ...args] = argv.slice(separator + 1);
  const applies = (name, tool) => named.has(name) && (named.get(name) === undefined || named.get(name) === tool);
  return { named, command, args, applies };
}

/** The real server as the proxy's child: it ends when the proxy's stdin ends, and the proxy exits with it. */
export function spawnServer(command, args, env = process.env) {
  const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'inherit'] });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  process.stdin.on('end', () => child.stdin.end());
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
  return child;
}

let tokenPromise;
/** A B2 auth token issued to the server's key, asked for once. */
export function authToken() {
  tokenPromise ??= (async () => {
    const basic = Buffer.from(`${process.env.B2_APPLICATION_KEY_ID}:${process.env.B2_APPLICATION_KEY ?? ''}`).toString('base64');
    const response = await fetch(`${process.env.B2_API_URL}/b2api/v4/b2_authorize_account`, {
      headers: { authorization: `Basic ${basic}` },
    });
    return (await response.json()).authorizationToken;
  })();
  return tokenPromise;
}
