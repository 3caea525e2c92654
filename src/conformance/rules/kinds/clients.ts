import { stable } from '../../../contract/normalize.js';
import { CONNECTIONS, isJudged } from '../../connections.js';
import type { LiveSurface } from '../../snapshot.js';
import type { CheckKind, RawFinding } from '../types.js';

/** Who a look presented as, for a reader: product, clientInfo, capabilities and protocol version. */
function presented(look: LiveSurface): string {
  const { identity, offeredVersion, client } = look.observation;
  const capabilities = Object.keys(identity.capabilities).sort();
  return `${identity.clientInfo.name}/${identity.clientInfo.version} (capabilities: ${capabilities.length ? capabilities.join(', ') : 'none'}; protocol ${offeredVersion}; ${client.package})`;
}

/** Everything of a tool a model sees, keyed by name: the listed object with every key but `omit`, in a stable form. */
function visibleTools(look: LiveSurface, omit: ReadonlySet<string>): Map<string, Record<string, unknown>> {
  return new Map(look.listed.map((tool) => [tool.name, stable(Object.fromEntries(Object.entries(tool).filter(([key]) => !omit.has(key)))) as Record<string, unknown>]));
}

function differingKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.filter((key) => JSON.stringify(a[key]) !== JSON.stringify(b[key]));
}

/** How two looks differ in what a model sees: tools only one side lists, tools defined differently (and where), the instructions and the prompts. */
function surfaceDifference(a: LiveSurface, toolsA: () => Map<string, Record<string, unknown>>, b: LiveSurface, omit: ReadonlySet<string>, comparePrompts: boolean): { detail: string; tools: string[] } | undefined {
  // Tools listed byte for byte alike (the usual case) are alike in every key; only others are compared key by key.
  const sameTools = JSON.stringify(a.listed) === JSON.stringify(b.listed);
  const toolsB = sameTools ? undefined : visibleTools(b, omit);
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
 * Every look shows a model what the reference look shows: the compared-only looks (other protocol
 * versions and clients) in full, and the judged ones in what their profile hash leaves out (title,
 * unknown keys, instructions; a difference in the hashed part, or in the prompts, is the eras-equal
 * kind's finding).
 * Between looks of different eras, the keys one era's tool definition does not have are left out.
 */
const looksEqual: CheckKind = {
  params: {
    type: 'object',
    properties: { reference: CONNECTION, eraSpecificKeys: { type: 'array', items: { type: 'string' } } },
    required: ['reference', 'eraSpecificKeys'],
    additionalProperties: false,
  },
  needs: ['live'],
  run(params, context) {
    const looks = context.looks ?? [];
    const reference = looks.find((look) => look.connection === params.reference);
    if (!reference) return [];
    const out: RawFinding[] = [];
    // The reference's tools, once per set of keys left out (same era, other era).
    const referenceTools = new Map<boolean, Map<string, Record<string, unknown>>>();
    for (const look of looks) {
      if (look === reference || (isJudged(look.connection) && look.hash !== reference.hash)) continue;
      const sameEra = look.observation.era === reference.observation.era;
      const omit = new Set(sameEra ? [] : (params.eraSpecificKeys as string[]));
      const toolsOfReference = () => {
        if (!referenceTools.has(sameEra)) referenceTools.set(sameEra, visibleTools(reference, omit));
        return referenceTools.get(sameEra)!;
      };
      // Between judged looks, prompts are the eras-equal kind's (it compares them in full).
      const difference = surfaceDifference(reference, toolsOfReference, look, omit, !isJudged(look.connection));
      if (!difference) continue;
      out.push({
        scope: `${reference.connection}/${look.connection}`,
        key: look.connection,
        data: { a: presented(reference), b: presented(look), detail: difference.detail, tools: difference.tools.join(', ') || 'none' },
      });
    }
    return out;
  },
};

/** Each compared-only look the server turned down, as a note: servers may speak only some protocol versions. */
const looksRefused: CheckKind = {
  params: { type: 'object', properties: {}, additionalProperties: false },
  needs: ['live'],
  run(_params, context) {
    return (context.refused ?? []).map((refusal) => ({
      scope: refusal.connection,
      key: refusal.connection,
      data: { version: refusal.offeredVersion, client: `${refusal.identity.name}/${refusal.identity.version}`, reason: refusal.reason },
    }));
  },
};

export const CLIENT_KINDS: Record<string, CheckKind> = {
  'looks-equal': looksEqual,
  'looks-refused': looksRefused,
};
