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
 * body is cancelled unread, so the caller can still answer 413.
 */
export async function readBodyWithin(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(request.headers.get('content-length') ?? undefined);
  if (Number.isFinite(declared) && declared > limit) {
    await request.body?.cancel().catch(() => undefined);
    throw new BodyTooLargeError(limit);
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > limit) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLargeError(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, received);
}

/**
 * A Node request's body as a Web stream, read as fast as it is consumed. A connection closed
 * before the body ended is an error, not a body; cancelling discards the rest unread (not
 * destroyed), so an answer (a 413) can still be written. Its listeners go once it settles.
 */
export function nodeBodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let settle: (finish?: () => void) => void = () => undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const onData = (chunk: Buffer): void => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) req.pause();
      };
      const onEnd = (): void => settle(() => controller.close());
      const onError = (error: Error): void => settle(() => controller.error(error));
      const onClose = (): void => settle(() => controller.error(new Error('client closed the connection before the body ended')));
      settle = (finish) => {
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        req.off('close', onClose);
        settle = () => undefined;
        finish?.();
      };
      req.on('data', onData);
      req.once('end', onEnd);
      req.once('error', onError);
      req.once('close', onClose);
    },
    pull: () => void req.resume(),
    cancel: () => {
      settle();
      req.resume();
    },
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
