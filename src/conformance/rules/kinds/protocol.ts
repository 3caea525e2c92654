import { ToolSchema } from '@modelcontextprotocol/core';
import { ToolSchema as WitnessToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { deepEqual, joinPath } from '../../diff/schema.js';
import type { ConnectionId } from '../../connect/connections.js';
import type { LiveSurface } from '../../snapshot/snapshot.js';
import type { CheckKind, RawFinding, RuleContext } from '../types.js';
import { listedTools } from './traverse.js';

const COMPARED_CONNECTIONS = ['modern', 'legacy', 'witness'] as const;
const CONNECTION = { enum: [...COMPARED_CONNECTIONS] };

function surfaceOf(context: RuleContext, connection: ConnectionId): LiveSurface | undefined {
  return context.surfaces.find((surface) => surface.connection === connection);
}

/** What two listings differ in: names only one side has, and names both have but define differently. */
function listingDifference(
  a: { connection: string; names: readonly string[] },
  b: { connection: string; names: readonly string[] },
  differing: readonly string[],
): string {
  const onlyA = a.names.filter((name) => !b.names.includes(name));
  const onlyB = b.names.filter((name) => !a.names.includes(name));
  return [
    onlyA.length ? `only in ${a.connection}: ${onlyA.join(', ')}` : '',
    onlyB.length ? `only in ${b.connection}: ${onlyB.join(', ')}` : '',
    differing.length ? `defined differently: ${differing.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

function toolsDifference(a: LiveSurface, b: LiveSurface): string | undefined {
  if (a.hash === b.hash) return undefined;
  const differing = a.tools.filter((tool) => {
    const other = b.tools.find((candidate) => candidate.name === tool.name);
    return other !== undefined && !deepEqual(tool, other);
  });
  return listingDifference(
    a,
    b,
    differing.map((tool) => tool.name),
  );
}

/** Prompts are compared as listed; a connection whose server does not advertise them has none to compare. */
function promptsDifference(a: LiveSurface, b: LiveSurface): string | undefined {
  if (!a.prompts && !b.prompts) return undefined;
  if (!a.prompts || !b.prompts) {
    const [listing, silent] = a.prompts ? [a, b] : [b, a];
    return `${listing.connection} lists ${listing.prompts!.names.length} prompts, ${silent.connection} does not advertise prompts`;
  }
  if (a.prompts.hash === b.prompts.hash) return undefined;
  const differing = a.prompts.views.filter((view) => {
    const other = b.prompts!.views.find((candidate) => candidate.name === view.name);
    return other !== undefined && !deepEqual(view, other);
  });
  return listingDifference(
    { connection: a.connection, names: a.prompts.names },
    { connection: b.connection, names: b.prompts.names },
    differing.map((view) => view.name),
  );
}

/** Two connections (e.g. modern and legacy) list the same tools (or prompts), byte for byte after normalization. */
const erasEqual: CheckKind<{
  a: (typeof COMPARED_CONNECTIONS)[number];
  b: (typeof COMPARED_CONNECTIONS)[number];
  of: 'tools' | 'prompts';
}> = {
  params: { type: 'object', properties: { a: CONNECTION, b: CONNECTION, of: { enum: ['tools', 'prompts'] } }, required: ['a', 'b', 'of'] },
  needs: ['live'],
  run(params, context) {
    const a = surfaceOf(context, params.a);
    const b = surfaceOf(context, params.b);
    if (!a || !b) return [];
    const detail = params.of === 'prompts' ? promptsDifference(a, b) : toolsDifference(a, b);
    return detail === undefined ? [] : [{ scope: `${a.connection}/${b.connection}`, data: { a: a.connection, b: b.connection, detail } }];
  },
};

/** The modern era's cache hint (on `tools/list` or `server/discover`) is the contract's approved one. */
const cacheHintApproved: CheckKind<{ source: 'tools/list' | 'server/discover' }> = {
  params: { type: 'object', properties: { source: { enum: ['tools/list', 'server/discover'] } }, required: ['source'] },
  needs: ['live', 'contract'],
  run(params, context) {
    const modern = surfaceOf(context, 'modern');
    const approved = context.contract?.approvedCacheHint;
    if (!modern || !approved) return [];
    const observation = modern.observation;
    const hint =
      params.source === 'tools/list'
        ? observation.toolsListCacheHint
        : observation.discover && { ttlMs: observation.discover.ttlMs, cacheScope: observation.discover.cacheScope };
    if (hint && hint.ttlMs === approved.ttlMs && hint.cacheScope === approved.cacheScope) return [];
    const show = (value: { ttlMs: unknown; cacheScope: unknown } | null | undefined) =>
      value ? `ttlMs ${value.ttlMs}, cacheScope ${value.cacheScope}` : 'none';
    return [
      {
        scope: 'modern',
        path: params.source === 'tools/list' ? 'modern.toolsListCacheHint' : 'modern.discover',
        data: { source: params.source, actual: show(hint), expected: show(approved) },
      },
    ];
  },
};

/** `server/discover` offers the pinned revision and advertises the named capability as an object. */
const discoverShape: CheckKind<{ mustOffer: string; capability: string }> = {
  params: {
    type: 'object',
    properties: { mustOffer: { type: 'string' }, capability: { type: 'string' } },
    required: ['mustOffer', 'capability'],
  },
  needs: ['live'],
  run(params, context) {
    const modern = surfaceOf(context, 'modern');
    if (!modern) return [];
    const discover = modern.observation.discover;
    const out: RawFinding[] = [];
    if (!discover?.supportedVersions.includes(params.mustOffer)) {
      out.push({
        scope: 'modern',
        path: 'modern.discover.supportedVersions',
        key: 'version',
        data: { problem: `does not list ${params.mustOffer}` },
      });
    }
    const capabilities = (discover?.capabilities ?? {}) as Record<string, unknown>;
    const capability = capabilities[params.capability];
    if (capability === null || typeof capability !== 'object' || Array.isArray(capability)) {
      out.push({
        scope: 'modern',
        path: `modern.discover.capabilities.${params.capability}`,
        key: 'capability',
        data: { problem: `has no "${params.capability}" capability object` },
      });
    }
    return out;
  },
};

/** Every connection learns a server name and version (serverInfo). */
const serverInfoPresent: CheckKind<{ fields: ('name' | 'version')[] }> = {
  params: {
    type: 'object',
    properties: { fields: { type: 'array', items: { enum: ['name', 'version'] }, minItems: 1 } },
    required: ['fields'],
  },
  needs: ['live'],
  run(params, context) {
    const out: RawFinding[] = [];
    for (const surface of context.surfaces) {
      const info = surface.observation.serverInfo as Record<string, unknown> | null;
      for (const field of params.fields) {
        const value = info?.[field];
        if (typeof value !== 'string' || value.trim() === '')
          out.push({ scope: surface.connection, path: `serverInfo.${field}`, key: field, data: { field } });
      }
    }
    return out;
  },
};

/** The SDK clients' own definitions of a tool: what each accepts in a tools/list answer. */
const SDK_TOOL_SCHEMAS = [
  { client: 'the 2.x SDK client (@modelcontextprotocol/client)', schema: ToolSchema },
  { client: 'the 1.x SDK client (@modelcontextprotocol/sdk)', schema: WitnessToolSchema },
] as const;

/**
 * Every listed tool, as it came over the wire, is one the SDK clients accept. A client that
 * rejects one tool rejects the whole tools/list answer, so its users see no tools at all; the
 * checker reads the answer itself and judges it, instead of failing the connection.
 */
const sdkAcceptsTools: CheckKind = {
  params: { type: 'object', properties: {}, additionalProperties: false },
  needs: ['live'],
  run(_params, context) {
    const out: RawFinding[] = [];
    for (const { tool, scope } of listedTools(context)) {
      const rejecting = SDK_TOOL_SCHEMAS.map(({ client, schema }) => ({ client, result: schema.safeParse(tool) })).filter(
        ({ result }) => !result.success,
      );
      const issue = rejecting[0]?.result.error?.issues[0];
      if (!issue) continue;
      const path = issue.path.reduce<string>((base, key) => joinPath(base, typeof key === 'number' ? key : String(key)), '');
      out.push({
        tool: typeof tool.name === 'string' ? tool.name : '(no name)',
        path,
        scope,
        data: { clients: rejecting.map(({ client }) => client).join(' and '), problem: `${path || 'the tool'}: ${issue.message}` },
      });
    }
    return out;
  },
};

export const PROTOCOL_KINDS: Record<string, CheckKind> = {
  'sdk-accepts-tools': sdkAcceptsTools,
  'eras-equal': erasEqual,
  'cache-hint-approved': cacheHintApproved,
  'discover-shape': discoverShape,
  'server-info-present': serverInfoPresent,
};
