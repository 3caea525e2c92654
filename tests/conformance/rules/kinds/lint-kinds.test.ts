import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRepository } from '../../../../src/conformance/lint/repository.js';
import type { LintInput } from '../../../../src/conformance/lint/types.js';
import { CHECK_KINDS } from '../../../../src/conformance/rules/kinds/index.js';
import { LINT_KINDS } from '../../../../src/conformance/rules/kinds/lint.js';
import { contextOf } from '../../../support/rule-context.js';

/**
 * The lint kinds run in process on this repository's own checkout (fixtures/, the published
 * contract, the generated reference), read once and then altered per test: a check that needs a
 * part the checkout lacks finds nothing, every other check runs (docs/lint.md).
 */
const CHECKOUT = readRepository(join(import.meta.dirname, '..', '..', '..', '..'));

function runLint(kind: string, lint: LintInput) {
  return CHECK_KINDS[kind]!.run({}, contextOf([], { lint }));
}

/** The checkout with one manifest listing a tool no profile has. */
function withStrayManifestTool(input: LintInput): LintInput {
  return { ...input, manifests: [{ file: 'plugin.json', tools: [{ name: 'b2_no_such_tool', line: 7 }] }] };
}

describe('lint kinds on a checkout', () => {
  it('this repository lints clean with every lint kind', () => {
    expect(Object.keys(LINT_KINDS).length).toBeGreaterThan(20);
    for (const kind of Object.keys(LINT_KINDS)) expect(runLint(kind, CHECKOUT), kind).toEqual([]);
  });

  it('a check needing no contract still runs in a checkout without one: a manifest tool of no profile is reported', () => {
    const found = runLint(
      'lint-manifest-unknown-tools',
      withStrayManifestTool({ ...CHECKOUT, contract: undefined, referenceDoc: undefined }),
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ tool: 'b2_no_such_tool', data: { file: 'plugin.json', line: 7 } });
  });

  it('every check needing the contract or the reference doc finds nothing in a checkout without it', () => {
    const bare = { ...CHECKOUT, contract: undefined, referenceDoc: undefined };
    const needing = Object.keys(LINT_KINDS).filter((kind) => /^lint-(contract|reference)-|^lint-prose-backing-counts$/.test(kind));
    expect(needing.length).toBeGreaterThan(10);
    for (const kind of needing) expect(runLint(kind, bare), kind).toEqual([]);
  });

  it('a reference doc that differs from what the generator writes is reported when the checkout has one', () => {
    const reference = CHECKOUT.referenceDoc!;
    const edited = { ...CHECKOUT, referenceDoc: { ...reference, text: `${reference.text}\nA line added by hand.` } };
    const found = runLint('lint-reference-generated', edited);
    expect(found).toHaveLength(1);
    expect(found[0]!.data).toMatchObject({ file: reference.file, expectedLine: '(end of file)' });
  });
});
