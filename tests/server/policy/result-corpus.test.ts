import { decode } from '@toon-format/toon';
import { describe, expect, it } from 'vitest';
import { loadCorpus } from '../../../scripts/result-corpus.js';
import { successResult } from '../../../src/server/policy/serialize.js';
import { profileSurface } from '../../../src/server/registry.js';

describe('result corpus', () => {
  const corpus = loadCorpus();

  it('covers every tool that reads, with a declared shape class', () => {
    const readers = profileSurface('full')
      .filter(
        (t) =>
          t.annotations.readOnlyHint ||
          ['s3_get_object', 's3_get_presigned_url', 's3_get_presigned_upload_part_url'].includes(t.definition.name),
      )
      .map((t) => t.definition.name)
      .filter((name) => name !== 's3_head_bucket'); // answers with a plain status line, no structured result
    expect(new Set(corpus.map((e) => e.tool))).toEqual(new Set(readers));
    for (const entry of corpus) expect(['flat-table', 'keyed-table', 'nested', 'mixed']).toContain(entry.shape);
    expect(corpus.some((e) => JSON.stringify(e.value).length > 100_000)).toBe(true); // the 1,000-row variants
  });

  it('renders every real result as TOON that the official decoder reads back exactly', () => {
    for (const entry of corpus) {
      const result = successResult({ structured: entry.value }, { format: 'toon' });
      const text = (result.content[0] as { text: string }).text;
      if (text.startsWith('{')) continue; // beyond the TOON bounds: compact JSON by contract
      expect(decode(text), entry.id).toEqual(result.structuredContent);
    }
  });
});
