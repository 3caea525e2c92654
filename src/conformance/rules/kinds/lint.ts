import * as contract from '../../lint/contract-checks.js';
import * as fixtures from '../../lint/fixture-checks.js';
import * as manifests from '../../lint/manifest-checks.js';
import * as prose from '../../lint/prose-checks.js';
import * as reference from '../../lint/reference-doc.js';
import type { LintInput } from '../../lint/types.js';
import type { CheckKind, RawFinding } from '../types.js';

/** A check of the linted checkout; one that needs a part the checkout lacks (a contract, a reference doc) finds nothing. */
function lintKind(run: (input: LintInput) => RawFinding[], part?: 'contract' | 'referenceDoc'): CheckKind {
  return {
    params: { type: 'object', properties: {}, additionalProperties: false },
    needs: ['lint'],
    run: (_params, context) => (part && context.lint![part] === undefined ? [] : run(context.lint!)),
  };
}

export const LINT_KINDS: Record<string, CheckKind> = {
  'lint-fixture-hash': lintKind(fixtures.fixtureHashes),
  'lint-fixture-identity': lintKind(fixtures.fixtureIdentity),
  'lint-fixture-names': lintKind(fixtures.fixtureNames),
  'lint-fixture-counts': lintKind(fixtures.fixtureCounts),
  'lint-fixture-derived': lintKind(fixtures.fixtureDerived),
  'lint-eras-agree': lintKind(fixtures.erasAgree),
  'lint-prompt-fixture-hash': lintKind(fixtures.promptFixtureHashes),
  'lint-contract-profiles': lintKind(contract.contractProfiles, 'contract'),
  'lint-contract-fixture-paths': lintKind(contract.contractFixturePaths, 'contract'),
  'lint-contract-names-hash': lintKind(contract.contractNamesAndHash, 'contract'),
  'lint-contract-counts': lintKind(contract.contractCounts, 'contract'),
  'lint-contract-derived': lintKind(contract.contractDerived, 'contract'),
  'lint-contract-tool-backing': lintKind(contract.contractToolBacking, 'contract'),
  'lint-contract-backing-counts': lintKind(contract.contractBackingCounts, 'contract'),
  'lint-contract-naming': lintKind(contract.contractNaming, 'contract'),
  'lint-contract-prompts': lintKind(contract.contractPrompts, 'contract'),
  'lint-reference-generated': lintKind(reference.referenceDocGenerated, 'referenceDoc'),
  'lint-reference-profiles': lintKind(reference.referenceDocProfiles, 'referenceDoc'),
  'lint-reference-counts': lintKind(reference.referenceDocCounts, 'referenceDoc'),
  'lint-reference-hashes': lintKind(reference.referenceDocHashes, 'referenceDoc'),
  'lint-reference-names': lintKind(reference.referenceDocNames, 'referenceDoc'),
  'lint-reference-backing': lintKind(reference.referenceDocBacking, 'referenceDoc'),
  'lint-prose-counts': lintKind(prose.proseToolCounts),
  'lint-prose-backing-counts': lintKind(prose.proseBackingCounts, 'contract'),
  'lint-prose-unknown-names': lintKind(prose.proseUnknownNames),
  'lint-prose-retired-names': lintKind(prose.proseRetiredNames),
  'lint-manifest-unknown-tools': lintKind(manifests.manifestUnknownTools),
  'lint-manifest-missing-tools': lintKind(manifests.manifestMissingTools),
};
