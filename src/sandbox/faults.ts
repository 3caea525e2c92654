/**
 * Deterministic fault injection for the native and S3 front ends (never the admin API).
 *
 * Spec grammar (comma-separated; both styles mix):
 *   rate=0.2,kinds=500|503|429|reset|stall,stallMs=2000,seed=1[,ops=b2_list_buckets|...]
 *       [,phase=before|after][,retryAfter=SECONDS][,latencyMs=N]
 *   500:0.2,429:0.1@b2_list_file_names,latency:50ms
 * `KIND:RATE[@op|op]` adds a rule failing that fraction of (matching) requests with KIND;
 * `rate`+`kinds` add one rule whose kind is picked uniformly. Kinds: 500, 503, 429 (B2 error
 * bodies; 503/429 carry Retry-After), reset (socket destroyed, no response), stall (held for
 * stallMs, then the socket is destroyed), garbage (HTML 500 page), badjson (200 with a truncated
 * JSON body).
 *
 * Phase: `before` (default) fails the request before it is handled, so nothing is applied;
 * `after` applies the operation (and logs its mutation) and then loses the response — the way to
 * prove a client does not replay a non-idempotent mutation. 429 always fires before handling,
 * since a rate-limited request is by definition not processed.
 *
 * Decisions come from a seeded PRNG consumed once per rule per eligible request, so the same
 * request sequence always sees the same faults.
 */

import { seededRandom } from './seeded-random.js';
export const FAULT_KINDS = ['500', '503', '429', 'reset', 'stall', 'garbage', 'badjson'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultRule {
  rate: number;
  kinds: FaultKind[];
  /** Operation names the rule applies to; undefined = every operation. */
  ops?: string[];
}

export interface FaultSpec {
  rules: FaultRule[];
  seed: number;
  phase: 'before' | 'after';
  stallMs: number;
  retryAfterSeconds: number;
  latencyMs: number;
}

export interface FaultDecision {
  kind: FaultKind;
  phase: 'before' | 'after';
  stallMs: number;
  retryAfterSeconds: number;
}

export class FaultSpecError extends Error {
  constructor(message: string) {
    super(`invalid --faults spec: ${message}`);
    this.name = 'FaultSpecError';
  }
}

function parseRate(text: string): number {
  const rate = Number(text);
  if (!Number.isFinite(rate) || rate < 0 || rate > 1) throw new FaultSpecError(`rate must be a number from 0 to 1, got "${text}"`);
  return rate;
}

function parseKind(text: string): FaultKind {
  if (!(FAULT_KINDS as readonly string[]).includes(text)) {
    throw new FaultSpecError(`unknown fault kind "${text}" (known: ${FAULT_KINDS.join(', ')})`);
  }
  return text as FaultKind;
}

function parseNonNegativeInt(name: string, text: string): number {
  const n = Number(text.replace(/ms$/, ''));
  if (!Number.isInteger(n) || n < 0) throw new FaultSpecError(`${name} must be a non-negative integer, got "${text}"`);
  return n;
}

export function parseFaultSpec(spec: string): FaultSpec {
  const result: FaultSpec = { rules: [], seed: 1, phase: 'before', stallMs: 2000, retryAfterSeconds: 1, latencyMs: 0 };
  let rate: number | undefined;
  let kinds: FaultKind[] | undefined;
  let ops: string[] | undefined;
  for (const raw of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = raw.indexOf('=');
    if (eq > 0) {
      const name = raw.slice(0, eq);
      const value = raw.slice(eq + 1);
      switch (name) {
        case 'rate':
          rate = parseRate(value);
          break;
        case 'kinds':
          kinds = value.split('|').map(parseKind);
          break;
        case 'ops':
          ops = value.split('|').filter(Boolean);
          break;
        case 'seed':
          result.seed = parseNonNegativeInt('seed', value);
          break;
        case 'stallMs':
          result.stallMs = parseNonNegativeInt('stallMs', value);
          break;
        case 'retryAfter':
          result.retryAfterSeconds = parseNonNegativeInt('retryAfter', value);
          break;
        case 'latencyMs':
          result.latencyMs = parseNonNegativeInt('latencyMs', value);
          break;
        case 'phase':
          if (value !== 'before' && value !== 'after') throw new FaultSpecError('phase must be "before" or "after"');
          result.phase = value;
          break;
        default:
          throw new FaultSpecError(`unknown setting "${name}"`);
      }
      continue;
    }
    const rule = /^([a-z0-9]+):([^@]+)(?:@(.+))?$/.exec(raw);
    if (!rule) throw new FaultSpecError(`cannot read "${raw}"`);
    if (rule[1] === 'latency') {
      result.latencyMs = parseNonNegativeInt('latency', rule[2]!);
      continue;
    }
    result.rules.push({
      rate: parseRate(rule[2]!),
      kinds: [parseKind(rule[1]!)],
      ...(rule[3] ? { ops: rule[3].split('|').filter(Boolean) } : {}),
    });
  }
  if (rate !== undefined || kinds !== undefined) {
    if (rate === undefined || !kinds?.length) throw new FaultSpecError('rate and kinds must be given together');
    result.rules.push({ rate, kinds, ...(ops ? { ops } : {}) });
  } else if (ops) {
    throw new FaultSpecError('ops needs rate and kinds');
  }
  return result;
}

export class FaultInjector {
  private spec: FaultSpec | null = null;
  private random: () => number = seededRandom(1);
  /** Faults injected so far, by kind (reported by the admin API). */
  readonly injected = new Map<FaultKind, number>();

  constructor(spec?: FaultSpec | null) {
    this.configure(spec ?? null);
  }

  configure(spec: FaultSpec | null): void {
    this.spec = spec;
    this.random = seededRandom(spec?.seed ?? 1);
    this.injected.clear();
  }

  current(): FaultSpec | null {
    return this.spec;
  }

  get latencyMs(): number {
    return this.spec?.latencyMs ?? 0;
  }

  /** Whether this request fails, and how. Consumes PRNG draws only for matching rules. */
  decide(operation: string): FaultDecision | null {
    const spec = this.spec;
    if (!spec) return null;
    for (const rule of spec.rules) {
      if (rule.ops && !rule.ops.includes(operation)) continue;
      if (this.random() >= rule.rate) continue;
      const kind = rule.kinds.length === 1 ? rule.kinds[0]! : rule.kinds[Math.floor(this.random() * rule.kinds.length)]!;
      this.injected.set(kind, (this.injected.get(kind) ?? 0) + 1);
      return {
        kind,
        phase: kind === '429' ? 'before' : spec.phase,
        stallMs: spec.stallMs,
        retryAfterSeconds: spec.retryAfterSeconds,
      };
    }
    return null;
  }
}
