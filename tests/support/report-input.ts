/** Hand-made report input: findings shaped as the engine makes them, and evidence of a run that looked at nothing. */
import type { Evidence } from '../../src/conformance/report/evidence.js';
import { fingerprintOf, type Finding } from '../../src/conformance/rules/findings.js';
import type { RuleSet } from '../../src/conformance/rules/engine.js';

export function findingOf(
  rules: RuleSet,
  ruleId: string,
  tool: string,
  fields: Partial<Finding> & { message: string; scopes: string[]; profile: string },
): Finding {
  const rule = rules.byId.get(ruleId)!;
  const { profile, ...extra } = fields;
  return {
    ruleId,
    severity: rule.severity,
    category: rule.category,
    ...(rule.class ? { class: rule.class } : {}),
    fix: rule.fix,
    doc: rule.doc,
    tool,
    fingerprint: fingerprintOf({ ruleId, profile, tool, ...(extra.path ? { path: extra.path } : {}) }),
    ...extra,
  };
}

export function emptyEvidence(
  fields: Partial<Evidence> & Pick<Evidence, 'command' | 'versions' | 'profile' | 'rulesEvaluated' | 'durationMs'>,
): Evidence {
  return {
    target: null,
    connections: {},
    contractHash: null,
    hashes: {},
    cacheHints: null,
    config: { file: null, source: null, overrides: 0, applied: [], refused: [], suppressed: 0, stale: 0, expired: 0 },
    ...fields,
  };
}
