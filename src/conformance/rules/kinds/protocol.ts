import { deepEqual } from '../../diff.js';
import type { LiveSurface } from '../../snapshot.js';
import type { CheckKind, RawFinding, RuleContext } from '../types.js';

const CONNECTION = { enum: ['modern', 'legacy', 'witness'] };

function surfaceOf(context: RuleContext, connection: unknown): LiveSurface | undefined {
  return context.surfaces.find((surface) => surface.connection === connection);
}

/** Two connections (e.g. modern and legacy) list the same tools, byte for byte after normalization. */
const erasEqual: CheckKind = {
  params: { type: 'object', properties: { a: CONNECTION, b: CONNECTION }, required: ['a', 'b'] },
  needs: ['live'],
  run(params, context) {
    const a = surfaceOf(context, params.a);
    const b = surfaceOf(context, params.b);
    if (!a || !b || a.hash === b.hash) return [];
    const onlyA = a.names.filter((name) => !b.names.includes(name));
    const onlyB = b.names.filter((name) => !a.names.includes(name));
    const differing = a.tools.filter((tool) => {
      const other = b.tools.find((candidate) => candidate.name === tool.name);
      return other !== undefined && !deepEqual(tool, other);
    });
    const parts = [
      onlyA.length ? `only in ${a.connection}: ${onlyA.join(', ')}` : '',
      onlyB.length ? `only in ${b.connection}: ${onlyB.join(', ')}` : '',
      differing.length ? `defined differently: ${differing.map((tool) => tool.name).join(', ')}` : '',
    ].filter(Boolean);
    return [{ scope: `${a.connection}/${b.connection}`, data: { a: a.connection, b: b.connection, detail: parts.join('; ') } }];
  },
};

/** The modern era's cache hint (on `tools/list` or `server/discover`) is the contract's approved one. */
const cacheHintApproved: CheckKind = {
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
    const show = (value: { ttlMs: unknown; cacheScope: unknown } | null | undefined) => (value ? `ttlMs ${value.ttlMs}, cacheScope ${value.cacheScope}` : 'none');
    return [{ scope: 'modern', path: params.source === 'tools/list' ? 'modern.toolsListCacheHint' : 'modern.discover', data: { source: params.source, actual: show(hint), expected: show(approved) } }];
  },
};

/** `server/discover` offers the pinned revision and advertises the named capability as an object. */
const discoverShape: CheckKind = {
  params: { type: 'object', properties: { mustOffer: { type: 'string' }, capability: { type: 'string' } }, required: ['mustOffer', 'capability'] },
  needs: ['live'],
  run(params, context) {
    const modern = surfaceOf(context, 'modern');
    if (!modern) return [];
    const discover = modern.observation.discover;
    const out: RawFinding[] = [];
    if (!discover?.supportedVersions.includes(String(params.mustOffer))) {
      out.push({ scope: 'modern', path: 'modern.discover.supportedVersions', key: 'version', data: { problem: `does not list ${params.mustOffer}` } });
    }
    const capabilities = (discover?.capabilities ?? {}) as Record<string, unknown>;
    const capability = capabilities[String(params.capability)];
    if (capability === null || typeof capability !== 'object' || Array.isArray(capability)) {
      out.push({ scope: 'modern', path: `modern.discover.capabilities.${params.capability}`, key: 'capability', data: { problem: `has no "${params.capability}" capability object` } });
    }
    return out;
  },
};

/** Every connection learns a server name and version (serverInfo). */
const serverInfoPresent: CheckKind = {
  params: { type: 'object', properties: { fields: { type: 'array', items: { enum: ['name', 'version'] }, minItems: 1 } }, required: ['fields'] },
  needs: ['live'],
  run(params, context) {
    const out: RawFinding[] = [];
    for (const surface of context.surfaces) {
      const info = surface.observation.serverInfo as Record<string, unknown> | null;
      for (const field of params.fields as string[]) {
        const value = info?.[field];
        if (typeof value !== 'string' || value.trim() === '') out.push({ scope: surface.connection, path: `serverInfo.${field}`, key: field, data: { field } });
      }
    }
    return out;
  },
};

export const PROTOCOL_KINDS: Record<string, CheckKind> = {
  'eras-equal': erasEqual,
  'cache-hint-approved': cacheHintApproved,
  'discover-shape': discoverShape,
  'server-info-present': serverInfoPresent,
};
