import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { ServerRuntime } from '../server.js';
import { AnsweringStdioTransport } from './stdio-framing.js';

/** Serves both protocol eras on stdin/stdout; the first message decides the connection's era. */
export async function serveOverStdio(runtime: ServerRuntime): Promise<{ close(): Promise<void> }> {
  const { factory } = await runtime.sessionFor();
  // Malformed frames get a JSON-RPC error instead of silence (see stdio-framing.ts).
  const transport = new AnsweringStdioTransport();
  transport.onreject = (rejection) => runtime.logger.warn('stdio.invalid_frame', { code: rejection.code, reason: rejection.reason });
  const handle = serveStdio(factory, {
    legacy: 'serve',
    transport,
    onerror: (error) => runtime.logger.warn('stdio.error', { message: error.message }),
  });
  return handle;
}
