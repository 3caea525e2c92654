// A stdio proxy that rewrites a correct server's responses, for the breakages the SDK refuses
// to produce (duplicate tool names, a discover result without a tools capability).
//
//   node rewrite-proxy.mjs <rewrites.json> <command> [args...]
//
// rewrites.json: [{ "method": "tools/list", "path": "tools", "duplicate": 0 }
//                 | { "method": "server/discover", "path": "capabilities.tools", "delete": true }
//                 | { "method": ..., "path": ..., "set": <value> }]
// `path` is dotted, relative to the response's `result`.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [rewritesFile, command, ...args] = process.argv.slice(2);
const rewrites = JSON.parse(readFileSync(rewritesFile, 'utf8'));
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const methodById = new Map();

createInterface({ input: process.stdin }).on('line', (line) => {
  try {
    const message = JSON.parse(line);
    if (message.id !== undefined && message.method) methodById.set(message.id, message.method);
  } catch {}
  child.stdin.write(`${line}\n`);
});
process.stdin.on('end', () => child.stdin.end());

function apply(result, rewrite) {
  const keys = rewrite.path.split('.');
  const last = keys.pop();
  const parent = keys.reduce((node, key) => node?.[key], result);
  if (!parent) return;
  if (rewrite.delete) delete parent[last];
  else if ('set' in rewrite) parent[last] = rewrite.set;
  else if ('duplicate' in rewrite) parent[last].splice(rewrite.duplicate + 1, 0, structuredClone(parent[last][rewrite.duplicate]));
}

createInterface({ input: child.stdout }).on('line', (line) => {
  let out = line;
  try {
    const message = JSON.parse(line);
    const method = methodById.get(message.id);
    const matching = rewrites.filter((rewrite) => rewrite.method === method);
    if (message.result && matching.length > 0) {
      for (const rewrite of matching) apply(message.result, rewrite);
      out = JSON.stringify(message);
    }
  } catch {}
  process.stdout.write(`${out}\n`);
});
child.on('exit', (code) => process.exit(code ?? 1));
