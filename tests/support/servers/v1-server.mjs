// A 2025-era-only server on the 1.x SDK (as most deployed forks still are), serving a surface
// file over stdio: it answers `initialize`, and `server/discover` with "method not found".
//
//   node v1-server.mjs <surface.json>
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const surface = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const server = new Server(surface.serverInfo ?? { name: 'v1-fork', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: surface.tools }));
await server.connect(new StdioServerTransport());
