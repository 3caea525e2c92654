import type { Evidence } from './evidence.js';
import { configLine } from './verdict.js';

const short = (hash: string) => hash.slice(0, 12);

/** The evidence block as plain lines (label, value), shared by the text-based reports. */
export function evidenceLines(evidence: Evidence): [string, string][] {
  const lines: [string, string][] = [];
  lines.push([
    'Versions',
    Object.entries(evidence.versions)
      .map(([name, version]) => `${name} ${version}`)
      .join(' · '),
  ]);
  if (evidence.profile) lines.push(['Profile', evidence.profile]);
  if (evidence.target) {
    lines.push(['Target', describe(evidence.target)]);
    lines.push(...pairingLines(evidence.target));
  }
  for (const [connection, seen] of Object.entries(evidence.connections)) {
    if (!seen) continue;
    const server = seen.serverInfo ? `${seen.serverInfo.name} ${seen.serverInfo.version}` : 'unnamed server';
    lines.push([
      `Connection ${connection}`,
      `${seen.client.package} ${seen.client.version} → ${server}, protocol ${seen.protocolVersion ?? 'unknown'}, ${seen.tools} tools, hash ${short(seen.hash)}${seen.prompts === undefined ? '' : `, ${seen.prompts} prompts`}, ${Math.round(seen.timings.connectMs + seen.timings.listToolsMs + (seen.timings.listPromptsMs ?? 0))} ms`,
    ]);
  }
  if (evidence.contractHash) lines.push(['Contract hash', short(evidence.contractHash)]);
  for (const [scope, comparison] of Object.entries(evidence.hashes)) {
    lines.push([
      `Hash ${scope}`,
      `expected ${short(comparison.expected.hash)} (${comparison.expected.source}), found ${short(comparison.found.hash)} (${comparison.found.source}): ${driftText(comparison.drift)}`,
    ]);
  }
  for (const [scope, comparison] of Object.entries(evidence.promptHashes ?? {})) {
    const basis = comparison.basis === 'listed' ? ' (as prompts/list shows them)' : '';
    lines.push([
      `Prompts ${scope}`,
      `expected ${short(comparison.expected.hash)} (${comparison.expected.source}), found ${short(comparison.found.hash)} (${comparison.found.source})${basis}: ${promptDriftText(comparison.drift)}`,
    ]);
  }
  if (evidence.cacheHints) {
    const approved = evidence.cacheHints.approved;
    const modern = evidence.cacheHints.modern;
    const hint = (value: { ttlMs: unknown; cacheScope: unknown } | null | undefined) =>
      value ? `${value.ttlMs} ms ${value.cacheScope}` : 'none';
    lines.push([
      'Cache hints',
      `approved ${hint(approved)}; tools/list ${hint(modern?.toolsListCacheHint)}; server/discover ${hint(modern?.discover ? { ttlMs: modern.discover.ttlMs, cacheScope: modern.discover.cacheScope } : null)}`,
    ]);
  }
  const config = evidence.config;
  lines.push(['Config', `${configLine(config)}; ${config.suppressed} suppressed, ${config.stale} stale, ${config.expired} expired`]);
  lines.push(['Rules evaluated', String(evidence.rulesEvaluated)]);
  if (evidence.probes) lines.push(...probeLines(evidence.probes));
  if (evidence.lint) lines.push(['Lint', lintLine(evidence.lint)]);
  if (evidence.scenarios)
    lines.push([
      'Scenarios',
      `${evidence.scenarios.cases} cases (${evidence.scenarios.failedCases} failed), ${evidence.scenarios.expectations} expectations${evidence.scenarios.file ? ` from ${evidence.scenarios.file}` : ''}; ${evidence.scenarios.calls} --call-tool calls`,
    ]);
  for (const note of evidence.notes ?? []) lines.push(['Note', note]);
  lines.push(['Duration', `${evidence.durationMs} ms`]);
  return lines;
}

/** What lint read: `/src/fork: 6 fixtures in fixtures/tool-contract, contract …, reference … (held to the generator), 12 prose files, no manifest`. */
function lintLine(lint: NonNullable<Evidence['lint']>): string {
  const reference = lint.referenceDoc
    ? `reference ${lint.referenceDoc.file} (held to ${lint.referenceDoc.heldTo === 'generator' ? 'its generator' : 'the fixtures'})`
    : 'no profile reference';
  const manifests = lint.manifests.length ? `manifests ${lint.manifests.join(', ')}` : 'no manifest';
  return `${lint.root}: ${lint.fixtures.length} fixtures in ${lint.fixturesDir}, ${lint.promptFixtures.length} prompt fixtures, ${lint.contract ? `contract ${lint.contract}` : 'no contract artifact'}, ${reference}, ${lint.prose} prose files, ${manifests}`;
}

function probeLines(probes: NonNullable<Evidence['probes']>): [string, string][] {
  if (!probes.applicable)
    return [['Probes', `not applicable (the server did not use the ${probes.sandbox} sandbox), ${probes.durationMs} ms`]];
  const lines: [string, string][] = [
    ['Probes', `${probes.passed} passed, ${probes.failed} failed in ${probes.durationMs} ms against an ${probes.sandbox} sandbox`],
    ['Probe sessions', probes.combinations.join('; ')],
    ['Probe seed', `${probes.seed} (check --seed ${probes.seed} draws the same sessions and call order)`],
    [
      'Probe calls',
      `${probes.gate.calls} gate calls on ${probes.gate.tools} gated tools (${probes.gate.elicitations} elicitations answered), ${probes.format.calls} read calls; ${probes.secrets.canaries} canar${probes.secrets.canaries === 1 ? 'y' : 'ies'} searched in ${probes.secrets.places.join(', ')}`,
    ],
  ];
  for (const skipped of probes.skipped) lines.push(['Probes skipped', skipped]);
  return lines;
}

/** What a diff paired and left unpaired (each file with its side), each on a line of its own so a bounded report never cuts it off. */
const PAIRING: Record<string, string> = {
  compared: 'Compared',
  unmatched: 'Unmatched',
  promptsCompared: 'Prompts compared',
  promptsUnmatched: 'Prompts unmatched',
};

function pairingLines(target: Record<string, unknown>): [string, string][] {
  return Object.entries(PAIRING)
    .filter(([key]) => Array.isArray(target[key]) && (target[key] as unknown[]).length > 0)
    .map(([key, label]) => [label, (target[key] as unknown[]).map(String).join(', ')]);
}

function describe(target: Record<string, unknown>): string {
  return Object.entries(target)
    .filter(([key, value]) => !(key in PAIRING) && !(Array.isArray(value) && value.length === 0))
    .map(([key, value]) => `${key} ${Array.isArray(value) ? value.join(' ') : String(value)}`)
    .join('; ');
}

function driftText(drift: Evidence['hashes'][string]['drift']): string {
  if (drift.status === 'match') return 'match';
  if (drift.status === 'tool-set-differs') {
    const parts = [
      drift.renamed?.length ? `renamed ${drift.renamed.map(({ from, to }) => `${from} → ${to}`).join(', ')}` : '',
      drift.added.length ? `added ${drift.added.join(', ')}` : '',
      drift.removed.length ? `removed ${drift.removed.join(', ')}` : '',
    ];
    return `the tool set differs (${parts.filter(Boolean).join('; ')})`;
  }
  return `same names, definitions differ: ${drift.tools.map(({ tool, paths }) => `${tool} (${paths.join(', ')})`).join('; ')}`;
}

function promptDriftText(drift: NonNullable<Evidence['promptHashes']>[string]['drift']): string {
  if (drift.status === 'match') return 'match';
  if (drift.status === 'prompt-set-differs') {
    const parts = [
      drift.added.length ? `added ${drift.added.join(', ')}` : '',
      drift.removed.length ? `removed ${drift.removed.join(', ')}` : '',
    ];
    return `the prompt set differs (${parts.filter(Boolean).join('; ')})`;
  }
  return `same names, definitions differ: ${drift.prompts.map(({ prompt, paths }) => `${prompt} (${paths.join(', ')})`).join('; ')}`;
}
