// An HTTP server with one hostile or mistaken endpoint per path, for the checker's --url errors:
//
//   /page/mcp           a web page (200 text/html), not an MCP endpoint
//   /missing/mcp        404, as a server whose MCP endpoint is elsewhere
//   /keys/mcp           401 as b2-mcp answers in `headers` credential mode without key headers
//   /echo-keys/mcp      401 whose body repeats the key headers it was sent
//   /endless-json/mcp   a JSON body that never ends
//   /endless-sse/mcp    an SSE event that never ends
//   /redirect/mcp       307 to /collect/mcp at another origin (localhost instead of 127.0.0.1)
//   /collect/mcp        records the headers of whatever reaches it; /seen/mcp answers them
//
// Prints "listening <port>" on stdout.
import { createServer } from 'node:http';

const MISSING_KEYS = 'Missing B2 credentials: send the x-b2-mcp-key-id and x-b2-mcp-key headers.';

/** Write `chunk` for as long as the client reads. */
function endless(res, prefix, chunk) {
  res.write(prefix);
  const more = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', more);
  };
  more();
}

/** The headers of every request that reached /collect/mcp. */
const collected = [];

const ROUTES = {
  redirect: (_req, res) => res.writeHead(307, { location: `http://localhost:${server.address().port}/collect/mcp` }).end(),
  collect: (req, res) => {
    collected.push(req.headers);
    res.writeHead(404).end();
  },
  seen: (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(collected)),
  page: (_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html><body><h1>Welcome</h1></body></html>'),
  missing: (_req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found'),
  keys: (_req, res) =>
    res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: MISSING_KEYS, code: 'missing_credentials' })),
  'echo-keys': (req, res) =>
    res
      .writeHead(401, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: `rejected key ${req.headers['x-b2-mcp-key-id']} / ${req.headers['x-b2-mcp-key']}` })),
  'endless-json': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    endless(res, '{"jsonrpc":"2.0","id":0,"result":{"padding":"', 'x'.repeat(64 * 1024));
  },
  'endless-sse': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    endless(res, 'event: message\ndata: {"jsonrpc":"2.0","id":0,"result":{"padding":"', 'x'.repeat(64 * 1024));
  },
};

const server = createServer((req, res) => {
  req.resume();
  res.on('error', () => {});
  const match = /^\/([^/]+)\/mcp$/.exec(new URL(req.url ?? '/', 'http://localhost').pathname);
  const route = match && ROUTES[match[1]];
  if (!route) {
    res.writeHead(404).end();
    return;
  }
  route(req, res);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
