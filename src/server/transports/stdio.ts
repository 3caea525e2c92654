import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { ServerRuntime } from '../server.js';

/** Serves both protocol eras on stdin/stdout; the first message decides the connection's era. */
export async function serveOverStdio(runtime: ServerRuntime): Promise<{ close(): Promise<void> }> {
  const { factory } = await runtime.sessionFor();
  const handle = serveStdio(factory, {
    legacy: 'serve',
    onerror: (error) => runtime.logger.warn('stdio.error', { message: error.message }),
  });
  return handle;
}
