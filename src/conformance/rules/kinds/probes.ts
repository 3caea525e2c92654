import type { CheckKind, RawFinding } from '../types.js';

/** The parameters of a kind that judges observations: which aspects (`gate.refused`, `scenario.golden`, …) it reports. */
export const ASPECTS_PARAMS: CheckKind['params'] = {
  type: 'object',
  properties: { aspects: { type: 'array', items: { type: 'string', pattern: '^[a-z]+\\.[a-z-]+$' }, minItems: 1 } },
  required: ['aspects'],
  additionalProperties: false,
};

/**
 * Every failed probe observation of the given aspects (see src/conformance/probes/types.ts),
 * one finding per tool and variant, in scope `probes`. The rule's message can use `{detail}`
 * and `{variant}` (the step, e.g. `elicitation declined`).
 */
const probeObservations: CheckKind = {
  params: ASPECTS_PARAMS,
  needs: ['probes'],
  run(params, context) {
    const aspects = new Set(params.aspects as string[]);
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
