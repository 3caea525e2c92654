import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createServerFactory, type ServerRuntime } from '../server.js';

/** Serves both protocol eras on stdin/stdout; the first message decides the connection's era. */
export function serveOverStdio(runtime: ServerRuntime): { close(): Promise<void> } {
  const handle = serveStdio(createServerFactory(runtime), {
    legacy: 'serve',
    onerror: (error) => runtime.logger.warn('stdio.error', { message: error.message }),
  });
  return handle;
}
