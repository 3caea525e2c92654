import { compareCodeUnits } from '../../../contract/normalize.js';
import type { PolicyInUse } from '../../diff/naming-policy.js';
import type { CheckKind, RawFinding, RuleContext } from '../types.js';
import { compileRegex, judgedSurfaces, listedTools } from './traverse.js';

/** Names that match `when` (all names when absent) must match `pattern`. */
const namePattern: CheckKind<{ pattern: string; when?: string; flags?: string }> = {
  params: {
    type: 'object',
    properties: { pattern: { type: 'string' }, when: { type: 'string' }, flags: { type: 'string' } },
    required: ['pattern'],
  },
  needs: ['live'],
  run(params, context) {
    const pattern = compileRegex(params.pattern, params.flags);
    const when = params.when === undefined ? null : compileRegex(params.when, params.flags);
    const out: RawFinding[] = [];
    for (const { tool, scope } of listedTools(context)) {
      if (when && !when.test(tool.name)) continue;
      if (!pattern.test(tool.name)) out.push({ tool: tool.name, scope, data: { pattern: params.pattern } });
    }
    return out;
  },
};

function policyOf(context: RuleContext): PolicyInUse {
  return context.naming!;
}

function prefixesOf(policy: PolicyInUse): string[] {
  return [...new Set(Object.values(policy.policy.prefixes))].sort();
}

/** Every name starts with a prefix the naming policy assigns to some backing category. */
const policyPrefix: CheckKind = {
  params: { type: 'object', properties: {} },
  needs: ['live', 'naming'],
  run(_params, context) {
    const prefixes = prefixesOf(policyOf(context));
    return [...listedTools(context)]
      .filter(({ tool }) => !prefixes.some((prefix) => tool.name.startsWith(prefix)))
      .map(({ tool, scope }) => ({ tool: tool.name, scope, data: { allowed: prefixes.join(' or ') } }));
  },
};

/** The word after the prefix is one of the policy's verbs, unless the name is grandfathered. */
const policyVerb: CheckKind = {
  params: { type: 'object', properties: {} },
  needs: ['live', 'naming'],
  run(_params, context) {
    const naming = policyOf(context);
    const verbs = new Set(naming.policy.verbs);
    const out: RawFinding[] = [];
    for (const { tool, scope } of listedTools(context)) {
      if (naming.grandfathered.has(tool.name)) continue;
      const segment = tool.name.split('_')[1] ?? '';
      if (!verbs.has(segment)) out.push({ tool: tool.name, scope, data: { segment, allowed: [...verbs].join(', ') } });
    }
    return out;
  },
};

/** Names that match the policy's presign `when` match its presign `pattern`. */
const policyPresignForm: CheckKind = {
  params: { type: 'object', properties: {} },
  needs: ['live', 'naming'],
  run(_params, context) {
    const naming = policyOf(context);
    const { presign } = naming.policy;
    const when = compileRegex(presign.when);
    const pattern = compileRegex(presign.pattern);
    // A former name the contract in use still lists predates the form, like a grandfathered one.
    const adopted = new Set(naming.adopted);
    return [...listedTools(context)]
      .filter(({ tool }) => !adopted.has(tool.name) && when.test(tool.name) && !pattern.test(tool.name))
      .map(({ tool, scope }) => ({ tool: tool.name, scope, data: { pattern: presign.pattern } }));
  },
};

/** No listed name is one the policy retired by a rename. */
const policyRemovedName: CheckKind = {
  params: { type: 'object', properties: {} },
  needs: ['live', 'naming'],
  run(_params, context) {
    const { removed } = policyOf(context);
    return [...listedTools(context)]
      .filter(({ tool }) => removed.has(tool.name))
      .map(({ tool, scope }) => ({ tool: tool.name, scope, data: { successor: removed.get(tool.name) } }));
  },
};

/** One note when the contract in use publishes no naming policy and the bundled one applies. */
const policyFallback: CheckKind = {
  params: { type: 'object', properties: {} },
  needs: ['live', 'naming'],
  run(_params, context) {
    const naming = policyOf(context);
    if (naming.source !== 'fallback') return [];
    return [{ data: { adopted: naming.adopted.length ? naming.adopted.join(', ') : 'none' } }];
  },
};

const namesUnique: CheckKind = {
  params: { type: 'object', properties: {} },
  needs: ['live'],
  run(_params, context) {
    const out: RawFinding[] = [];
    for (const { surface, scope } of judgedSurfaces(context)) {
      const seen = new Map<string, number>();
      for (const tool of surface.listed) seen.set(tool.name, (seen.get(tool.name) ?? 0) + 1);
      for (const [name, count] of seen) {
        if (count > 1) out.push({ tool: name, scope, data: { count } });
      }
    }
    return out;
  },
};

/** `tools/list` order must be code-point order of the names. */
const namesSorted: CheckKind = {
  params: { type: 'object', properties: {} },
  needs: ['live'],
  run(_params, context) {
    const out: RawFinding[] = [];
    for (const { surface, scope } of judgedSurfaces(context)) {
      const names = surface.listed.map((tool) => tool.name);
      const index = names.findIndex((name, i) => i > 0 && compareCodeUnits(names[i - 1]!, name) > 0);
      if (index > 0) out.push({ tool: names[index], scope, data: { previous: names[index - 1] } });
    }
    return out;
  },
};

/** A tool with a known prefix carries the one the policy assigns to its backing category (from the contract). */
const prefixMatchesBacking: CheckKind = {
  params: { type: 'object', properties: {} },
  needs: ['live', 'contract', 'naming'],
  run(_params, context) {
    const { prefixes } = policyOf(context).policy;
    const known = Object.values(prefixes);
    const backing = context.contract?.toolBacking ?? {};
    const out: RawFinding[] = [];
    for (const { tool, scope } of listedTools(context)) {
      if (!known.some((prefix) => tool.name.startsWith(prefix))) continue; // an unknown prefix is the prefix rule's finding
      const category = Object.hasOwn(backing, tool.name) ? (backing as Record<string, string>)[tool.name] : undefined;
      const prefix = category === undefined ? undefined : prefixes[category];
      if (prefix !== undefined && !tool.name.startsWith(prefix)) out.push({ tool: tool.name, scope, data: { category, prefix } });
    }
    return out;
  },
};

export const NAME_KINDS: Record<string, CheckKind> = {
  'name-pattern': namePattern,
  'policy-prefix': policyPrefix,
  'policy-verb': policyVerb,
  'policy-presign-form': policyPresignForm,
  'policy-removed-name': policyRemovedName,
  'policy-fallback': policyFallback,
  'names-unique': namesUnique,
  'names-sorted': namesSorted,
  'prefix-matches-backing': prefixMatchesBacking,
};
