import { prefixCounts } from '../../../contract/fixture.js';
import type { CheckKind, RawFinding, RuleContext } from '../types.js';
import { judgedSurfaces } from './traverse.js';

function contractProfile(context: RuleContext) {
  return context.contract?.profiles[context.profile as keyof typeof context.contract.profiles];
}

function liveGroups(names: readonly string[], groupBy: string, context: RuleContext): Record<string, number> {
  if (groupBy === 'prefix') {
    const { total: _total, ...byPrefix } = prefixCounts(names);
    return byPrefix;
  }
  const backing = (context.contract?.toolBacking ?? {}) as Record<string, string>;
  const out: Record<string, number> = {};
  for (const name of names) {
    const category = Object.hasOwn(backing, name) ? backing[name]! : 'unmapped';
    out[category] = (out[category] ?? 0) + 1;
  }
  return out;
}

/** Tool counts per prefix (or per backing category) equal the contract's counts for the profile. */
const countsEqualContract: CheckKind<{ groupBy: 'prefix' | 'backing' }> = {
  params: { type: 'object', properties: { groupBy: { enum: ['prefix', 'backing'] } }, required: ['groupBy'] },
  needs: ['live', 'contract'],
  run(params, context) {
    const profile = contractProfile(context);
    const counts = params.groupBy === 'prefix' ? profile?.counts : profile?.backingCounts;
    // A contract that predates backing categories has no counts to hold a server to (the evidence notes it).
    if (!counts || (params.groupBy === 'backing' && !context.contract?.toolBacking)) return [];
    const expected: Record<string, number> = { ...counts };
    delete expected.total;
    const out: RawFinding[] = [];
    for (const { surface, scope } of judgedSurfaces(context)) {
      const actual = liveGroups(surface.names, params.groupBy, context);
      for (const group of [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort()) {
        if ((expected[group] ?? 0) !== (actual[group] ?? 0)) {
          out.push({ scope, key: group, data: { group, expected: expected[group] ?? 0, actual: actual[group] ?? 0 } });
        }
      }
    }
    return out;
  },
};

/** The live profile hash equals the contract's frozen hash for the profile. */
const hashEqualContract: CheckKind = {
  params: { type: 'object', properties: {} },
  needs: ['live', 'contract'],
  run(_params, context) {
    const profile = contractProfile(context);
    if (!profile) return [];
    return judgedSurfaces(context)
      .filter(({ surface }) => surface.hash !== profile.hash)
      .map(({ surface, scope }) => ({ scope, data: { expected: profile.hash.slice(0, 12), actual: surface.hash.slice(0, 12) } }));
  },
};

export const CONTRACT_KINDS: Record<string, CheckKind> = {
  'counts-equal-contract': countsEqualContract,
  'hash-equal-contract': hashEqualContract,
};
