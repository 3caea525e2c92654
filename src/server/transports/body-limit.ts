import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`Request body exceeds ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * Reads the whole request body, refusing it as soon as it is known to exceed `limit`:
 * up front from `Content-Length`, else while the chunks stream in. On refusal the rest of the
 * body is discarded unread (not destroyed), so the caller can still answer 413 on the socket.
 */
export function readBodyWithin(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(new BodyTooLargeError(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer): void => {
      received += chunk.byteLength;
      if (received <= limit) {
        chunks.push(chunk);
        return;
      }
      cleanup();
      req.resume();
      reject(new BodyTooLargeError(limit));
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, received));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClosed);
    };
    const onClosed = (): void => onError(new Error('client closed the connection before the body ended'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClosed);
  });
}

/** How long a refused upload may keep sending before its connection is closed. */
const LINGER_MS = 2_000;

/**
 * Makes the `Connection: close` after a refusal a lingering close: the socket is half-closed once
 * the answer is written, and whatever the client is still uploading is read and discarded for a
 * moment. Closing outright would reset the connection while the client is sending, and many
 * clients then report the reset instead of the 413.
 */
export function lingerOnClose(req: IncomingMessage): void {
  const socket = req.socket;
  socket.destroySoon = () => {
    socket.end();
    socket.resume();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}
