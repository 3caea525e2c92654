import { MODERN_PROTOCOL_VERSION } from '../src/contract/constants.js';

/** A modern-era (`2026-07-28`) JSON-RPC request with the per-request `_meta` envelope. */
export function modernRequest(method: string, id = 1): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
}
