import { isDeepStrictEqual } from 'node:util';
import type { DigestChange, ThingFacts } from '../../sandbox/evidence.js';
import { mutationText, observedCall, type Attempt } from './attempt.js';
import { callSurfaces, errorSummary } from './results.js';
import type { ProbeRun } from './run-state.js';
import { describedThings, type MutationRecord } from './sandbox.js';
import type { ProbeSession } from './sessions.js';
import { fillTemplate, type ExpectedChange, type ExpectedMutation, type WriteEffect, type WriteProbeSpec } from './table.js';
import type { TargetSeeder } from './targets.js';
import type { ProbeObservation } from './types.js';

type Verdict = Pick<ProbeObservation, 'passed' | 'detail'>;

/** A digest change with the facts the sandbox states about it (bucket and key from its name when it is gone). */
export type ObservedChange = { change: string; bucket?: string; key?: string } & ThingFacts;

/** `bucket/key#fileId` → bucket and key. */
function nameParts(name: string): { bucket: string; key: string } {
  const slash = name.indexOf('/');
  return { bucket: name.slice(0, slash), key: name.slice(slash + 1, name.lastIndexOf('#')) };
}

/** The changes a call made, each with its facts as the sandbox states them now. */
async function observedChanges(run: ProbeRun, changes: readonly DigestChange[]): Promise<ObservedChange[]> {
  const named = changes.filter((change) => change.kind === 'version' || change.kind === 'upload');
  const facts = await describedThings(
    run.sandbox,
    named.filter((change) => change.change !== 'removed').map((change) => `${change.kind}:${change.name}`),
  );
  return changes.map((change) => {
    const base = { change: `${change.kind} ${change.change}` };
    if (change.kind !== 'version' && change.kind !== 'upload') return { ...base, name: change.name };
    return { ...base, ...nameParts(change.name), ...(facts[`${change.kind}:${change.name}`] ?? {}) };
  });
}

function mutationMatches(expected: ExpectedMutation, actual: MutationRecord): boolean {
  return Object.entries(expected).every(([field, value]) => (actual as unknown as Record<string, unknown>)[field] === value);
}

function changeMatches(expected: ExpectedChange, actual: ObservedChange): boolean {
  return Object.entries(expected).every(([fact, value]) => isDeepStrictEqual(actual[fact], value));
}

function mutationLine(mutation: ExpectedMutation | MutationRecord): string {
  const where = [mutation.bucketName, mutation.fileName].filter(Boolean).join('/');
  return `${mutation.operation}${where ? ` of ${where}` : ''}`;
}

function changeLine(change: ExpectedChange | ObservedChange): string {
  const { change: what, bucket, key, name, ...facts } = change;
  const where = bucket !== undefined ? `${String(bucket)}/${String(key)}` : String(name ?? '');
  const shown = Object.entries(facts).map(([fact, value]) => `${fact} ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return `${what} ${where}${shown.length ? ` (${shown.join(', ')})` : ''}`;
}

/** Pair each expected change with one observed change that has all its facts; what is left on either side is wrong. */
function unmatched(
  expected: readonly ExpectedChange[],
  observed: readonly ObservedChange[],
): { missing: ExpectedChange[]; extra: ObservedChange[] } {
  const left = [...observed];
  const missing: ExpectedChange[] = [];
  for (const want of expected) {
    const index = left.findIndex((actual) => changeMatches(want, actual));
    if (index < 0) missing.push(want);
    else left.splice(index, 1);
  }
  return { missing, extra: left };
}

/** Every presigned (SigV4) URL in the result, once each. */
function signedUrls(attempt: Attempt): URL[] {
  const found = new Set<string>();
  for (const { text } of callSurfaces(attempt.outcome))
    for (const [url] of text.matchAll(/https?:\/\/[^\s"'<>\\]+/g)) if (/X-Amz-Signature=/i.test(url)) found.add(url);
  return [...found].flatMap((url) => {
    try {
      return [new URL(url)];
    } catch {
      return [];
    }
  });
}

/** Whether a presigned URL is for this object and part (path-style or virtual-hosted). */
function urlIsFor(url: URL, want: NonNullable<WriteEffect['signedUrl']>): boolean {
  const path = decodeURIComponent(url.pathname);
  const object = path === `/${want.bucket}/${want.key}` || (url.hostname.startsWith(`${want.bucket}.`) && path === `/${want.key}`);
  const upload = want.uploadId === undefined || url.searchParams.get('uploadId') === want.uploadId;
  const part = want.partNumber === undefined || url.searchParams.get('partNumber') === String(want.partNumber);
  return object && upload && part;
}

/**
 * An ungated write must do exactly what the table says, by content: these logged operations on
 * these names, these changes with these facts (size, content, metadata, parts, versions), and
 * nothing more.
 */
export function judgeWriteEffect(tool: string, effect: WriteEffect, attempt: Attempt, observed: readonly ObservedChange[]): Verdict {
  const { outcome, mutations } = attempt;
  if (outcome.thrown || outcome.result?.isError)
    return {
      passed: false,
      detail: `${tool} failed with ${errorSummary(outcome)}${mutations.length ? ` (${mutationText(mutations)})` : ''}`,
    };
  if (effect.signedUrl) {
    const urls = signedUrls(attempt);
    const want = effect.signedUrl;
    const wanted = `${want.bucket}/${want.key}${want.partNumber !== undefined ? ` part ${want.partNumber}` : ''}`;
    if (urls.length !== 1)
      return { passed: false, detail: `${tool} must return exactly one presigned URL, for ${wanted}; it returned ${urls.length}` };
    if (!urlIsFor(urls[0]!, want))
      return {
        passed: false,
        detail: `${tool} returned a presigned URL for another object or part than ${wanted} (${decodeURIComponent(urls[0]!.pathname)})`,
      };
  }
  const expectedLines = effect.mutations.map(mutationLine).join(', ') || 'no operation';
  if (mutations.length !== effect.mutations.length || !effect.mutations.every((want, index) => mutationMatches(want, mutations[index]!))) {
    return {
      passed: false,
      detail: `${tool} must log exactly ${expectedLines}; it logged ${mutations.length ? mutations.map(mutationLine).join(', ') : 'nothing'}`,
    };
  }
  const { missing, extra } = unmatched(effect.changes, observed);
  if (missing.length || extra.length) {
    const parts = [
      ...(missing.length ? [`missing ${missing.map(changeLine).join('; ')}`] : []),
      ...(extra.length ? [`found instead or besides ${extra.map(changeLine).join('; ')}`] : []),
    ];
    return { passed: false, detail: `${tool} must change exactly what it declares; the store shows ${parts.join(', ')}` };
  }
  return {
    passed: true,
    detail: `did exactly what it declares (${expectedLines}; ${effect.changes.length ? effect.changes.map((change) => `${change.change} ${change.bucket}/${change.key}`).join(', ') : 'no change'})`,
  };
}

export interface WriteStep {
  label: string;
  tool: string;
  run(): Promise<void>;
}

/** How often each write tool is called, each time on a fresh target: a fork that changes on a later call meets it. */
const WRITE_REPEATS = 2;

/** Steps per write tool ({@link WRITE_REPEATS}): seed its target, call it once, compare what happened with its declared effect. */
export function writeSteps(
  run: ProbeRun,
  seeder: TargetSeeder,
  session: ProbeSession,
  specs: readonly WriteProbeSpec[],
  values: Record<string, unknown>,
): WriteStep[] {
  return specs.flatMap((spec) =>
    Array.from({ length: WRITE_REPEATS }, (_, index) => ({
      label: `write ${spec.tool}${index ? ' again' : ''}`,
      tool: spec.tool,
      run: async () => {
        const target = await seeder.seed(spec.target);
        const filled = { ...values, target };
        const attempt = await observedCall(run, session, 'write', spec.tool, fillTemplate(spec.arguments, filled));
        if (attempt.outcome.timedOut) throw new Error('no answer within the timeout');
        const observed = await observedChanges(run, attempt.changes);
        run.record({
          aspect: 'write.effect',
          tool: spec.tool,
          variant: 'declared effect',
          ...judgeWriteEffect(spec.tool, fillTemplate(spec.effect, filled), attempt, observed),
        });
      },
    })),
  );
}
