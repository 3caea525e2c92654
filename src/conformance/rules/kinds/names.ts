import { compareCodePoints } from '../../../contract/normalize.js';
import type { CheckKind, RawFinding } from '../types.js';
import { compileRegex, judgedSurfaces, listedTools } from './traverse.js';

/** Names that match `when` (all names when absent) must match `pattern`. */
const namePattern: CheckKind = {
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
      if (!pattern.test(tool.name)) out.push({ tool: tool.name, scope, data: { pattern: String(params.pattern) } });
    }
    return out;
  },
};

const nameDenylist: CheckKind = {
  params: {
    type: 'object',
    properties: { names: { type: 'array', items: { type: 'string' }, minItems: 1 } },
    required: ['names'],
  },
  needs: ['live'],
  run(params, context) {
    const denied = new Set(params.names as string[]);
    return [...listedTools(context)].filter(({ tool }) => denied.has(tool.name)).map(({ tool, scope }) => ({ tool: tool.name, scope }));
  },
};

/** The `segment`-th `_`-separated part of the name must be in `allow`; `exempt` names are skipped. */
const nameSegmentAllowlist: CheckKind = {
  params: {
    type: 'object',
    properties: {
      segment: { type: 'integer', minimum: 0 },
      allow: { type: 'array', items: { type: 'string' }, minItems: 1 },
      exempt: { type: 'array', items: { type: 'string' } },
      when: { type: 'string' },
    },
    required: ['segment', 'allow'],
  },
  needs: ['live'],
  run(params, context) {
    const allow = new Set(params.allow as string[]);
    const exempt = new Set((params.exempt as string[] | undefined) ?? []);
    const when = params.when === undefined ? null : compileRegex(params.when);
    const out: RawFinding[] = [];
    for (const { tool, scope } of listedTools(context)) {
      if (exempt.has(tool.name) || (when && !when.test(tool.name))) continue;
      const segment = tool.name.split('_')[params.segment as number] ?? '';
      if (!allow.has(segment)) out.push({ tool: tool.name, scope, data: { segment, allowed: [...allow].join(', ') } });
    }
    return out;
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
      const index = names.findIndex((name, i) => i > 0 && compareCodePoints(names[i - 1]!, name) > 0);
      if (index > 0) out.push({ tool: names[index], scope, data: { previous: names[index - 1] } });
    }
    return out;
  },
};

/** A tool with a known prefix must carry the one its backing category (from the contract) prescribes. */
const prefixMatchesBacking: CheckKind = {
  params: {
    type: 'object',
    properties: { prefixes: { type: 'object', additionalProperties: { type: 'string' }, minProperties: 1 } },
    required: ['prefixes'],
  },
  needs: ['live', 'contract'],
  run(params, context) {
    const prefixes = params.prefixes as Record<string, string>;
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
  'name-denylist': nameDenylist,
  'name-segment-allowlist': nameSegmentAllowlist,
  'names-unique': namesUnique,
  'names-sorted': namesSorted,
  'prefix-matches-backing': prefixMatchesBacking,
};
