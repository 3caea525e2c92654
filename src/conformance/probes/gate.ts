import { judgeUndeclared, undeclaredArgument } from './arguments.js';
import { changeText, mutationText, observedCall, type Attempt } from './attempt.js';
import type { MutationRecord } from './sandbox.js';
import { errorSummary, hasSignedUrl } from './results.js';
import type { ProbeAspect } from './aspects.js';
import type { ProbeRun } from './run-state.js';
import type { ElicitAnswer, ProbeSession } from './sessions.js';
import { fillTemplate, type Arguments, type GateProbeSpec } from './table.js';
import type { TargetSeeder, TargetValues } from './targets.js';

/** What the gate probe needs from the run around it. */
export interface GateRun {
  run: ProbeRun;
  seeder: TargetSeeder;
  plain: ProbeSession;
  elicit?: ProbeSession;
  block?: ProbeSession;
  /** A session in the other era (its own client and format): the gate must hold there too. */
  era?: ProbeSession;
  /** Values every template may use besides `target` (account id, times). */
  values: Record<string, unknown>;
  /** Consent-looking undeclared arguments (rules/probes/gates.json). */
  consent: readonly Arguments[];
}

/** The consent-looking arguments the tool's schema does not declare. */
function undeclaredConsent(session: ProbeSession, tool: string, candidates: readonly Arguments[]): Arguments[] {
  const listed = session.tools.find((entry) => entry.name === tool);
  return listed ? candidates.filter((candidate) => undeclaredArgument(listed, [candidate])) : [];
}

function shownArguments(args: Arguments): string {
  return Object.entries(args)
    .map(([name, value]) => `${name}: ${JSON.stringify(value)}`)
    .join(', ');
}

/**
 * A gated call the server had no consent for: an isError result and no change at all, neither in
 * the mutation log nor in the state (a target deleted and re-created, a setting changed and put
 * back by a path the log does not see, all count).
 */
export function judgeRefusal(
  spec: Pick<GateProbeSpec, 'tool' | 'effect'>,
  { outcome, mutations, changes }: Attempt,
): { passed: boolean; detail: string } {
  if (mutations.length > 0) return { passed: false, detail: `${spec.tool} ran without consent: ${mutationText(mutations)}` };
  if (changes.length > 0)
    return {
      passed: false,
      detail: `${spec.tool} ran without consent: the mutation log shows nothing, but the sandbox state changed (${changeText(changes)})`,
    };
  if (spec.effect === 'signed-url' && hasSignedUrl(outcome))
    return { passed: false, detail: `${spec.tool} returned a presigned URL without consent` };
  if (outcome.thrown) return { passed: false, detail: `${spec.tool} answered with ${errorSummary(outcome)} instead of an isError refusal` };
  if (!outcome.result?.isError)
    return {
      passed: false,
      detail: `${spec.tool} returned a result without isError although it did nothing; a refusal must be an isError result`,
    };
  return { passed: true, detail: `refused with ${errorSummary(outcome)}; nothing changed` };
}

/** The fields a mutation record names and the target value each must equal. */
const TARGET_FIELDS: [keyof MutationRecord, string[]][] = [
  ['bucketName', ['bucketName']],
  ['fileName', ['fileName', 'key']],
  ['applicationKeyId', ['applicationKeyId']],
  ['memberAccountId', ['memberAccountId']],
];

/** Where the one change names something else than the probe's target (another bucket, file, key or member), or undefined. */
export function offTarget(mutation: MutationRecord, target: TargetValues): string | undefined {
  for (const [field, names] of TARGET_FIELDS) {
    const expected = names.map((name) => target[name]).find((value) => value !== undefined);
    const actual = mutation[field];
    if (actual !== undefined && expected !== undefined && actual !== String(expected))
      return `its ${field} is ${JSON.stringify(actual)}, the target's ${JSON.stringify(String(expected))}`;
  }
  return undefined;
}

/** A consented call: exactly the effect the table names, once, on the probe's own target. */
export function judgeEffect(
  spec: Pick<GateProbeSpec, 'tool' | 'effect'>,
  attempt: Attempt & { target?: TargetValues },
): { passed: boolean; detail: string } {
  const { outcome, mutations } = attempt;
  if (spec.effect === 'unavailable') {
    const refusal = judgeRefusal(spec, attempt);
    return refusal.passed
      ? refusal
      : { ...refusal, detail: `${refusal.detail} (the tool is unavailable in this configuration and must refuse even when approved)` };
  }
  if (outcome.thrown || outcome.result?.isError)
    return {
      passed: false,
      detail: `${spec.tool} failed with ${errorSummary(outcome)} although the call was approved${mutations.length ? ` (${mutationText(mutations)})` : ''}`,
    };
  if (spec.effect === 'signed-url') {
    if (!hasSignedUrl(outcome)) return { passed: false, detail: `${spec.tool} returned no presigned URL although the call was approved` };
    if (mutations.length > 0) return { passed: false, detail: `minting a presigned URL caused ${mutationText(mutations)}` };
    return { passed: true, detail: 'returned a presigned URL; nothing changed' };
  }
  if (mutations.length !== 1)
    return { passed: false, detail: `an approved ${spec.tool} must change the sandbox exactly once; it made ${mutationText(mutations)}` };
  const elsewhere = attempt.target && offTarget(mutations[0]!, attempt.target);
  if (elsewhere)
    return {
      passed: false,
      detail: `an approved ${spec.tool} changed something else than the target it was called on (${mutations[0]!.operation}: ${elsewhere})`,
    };
  return { passed: true, detail: `changed the sandbox once (${mutations[0]!.operation})` };
}

/** One step of a gate probe: a label for progress, and the call and judgement it makes. */
interface GateStep {
  label: string;
  run(): Promise<void>;
}

/**
 * The steps that probe one gated tool, in order. Refusals come first on one seeded target; a step
 * that changed the sandbox anyway used its target up, so the next step seeds a fresh one (one
 * broken gate never shows up as a second, inherited failure).
 */
export function gateSteps(run: GateRun, spec: GateProbeSpec): GateStep[] {
  let target: TargetValues | undefined;
  const argumentsFor = (template: Arguments, values: TargetValues) => fillTemplate(template, { ...run.values, target: values });

  const attempt = async (
    session: ProbeSession,
    options: { answer?: ElicitAnswer; confirm?: boolean; harmless?: boolean; extra?: Arguments },
  ): Promise<Attempt & { target: TargetValues }> => {
    const values = options.harmless ? await run.seeder.seed(spec.harmless!.target) : (target ??= await run.seeder.seed(spec.target));
    const args = { ...argumentsFor(options.harmless ? spec.harmless!.arguments : spec.trigger, values), ...options.extra };
    session.answer(options.answer ?? 'decline');
    const result = await observedCall(run.run, session, 'gate', spec.tool, options.confirm ? { ...args, confirm: true } : args);
    // No answer is no verdict: the step is incomplete, not a refusal or a failure.
    if (result.outcome.timedOut) throw new Error('no answer within the timeout');
    if ((result.mutations.length > 0 || result.changes.length > 0) && !options.harmless) target = undefined;
    return { ...result, target: values };
  };
  const observe = (aspect: ProbeAspect, variant: string, verdict: { passed: boolean; detail: string }) =>
    run.run.record({ aspect, tool: spec.tool, variant, ...verdict });
  const { plain, elicit, block, era } = run;

  const steps: GateStep[] = [
    { label: 'no confirm', run: async () => observe('gate.unconfirmed', 'no confirm', judgeRefusal(spec, await attempt(plain, {}))) },
  ];
  if (era) {
    const variant = `no confirm (${era.modern ? 'modern' : '2025'} era, ${era.client})`;
    steps.push({ label: variant, run: async () => observe('gate.unconfirmed', variant, judgeRefusal(spec, await attempt(era, {}))) });
  }
  // One call per consent-looking word: a fork strips the word it takes as consent, and any other undeclared word would have the call refused for it.
  for (const extra of undeclaredConsent(plain, spec.tool, run.consent)) {
    const shown = shownArguments(extra);
    steps.push({
      label: shown,
      run: async () => observe('gate.smuggled', shown, judgeUndeclared(spec.tool, shown, await attempt(plain, { extra }))),
    });
  }
  if (elicit) {
    for (const [answer, label] of [
      ['decline', 'declined'],
      ['cancel', 'cancelled'],
    ] as const) {
      steps.push({
        label,
        run: async () => {
          const result = await attempt(elicit, { answer });
          const verdict = judgeRefusal(spec, result);
          observe(
            'gate.declined',
            `elicitation ${label}`,
            result.outcome.elicitations.length === 0 && verdict.passed ? { ...verdict, detail: `${verdict.detail} (not asked)` } : verdict,
          );
        },
      });
    }
  }
  if (block) {
    steps.push({
      label: 'policy block',
      run: async () =>
        observe(
          'gate.block',
          'B2_DESTRUCTIVE_POLICY=block with confirm: true',
          judgeRefusal(spec, await attempt(block, { confirm: true })),
        ),
    });
  }
  steps.push({
    label: 'confirm: true',
    run: async () => observe('gate.confirmed', 'confirm: true', judgeEffect(spec, await attempt(plain, { confirm: true }))),
  });
  if (elicit) {
    steps.push({
      label: 'accepted',
      run: async () => {
        const accepted = await attempt(elicit, { answer: 'accept' });
        if (accepted.outcome.elicitations.length > 0) observe('gate.confirmed', 'elicitation accepted', judgeEffect(spec, accepted));
        // Never asked: without confirm the call had no consent, so it must have been refused.
        else observe('gate.unconfirmed', 'elicitation-capable client, not asked', judgeRefusal(spec, accepted));
      },
    });
  }
  const harmless = spec.harmless;
  if (harmless) {
    steps.push({
      label: 'harmless',
      run: async () => {
        const { outcome } = await attempt(plain, { harmless: true });
        const refused = Boolean(outcome.thrown || outcome.result?.isError);
        observe(
          'gate.harmless',
          'harmless arguments',
          refused
            ? { passed: false, detail: `${spec.tool} refused arguments that must not be gated (${harmless.why}): ${errorSummary(outcome)}` }
            : { passed: true, detail: 'ran without confirmation' },
        );
      },
    });
  }
  return steps;
}
