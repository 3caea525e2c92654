import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { MODERN_PROTOCOL_VERSION, type Era } from '../../src/contract/constants.js';
import type { ModernBlock } from '../../src/contract/fixture.js';
import type { ListedTool } from '../../src/contract/normalize.js';

export interface Collected {
  protocolVersion: string;
  tools: ListedTool[];
  /** The server instructions: from `initialize` (legacy) or `server/discover` (modern). */
  instructions: string | null;
  /** The capabilities the server declared. */
  serverCapabilities: Record<string, unknown> | null;
  modern?: ModernBlock;
}

/** `tools/list` from a live HTTP endpoint through the official client, pinned to one era. */
export async function collectTools(url: URL, era: Era): Promise<Collected> {
  const client = new Client(
    { name: 'b2-mcp-contract-generator', version: '1' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(url));
  try {
    const listed = await client.listTools(undefined, { cacheMode: 'refresh' });
    const instructions = client.getInstructions() ?? null;
    const serverCapabilities = (client.getServerCapabilities() as Record<string, unknown> | undefined) ?? null;
    if (era === 'legacy')
      return {
        protocolVersion: client.getNegotiatedProtocolVersion?.() ?? '',
        tools: listed.tools as ListedTool[],
        instructions,
        serverCapabilities,
      };
    const discover = client.getDiscoverResult();
    const hint = listed as { ttlMs?: number; cacheScope?: string };
    return {
      protocolVersion: MODERN_PROTOCOL_VERSION,
      tools: listed.tools as ListedTool[],
      instructions,
      serverCapabilities,
      modern: {
        toolsListCacheHint: hint.ttlMs === undefined ? null : { ttlMs: hint.ttlMs, cacheScope: hint.cacheScope ?? '' },
        discover: discover
          ? {
              supportedVersions: discover.supportedVersions,
              capabilities: discover.capabilities,
              ttlMs: (discover as { ttlMs?: number }).ttlMs ?? null,
              cacheScope: (discover as { cacheScope?: string }).cacheScope ?? null,
            }
          : null,
      },
    };
  } finally {
    await client.close();
  }
}
