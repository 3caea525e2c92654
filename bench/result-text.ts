import { encode as officialToonEncode } from '@toon-format/toon';
import { encode as encodeCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { encode as encodeO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { loadCorpus } from '../scripts/result-corpus.js';
import { successResult } from '../src/server/policy/serialize.js';
import { encodeToon, TOON_BOUNDS } from '../src/server/policy/toon.js';

interface Sizes {
  bytes: number;
  chars: number;
  tokensO200k: number;
  tokensCl100k: number;
}

function sizes(text: string): Sizes {
  return {
    bytes: Buffer.byteLength(text),
    chars: text.length,
    tokensO200k: encodeO200k(text).length,
    tokensCl100k: encodeCl100k(text).length,
  };
}

const renderAs = (value: unknown, format: 'json' | 'toon' | 'auto'): string =>
  (successResult({ structured: value }, { format }).content[0] as { text: string }).text;

function add(a: Sizes, b: Sizes): Sizes {
  return {
    bytes: a.bytes + b.bytes,
    chars: a.chars + b.chars,
    tokensO200k: a.tokensO200k + b.tokensO200k,
    tokensCl100k: a.tokensCl100k + b.tokensCl100k,
  };
}
const ZERO: Sizes = { bytes: 0, chars: 0, tokensO200k: 0, tokensCl100k: 0 };
const pct = (part: number, whole: number): number => Math.round((1 - part / whole) * 1000) / 10;

/** Median throughput in MB/s of encoding the whole corpus `rounds` times. */
function throughput(values: unknown[], encode: (v: unknown) => string, totalBytes: number, rounds = 7): number {
  const samples: number[] = [];
  for (let r = 0; r < rounds; r += 1) {
    const started = performance.now();
    for (let i = 0; i < 5; i += 1) for (const v of values) encode(v);
    samples.push((totalBytes * 5) / 1e6 / ((performance.now() - started) / 1000));
  }
  return Math.round(samples.sort((a, b) => a - b)[Math.floor(rounds / 2)]! * 10) / 10;
}

export async function benchResultText() {
  const corpus = loadCorpus();
  if (corpus.length === 0) throw new Error('fixtures/result-corpus is empty; run npm run generate:corpus');
  const tokenizers = { o200k: 'gpt-tokenizer o200k_base', cl100k: 'gpt-tokenizer cl100k_base' };
  const entries = corpus.map((entry) => {
    const value = successResult({ structured: entry.value }, { format: 'json' }).structuredContent as unknown;
    const pretty = sizes(JSON.stringify(value, null, 2));
    const compact = sizes(renderAs(value, 'json'));
    const toon = sizes(renderAs(value, 'toon'));
    const autoText = renderAs(value, 'auto');
    const auto = sizes(autoText);
    const bestIsToon = toon.tokensO200k < compact.tokensO200k;
    return {
      id: entry.id,
      tool: entry.tool,
      shape: entry.shape,
      pretty,
      compact,
      toon,
      auto,
      autoPickedToon: autoText !== renderAs(value, 'json'),
      bestIsToon,
    };
  });
  const byShape: Record<string, { entries: number; pretty: Sizes; compact: Sizes; toon: Sizes; auto: Sizes }> = {};
  for (const e of entries) {
    const group = (byShape[e.shape] ??= { entries: 0, pretty: ZERO, compact: ZERO, toon: ZERO, auto: ZERO });
    group.entries += 1;
    group.pretty = add(group.pretty, e.pretty);
    group.compact = add(group.compact, e.compact);
    group.toon = add(group.toon, e.toon);
    group.auto = add(group.auto, e.auto);
  }
  const shapes = Object.fromEntries(
    Object.entries(byShape).map(([shape, g]) => [
      shape,
      {
        ...g,
        toonSavingVsCompactPct: pct(g.toon.tokensO200k, g.compact.tokensO200k),
        autoSavingVsCompactPct: pct(g.auto.tokensO200k, g.compact.tokensO200k),
      },
    ]),
  );
  const listings = entries.filter((e) => e.shape === 'flat-table' || e.shape === 'keyed-table');
  const inBounds = listings.filter((e) => e.compact.chars <= TOON_BOUNDS.maxJsonChars);
  const sum = (list: typeof entries, key: 'compact' | 'auto' | 'toon') => list.reduce((n, e) => n + e[key].tokensO200k, 0);
  const values = corpus.map((e) => e.value);
  const totalBytes = entries.reduce((n, e) => n + e.compact.bytes, 0);
  const ours = throughput(values, encodeToon, totalBytes);
  const official = throughput(values, (v) => officialToonEncode(v as never), totalBytes);
  return {
    tokenizers,
    entries,
    shapes,
    auto: {
      neverLargerThanCompact: entries.every((e) => e.auto.tokensO200k <= e.compact.tokensO200k),
      entriesLargerThanCompact: entries.filter((e) => e.auto.tokensO200k > e.compact.tokensO200k).map((e) => e.id),
      listingSavingVsCompactPct: pct(sum(listings, 'auto'), sum(listings, 'compact')),
      /** The same, leaving out listings whose compact JSON exceeds the TOON bounds (they stay JSON by contract). */
      listingSavingWithinBoundsPct: pct(sum(inBounds, 'auto'), sum(inBounds, 'compact')),
      beyondToonBounds: entries.filter((e) => e.compact.chars > TOON_BOUNDS.maxJsonChars).map((e) => e.id),
      estimatorAgreementPct: Math.round((entries.filter((e) => e.autoPickedToon === e.bestIsToon).length / entries.length) * 1000) / 10,
      targets: { neverLargerThanCompact: true, listingSavingVsCompactPct: 35 },
    },
    encoderThroughput: { oursMBps: ours, officialMBps: official, ratio: Math.round((ours / official) * 100) / 100, target: 1.0 },
  };
}
