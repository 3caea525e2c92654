// A server over raw newline-delimited JSON-RPC on stdio (no SDK) whose protocol versions and
// capability-gated tools are data, for the tests of protocol versions and client capabilities.
//
//   node versioned-server.mjs <surface.json>
//
// surface: { versions: [...], tools: [...], gated?: { <tool name>: <capability> },
// hiddenAt?: { <protocol version>: [tool names] } }. `initialize` is answered with the version
// asked for when it is in `versions`, else with the first of them (the client then decides);
// `server/discover`, the modern era's entry point, is an unknown method. A tool in `gated` is
// listed only to clients that declared that capability; one in `hiddenAt` is not listed on a
// session of that version.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const surface = JSON.parse(readFileSync(process.argv[2], 'utf8'));
let declared = {};
let version;

function send(message) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
}

function answer({ method, params }) {
  if (method === 'initialize') {
    declared = params?.capabilities ?? {};
    version = surface.versions.includes(params?.protocolVersion) ? params.protocolVersion : surface.versions[0];
    return {
      protocolVersion: version,
      capabilities: { tools: {} },
      serverInfo: { name: 'versioned', version: '1.0.0' },
    };
  }
  if (method === 'ping') return {};
  if (method === 'tools/list') {
    const hidden = surface.hiddenAt?.[version] ?? [];
    return {
      tools: surface.tools.filter(
        (tool) => (!surface.gated?.[tool.name] || surface.gated[tool.name] in declared) && !hidden.includes(tool.name),
      ),
    };
  }
  return undefined;
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const request = JSON.parse(line);
  if (request.id === undefined || request.method === undefined) return; // a notification, or an answer to nothing we asked
  const result = answer(request);
  send(
    result === undefined
      ? { id: request.id, error: { code: -32601, message: `method not found: ${request.method}` } }
      : { id: request.id, result },
  );
});
