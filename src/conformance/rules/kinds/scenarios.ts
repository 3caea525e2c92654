import { SCENARIO_ASPECTS } from '../../probes/scenarios.js';
import type { CheckKind, RawFinding } from '../types.js';
import { aspectsParams } from './probes.js';

/**
 * Every unmet expectation of the given aspects of a scenario file (see src/conformance/probes/scenarios.ts),
 * one finding per scenario and pointer, in scope `scenarios`. The message can use `{scenario}`
 * and `{detail}`.
 */
const scenarioObservations: CheckKind<{ aspects: string[] }> = {
  params: aspectsParams(SCENARIO_ASPECTS),
  needs: ['scenarios'],
  run(params, context) {
    const aspects = new Set(params.aspects);
    const out: RawFinding[] = [];
    for (const observation of context.scenarios?.observations ?? []) {
      if (observation.passed || !aspects.has(observation.aspect)) continue;
      out.push({
        tool: observation.tool,
        ...(observation.pointer !== undefined ? { path: observation.pointer } : {}),
        key: `${observation.aspect}\u0000${observation.scenario}`,
        scope: 'scenarios',
        data: { scenario: observation.scenario, detail: observation.detail },
      });
    }
    return out;
  },
};

export const SCENARIO_KINDS: Record<string, CheckKind> = {
  'scenario-observations': scenarioObservations,
};
