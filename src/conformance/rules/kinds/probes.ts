import { PROBE_ASPECTS } from '../../probes/aspects.js';
import type { CheckKind, RawFinding } from '../types.js';

/**
 * The parameters of a kind that judges observations: which of the aspects its observations may
 * have (`gate.declined`, `scenario.golden`, …) it reports; naming any other fails rule validation.
 */
export function aspectsParams(known: readonly string[]): CheckKind['params'] {
  return {
    type: 'object',
    properties: { aspects: { type: 'array', items: { enum: [...known] }, minItems: 1 } },
    required: ['aspects'],
    additionalProperties: false,
  };
}

/**
 * Every failed probe observation of the given aspects (see src/conformance/probes/aspects.ts),
 * one finding per tool and variant, in scope `probes`. The rule's message can use `{detail}`
 * and `{variant}` (the step, e.g. `elicitation declined`).
 */
const probeObservations: CheckKind<{ aspects: string[] }> = {
  params: aspectsParams(PROBE_ASPECTS),
  needs: ['probes'],
  run(params, context) {
    const aspects = new Set(params.aspects);
    const out: RawFinding[] = [];
    for (const observation of context.probes?.observations ?? []) {
      if (observation.passed || !aspects.has(observation.aspect)) continue;
      out.push({
        ...(observation.tool ? { tool: observation.tool } : {}),
        key: `${observation.aspect}\u0000${observation.variant ?? ''}`,
        scope: 'probes',
        data: { detail: observation.detail, variant: observation.variant ?? '' },
      });
    }
    return out;
  },
};

export const PROBE_KINDS: Record<string, CheckKind> = {
  'probe-observations': probeObservations,
};
