import { isDeepStrictEqual } from 'node:util';
import { changeCounts, changeText, mutationText, observedCall, type Attempt } from './attempt.js';
import { errorSummary, hasSignedUrl } from './results.js';
import type { ProbeRun } from './run-state.js';
import type { ProbeSession } from './sessions.js';
import { fillTemplate, type WriteEffect, type WriteProbeSpec } from './table.js';
import type { TargetSeeder } from './targets.js';
import type { ProbeObservation } from './types.js';

type Verdict = Pick<ProbeObservation, 'passed' | 'detail'>;

function effectText(effect: WriteEffect): string {
  const state = Object.entries(effect.state).map(([what, count]) => `${count} ${what}`);
  const parts = [effect.mutations.length ? `logs ${effect.mutations.join(', ')}` : 'logs no change', state.length ? state.join(', ') : 'no state change', ...(effect.signedUrl ? ['a presigned URL'] : [])];
  return parts.join('; ');
}

/** An ungated write must do exactly what the table says: these logged operations, these state changes, nothing more. */
export function judgeWriteEffect(spec: WriteProbeSpec, { outcome, mutations, changes }: Attempt): Verdict {
  const { tool, effect } = spec;
  if (outcome.thrown || outcome.result?.isError) return { passed: false, detail: `${tool} failed with ${errorSummary(outcome)}${mutations.length ? ` (${mutationText(mutations)})` : ''}` };
  if (effect.signedUrl && !hasSignedUrl(outcome)) return { passed: false, detail: `${tool} returned no presigned URL` };
  const logged = mutations.map((mutation) => mutation.operation);
  if (!isDeepStrictEqual(logged, effect.mutations)) return { passed: false, detail: `${tool} must do exactly this: ${effectText(effect)}; it made ${mutationText(mutations)}` };
  const counts = changeCounts(changes);
  const expected = new Map(Object.entries(effect.state));
  const differs = [...new Set([...counts.keys(), ...expected.keys()])].some((what) => (counts.get(what) ?? 0) !== (expected.get(what) ?? 0));
  if (differs) return { passed: false, detail: `${tool} must do exactly this: ${effectText(effect)}; the sandbox state shows ${changes.length ? changeText(changes) : 'no change'}` };
  return { passed: true, detail: `did exactly what it declares (${effectText(effect)})` };
}

export interface WriteStep {
  label: string;
  tool: string;
  run(): Promise<void>;
}

/** One step per write tool: seed its target, call it once, compare what happened with its declared effect. */
export function writeSteps(run: ProbeRun, seeder: TargetSeeder, session: ProbeSession, specs: readonly WriteProbeSpec[], values: Record<string, unknown>): WriteStep[] {
  return specs.map((spec) => ({
    label: `write ${spec.tool}`,
    tool: spec.tool,
    run: async () => {
      const target = await seeder.seed(spec.target);
      const attempt = await observedCall(run, session, 'write', spec.tool, fillTemplate(spec.arguments, { ...values, target }));
      if (attempt.outcome.timedOut) throw new Error('no answer within the timeout');
      run.record({ aspect: 'write.effect', tool: spec.tool, variant: 'declared effect', ...judgeWriteEffect(spec, attempt) });
    },
  }));
}
