// A tiny MCP server on the official SDK whose whole tool surface is data, so each
// broken variant a conformance test needs is one JSON mutation of a correct baseline.
//
//   node surface-server.mjs stdio <surface.json>
//   node surface-server.mjs http <variants.json>   (serves every variant at /<name>/mcp;
//                                                   prints "listening <port>" on stdout)
//
// A surface: { serverInfo, instructions?, cacheHints, tools, legacyTools?, witnessTools?, prompts?,
// legacyPrompts?, witnessPrompts? }. `cacheHints` goes to McpServer as is (keys 'tools/list',
// 'server/discover'). `legacyTools` replaces the tool list for 2025-era connections;
// `witnessTools` replaces it for HTTP requests with the User-Agent of the client the 1.x witness
// presents as (Claude Code); `olderTools` (`olderPrompts`) replaces it for HTTP requests at a
// protocol version before 2025-11-25 (the looks at older versions); `refusedVersions` lists protocol versions
// whose HTTP `initialize` is answered with an error (2026-07-28: `server/discover` is an unknown method); the
// prompt lists likewise. A prompt is { name, title?, description?, argsSchema? } (JSON Schema of
// its string arguments); with no prompt to serve, the prompts capability is not advertised.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { McpServer, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';

// The SDK warns on the console about every tool name outside its naming standard; the test
// surfaces use such names on purpose, and the warnings would bury the test log.
console.warn = () => {};

function buildServer(surface, { tools, prompts }) {
  const options = {
    ...(surface.cacheHints ? { cacheHints: surface.cacheHints } : {}),
    ...(surface.instructions ? { instructions: surface.instructions } : {}),
  };
  const server = new McpServer(surface.serverInfo ?? { name: 'surface-test', version: '1.0.0' }, options);
  for (const tool of tools) {
    const config = { inputSchema: fromJsonSchema(tool.inputSchema ?? { type: 'object', properties: {} }) };
    if (tool.description !== undefined) config.description = tool.description;
    if (tool.title !== undefined) config.title = tool.title;
    if (tool.outputSchema !== undefined) config.outputSchema = fromJsonSchema(tool.outputSchema);
    if (tool.annotations !== undefined) config.annotations = tool.annotations;
    if (tool._meta !== undefined) config._meta = tool._meta;
    server.registerTool(tool.name, config, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
  }
  for (const prompt of prompts) {
    const config = {};
    if (prompt.title !== undefined) config.title = prompt.title;
    if (prompt.description !== undefined) config.description = prompt.description;
    if (prompt.argsSchema !== undefined) config.argsSchema = fromJsonSchema(prompt.argsSchema);
    server.registerPrompt(prompt.name, config, async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'ok' } }] }));
  }
  return server;
}

const OLDER_VERSIONS = new Set(['2025-06-18', '2025-03-26', '2024-11-05']);

/** The tools and prompts one connection gets: the witness's, else an older version's, else the era's, else the surface's own. */
function listingsFor(surface, ctx, witness) {
  const legacy = ctx.era === 'legacy';
  const older = OLDER_VERSIONS.has(ctx.requestInfo?.headers.get('mcp-protocol-version') ?? '');
  return {
    tools: (witness && surface.witnessTools) || (older && surface.olderTools) || (legacy && surface.legacyTools) || surface.tools,
    prompts:
      (witness && surface.witnessPrompts) || (older && surface.olderPrompts) || (legacy && surface.legacyPrompts) || surface.prompts || [],
  };
}

function applyRewrites(message, rewrites) {
  const result = message?.result;
  if (!result) return message;
  for (const rewrite of rewrites) {
    if (!(rewrite.resultKey in result)) continue;
    const keys = rewrite.path.split('.');
    const last = keys.pop();
    const parent = keys.reduce((node, key) => node?.[key], result);
    if (!parent) continue;
    if (rewrite.delete) delete parent[last];
    else if ('set' in rewrite) parent[last] = rewrite.set;
    else if ('duplicate' in rewrite) parent[last].splice(rewrite.duplicate + 1, 0, structuredClone(parent[last][rewrite.duplicate]));
  }
  return message;
}

/** Buffer a response (plain JSON or SSE `data:` lines), rewrite its JSON-RPC results, send it. */
function rewritingResponse(res, rewrites) {
  const chunks = [];
  const end = res.end.bind(res);
  const writeHead = res.writeHead.bind(res);
  res.writeHead = (status, ...rest) => {
    res.statusCode = status;
    const headers = rest.find((item) => item && typeof item === 'object');
    const entries = Array.isArray(headers) ? headers : Object.entries(headers ?? {});
    for (const [key, value] of entries) if (key.toLowerCase() !== 'content-length') res.setHeader(key, value);
    return res;
  };
  res.write = (chunk) => {
    chunks.push(Buffer.from(chunk));
    return true;
  };
  res.end = (chunk, ...rest) => {
    if (chunk && typeof chunk !== 'function') chunks.push(Buffer.from(chunk));
    const body = Buffer.concat(chunks).toString('utf8');
    const rewritten = body.trimStart().startsWith('{')
      ? JSON.stringify(applyRewrites(JSON.parse(body), rewrites))
      : body.replace(/^data: (.*)$/gm, (_line, data) => `data: ${JSON.stringify(applyRewrites(JSON.parse(data), rewrites))}`);
    res.removeHeader('content-length');
    writeHead(res.statusCode);
    return end(rewritten, ...rest.filter((item) => typeof item === 'function'));
  };
}

function factoryFor(surface, witness) {
  return (ctx) => buildServer(surface, listingsFor(surface, ctx, witness));
}

const [mode, file] = process.argv.slice(2);
const data = JSON.parse(readFileSync(file, 'utf8'));

if (mode === 'stdio') {
  serveStdio(factoryFor(data, false));
} else if (mode === 'http') {
  const handlers = new Map();
  for (const [name, surface] of Object.entries(data)) {
    handlers.set(name, {
      surface,
      main: toNodeHandler(createMcpHandler(factoryFor(surface, false))),
      witness: toNodeHandler(createMcpHandler(factoryFor(surface, true))),
    });
  }
  const server = createServer((req, res) => {
    const match = /^\/([^/]+)\/mcp$/.exec(new URL(req.url ?? '/', 'http://localhost').pathname);
    const entry = match && handlers.get(match[1]);
    if (!entry) {
      res.writeHead(404).end();
      return;
    }
    const witness = /^claude-code\//.test(req.headers['user-agent'] ?? '');
    if (entry.surface.rewrites) rewritingResponse(res, entry.surface.rewrites);
    const handler = witness ? entry.witness : entry.main;
    if (!entry.surface.refusedVersions || req.method !== 'POST') {
      void handler(req, res);
      return;
    }
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const refusedModern = body.method === 'server/discover' && entry.surface.refusedVersions.includes('2026-07-28');
      if (refusedModern) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'Method not found' } }));
        return;
      }
      if (body.method === 'initialize' && entry.surface.refusedVersions.includes(body.params?.protocolVersion)) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: -32602, message: 'Unsupported protocol version' } }));
        return;
      }
      void handler(req, res, body);
    });
  });
  // Idle connections outlive the client's keep-alive: on a loaded machine a socket the server
  // closes at its 5 s default can be picked for the next request and fail with "other side closed".
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`listening ${server.address().port}\n`);
  });
} else {
  process.stderr.write('usage: surface-server.mjs stdio|http <file>\n');
  process.exit(2);
}
