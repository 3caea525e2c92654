/**
 * Every aspect the live probes record, the one list rules in rules/*.json may name: a probe that
 * records an aspect not listed here fails the build, and a rule naming one fails rule validation.
 */
export const PROBE_ASPECTS = [
  'argument.undeclared',
  'format.error',
  'format.json',
  'format.plain',
  'format.toon',
  'gate.block',
  'gate.confirmed',
  'gate.declined',
  'gate.harmless',
  'gate.smuggled',
  'gate.unconfirmed',
  'read.mutation',
  'run.applicable',
  'run.incomplete',
  'secret.leak',
  'surface.instructions',
  'surface.task-required',
  'surface.tools',
  'write.effect',
] as const;

export type ProbeAspect = (typeof PROBE_ASPECTS)[number];

/** Aspects only ever recorded as passed (counted in the evidence, so no rule judges them). */
export const PASS_ONLY_ASPECTS: readonly ProbeAspect[] = ['format.plain'];
