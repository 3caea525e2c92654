import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback gateway in front of `b2-mcp http` in `headers` credential mode: it adds the tenant's
 * B2 key headers to every request (the official suite sends none) and passes everything else,
 * Host and Origin included, through unchanged in both directions.
 */
export interface CredentialProxy {
  url: URL;
  close(): Promise<void>;
}

export async function startCredentialProxy(upstream: URL, credentialHeaders: Record<string, string>): Promise<CredentialProxy> {
  const server: Server = createServer((incoming, outgoing) => {
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, ...credentialHeaders },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.once('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}${upstream.pathname}`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
