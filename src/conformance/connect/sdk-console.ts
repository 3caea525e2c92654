import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The MCP SDK clients write to `console` with strings a server chose: the 2.x client warns, by
 * name, about each tool it drops for an invalid `x-mcp-header`, and logs to stdout in places.
 * Printed raw, such a line would reach the terminal or CI log past every report's escaping (a
 * forged verdict, workflow commands, escape codes) and a `console.log` would land inside a JSON
 * report on stdout. While the checker talks to a server, console output from inside that work is
 * dropped: what the checker judges comes from the wire, never from these lines. Console calls
 * from anywhere else (the host process of the programmatic API) pass through untouched.
 */
const talkingToServer = new AsyncLocalStorage<true>();

const METHODS = ['log', 'info', 'debug', 'warn', 'error', 'trace', 'dir'] as const;
let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  for (const method of METHODS) {
    const original = console[method].bind(console) as (...args: unknown[]) => void;
    console[method] = (...args: unknown[]) => {
      if (talkingToServer.getStore() !== true) original(...args);
    };
  }
}

/** Run `work` (which connects SDK clients to the server under test) with their console output kept off the console. */
export function withoutSdkConsole<T>(work: () => Promise<T>): Promise<T> {
  install();
  return talkingToServer.run(true, work);
}

/** A caller's own callback, run from inside such work: its console output is its own and passes. */
export function callerCallback<A extends unknown[]>(callback: (...args: A) => void): (...args: A) => void {
  return (...args) => talkingToServer.exit(() => callback(...args));
}
