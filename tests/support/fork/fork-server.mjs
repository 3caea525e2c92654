// The project's test fork: our bundled b2-mcp behind a stdio proxy that serves a changed
// tools/list (edits.json: four renames back to their former names, reworded descriptions,
// loosened bounds, and edits that only respell a schema). Calls to a renamed tool reach the
// original. Start with the bundled server's environment (B2_MCP_PROFILE and friends).
//
//   node fork-server.mjs
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const edits = JSON.parse(readFileSync(new URL('./edits.json', import.meta.url), 'utf8'));
const serverEntry = fileURLToPath(new URL('../../../dist/bin/b2-mcp.js', import.meta.url));
const originalOf = Object.fromEntries(Object.entries(edits.renames).map(([original, renamed]) => [renamed, original]));

function setAt(schema, path, value) {
  const parent = path.slice(0, -1).reduce((node, key) => node[key], schema);
  parent[path[path.length - 1]] = value;
}

function editTool(tool) {
  const original = tool.name;
  if (edits.descriptions[original] !== undefined) tool.description = edits.descriptions[original];
  for (const edit of [...edits.loosened, ...edits.equivalent]) {
    if (edit.tool === original) setAt(tool.inputSchema, edit.path, structuredClone(edit.value));
  }
  if (edits.renames[original]) tool.name = edits.renames[original];
  return tool;
}

const child = spawn(process.execPath, [serverEntry, 'stdio'], { stdio: ['pipe', 'pipe', 'inherit'], env: process.env });
child.on('exit', (code) => process.exit(code ?? 1));

createInterface({ input: child.stdout }).on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    process.stdout.write(`${line}\n`);
    return;
  }
  if (Array.isArray(message?.result?.tools)) {
    message.result.tools = message.result.tools.map(editTool).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  process.stdout.write(`${JSON.stringify(message)}\n`);
});

createInterface({ input: process.stdin })
  .on('line', (line) => {
    try {
      const message = JSON.parse(line);
      if (message?.method === 'tools/call' && originalOf[message.params?.name]) {
        message.params.name = originalOf[message.params.name];
        child.stdin.write(`${JSON.stringify(message)}\n`);
        return;
      }
    } catch {
      // Not JSON: the server answers it.
    }
    child.stdin.write(`${line}\n`);
  })
  .on('close', () => child.stdin.end());
