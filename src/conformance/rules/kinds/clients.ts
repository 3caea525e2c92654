import { stable } from '../../../contract/normalize.js';
import { CONNECTIONS, ERA_OF, isJudged } from '../../connect/connections.js';
import type { LiveSurface } from '../../snapshot/snapshot.js';
import { capabilityNames, visibleTools } from '../../snapshot/manifest.js';
import type { CheckKind, RawFinding } from '../types.js';

/** Who a look presented as, for a reader: product, clientInfo, capabilities and protocol version. */
function presented(look: LiveSurface): string {
  const { identity, offeredVersion, client } = look.observation;
  const capabilities = capabilityNames(look);
  return `${identity.clientInfo.name}/${identity.clientInfo.version} (capabilities: ${capabilities.length ? capabilities.join(', ') : 'none'}; protocol ${offeredVersion}; ${client.package})`;
}

/** The capabilities one look declares and the other does not, for a reader: what made the surfaces differ, when they differ in capabilities. */
function capabilityDifference(a: LiveSurface, b: LiveSurface): string {
  const namesA = capabilityNames(a);
  const namesB = capabilityNames(b);
  const onlyA = namesA.filter((name) => !namesB.includes(name));
  const onlyB = namesB.filter((name) => !namesA.includes(name));
  const parts = [
    onlyA.length ? `only the first declares ${onlyA.join(', ')}` : '',
    onlyB.length ? `only the second declares ${onlyB.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length ? ` (client capabilities: ${parts.join('; ')})` : '';
}

/** The look each look is compared with: the reference, or with `same-capabilities`, the first look declaring the same capabilities (the reference first). */
function comparedWith(looks: readonly LiveSurface[], reference: LiveSurface, sameCapabilities: boolean): Map<LiveSurface, LiveSurface> {
  const pairs = new Map<LiveSurface, LiveSurface>();
  const firstOf = new Map<string, LiveSurface>();
  for (const look of [reference, ...looks.filter((look) => look !== reference)]) {
    const key = sameCapabilities ? capabilityNames(look).join('+') : '';
    const first = firstOf.get(key);
    if (first) pairs.set(look, first);
    else firstOf.set(key, look);
  }
  return pairs;
}

function differingKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.filter((key) => JSON.stringify(a[key]) !== JSON.stringify(b[key]));
}

/** How two looks differ in what a model sees: tools only one side lists, tools defined differently (and where), the instructions and the prompts. */
function surfaceDifference(
  a: LiveSurface,
  toolsA: () => Map<string, Record<string, unknown>>,
  b: LiveSurface,
  omit: ReadonlySet<string>,
  comparePrompts: boolean,
): { detail: string; tools: string[] } | undefined {
  // Tools listed byte for byte alike (the usual case) are alike in every key; only others are compared key by key.
  const sameTools = JSON.stringify(a.listed) === JSON.stringify(b.listed);
  const toolsB = sameTools ? undefined : visibleTools(b.listed, omit);
  const namesA = sameTools ? [] : [...toolsA().keys()];
  const onlyA = toolsB ? namesA.filter((name) => !toolsB.has(name)).sort() : [];
  const onlyB = toolsB ? [...toolsB.keys()].filter((name) => !toolsA().has(name)).sort() : [];
  const differing = toolsB
    ? namesA
        .filter((name) => toolsB.has(name))
        .sort()
        .map((name) => ({ name, keys: differingKeys(toolsA().get(name)!, toolsB.get(name)!) }))
        .filter(({ keys }) => keys.length > 0)
    : [];
  const instructions = a.observation.instructions !== b.observation.instructions;
  const prompts = comparePrompts && JSON.stringify(stable(a.prompts?.listed ?? null)) !== JSON.stringify(stable(b.prompts?.listed ?? null));
  if (!onlyA.length && !onlyB.length && !differing.length && !instructions && !prompts) return undefined;
  const parts = [
    onlyA.length ? `only the first sees ${onlyA.join(', ')}` : '',
    onlyB.length ? `only the second sees ${onlyB.join(', ')}` : '',
    differing.length ? `defined differently: ${differing.map(({ name, keys }) => `${name} (${keys.join(', ')})`).join('; ')}` : '',
    instructions ? 'the server instructions differ' : '',
    prompts ? `the prompts differ (${a.prompts?.names.join(', ') || 'none'} / ${b.prompts?.names.join(', ') || 'none'})` : '',
  ];
  return { detail: parts.filter(Boolean).join('; '), tools: [...onlyA, ...onlyB, ...differing.map(({ name }) => name)] };
}

const CONNECTION = { enum: [...CONNECTIONS] };

/**
 * Every look shows a model what the look it is compared with shows: the compared-only looks
 * (other protocol versions and clients) in full, and the judged ones in what their profile hash
 * leaves out (title, unknown keys, instructions; a difference in the hashed part, or in the
 * prompts, is the eras-equal kind's finding). `compare: "all"` compares every look with the
 * reference and names the capabilities that differ; `"same-capabilities"` compares only looks
 * that declare the same client capabilities (they differ in name, version, User-Agent or
 * protocol version), since a server may show a tool only to clients that can serve it.
 * Between looks of different eras, the keys one era's tool definition does not have are left out.
 */
const looksEqual: CheckKind<{ reference: string; eraSpecificKeys: string[]; compare: 'all' | 'same-capabilities' }> = {
  params: {
    type: 'object',
    properties: {
      reference: CONNECTION,
      eraSpecificKeys: { type: 'array', items: { type: 'string' } },
      compare: { enum: ['all', 'same-capabilities'] },
    },
    required: ['reference', 'eraSpecificKeys', 'compare'],
    additionalProperties: false,
  },
  needs: ['live'],
  run(params, context) {
    const looks = context.looks ?? [];
    const reference = looks.find((look) => look.connection === params.reference);
    if (!reference) return [];
    const out: RawFinding[] = [];
    // Each base look's tools, once per set of keys left out (same era, other era).
    const toolsCache = new Map<string, Map<string, Record<string, unknown>>>();
    for (const [look, base] of comparedWith(looks, reference, params.compare === 'same-capabilities')) {
      if (isJudged(look.connection) && isJudged(base.connection) && look.hash !== base.hash) continue;
      const sameEra = look.observation.era === base.observation.era;
      const omit = new Set(sameEra ? [] : params.eraSpecificKeys);
      const cacheKey = `${base.connection}/${sameEra}`;
      const toolsOfBase = () => {
        if (!toolsCache.has(cacheKey)) toolsCache.set(cacheKey, visibleTools(base.listed, omit));
        return toolsCache.get(cacheKey)!;
      };
      // Between judged looks, prompts are the eras-equal kind's (it compares them in full).
      const difference = surfaceDifference(base, toolsOfBase, look, omit, !isJudged(look.connection) || !isJudged(base.connection));
      if (!difference) continue;
      out.push({
        scope: `${base.connection}/${look.connection}`,
        key: look.connection,
        data: {
          a: presented(base),
          b: presented(look),
          detail: `${difference.detail}${capabilityDifference(base, look)}`,
          tools: difference.tools.join(', ') || 'none',
        },
      });
    }
    return out;
  },
};

/** A protocol version the snapshot recorded the server accepting that it no longer accepts. */
const versionsAsSnapshot: CheckKind = {
  params: { type: 'object', properties: {}, additionalProperties: false },
  needs: ['live', 'snapshot'],
  run(_params, context) {
    const accepted = context.snapshot?.protocolVersions?.accepted;
    if (!accepted || !context.looks) return [];
    const acceptedNow = new Set(
      context.looks
        .filter(({ observation }) => observation.protocolVersion === observation.offeredVersion)
        .map(({ observation }) => observation.offeredVersion),
    );
    return accepted
      .filter((version) => !acceptedNow.has(version))
      .map((version) => {
        const refusal = (context.refused ?? []).find((candidate) => candidate.offeredVersion === version);
        return {
          scope: refusal?.connection ?? version,
          key: version,
          data: { version, reason: refusal?.reason ?? 'no connection offered it' },
        };
      });
  },
};

/** A judged connection whose era the server did not offer: it answered, but not in a protocol version of that era. */
const erasRefused: CheckKind = {
  params: { type: 'object', properties: {}, additionalProperties: false },
  needs: ['live'],
  run(_params, context) {
    return (context.refused ?? [])
      .filter((refusal) => isJudged(refusal.connection) && refusal.chosenVersion === undefined)
      .map((refusal) => ({
        scope: refusal.connection,
        key: refusal.connection,
        data: { era: ERA_OF[refusal.connection], version: refusal.offeredVersion, reason: refusal.reason },
      }));
  },
};

/** Each look whose protocol version the server did not take (a compared-only look refused, or any look answered in another version), as a note: servers may speak only some protocol versions. */
const looksRefused: CheckKind = {
  params: { type: 'object', properties: {}, additionalProperties: false },
  needs: ['live'],
  run(_params, context) {
    // Held to a snapshot, the versions it recorded as not accepted are known: only a new refusal is noted.
    const known = new Set(context.snapshot?.protocolVersions?.notAccepted.map(({ version }) => version) ?? []);
    const noted = (context.refused ?? []).filter(
      (refusal) => (!isJudged(refusal.connection) || refusal.chosenVersion !== undefined) && !known.has(refusal.offeredVersion),
    );
    return noted.map((refusal) => ({
      scope: refusal.connection,
      key: refusal.connection,
      data: { version: refusal.offeredVersion, client: `${refusal.identity.name}/${refusal.identity.version}`, reason: refusal.reason },
    }));
  },
};

export const CLIENT_KINDS: Record<string, CheckKind> = {
  'looks-equal': looksEqual,
  'looks-refused': looksRefused,
  'versions-as-snapshot': versionsAsSnapshot,
  'eras-refused': erasRefused,
};
