import { describe, expect, it } from 'vitest';
import { evaluate, loadRules } from '../../../src/conformance/rules/engine.js';
import { contextOf, surface } from '../../support/rule-context.js';

/**
 * A pack holds only what is true for the servers it is meant for: the generic pack judges any MCP
 * server, so the B2 conventions (the confirm input's shape, inputs merely named like a secret)
 * stay in the b2 pack.
 */
const ruleSet = loadRules();

/** A destructive tool shaped like a published git server's: a required confirm string. */
const GIT_RESET = {
  name: 'git_reset',
  description: 'Reset the current branch to a commit; with mode hard, uncommitted changes are lost.',
  inputSchema: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      mode: { type: 'string', enum: ['soft', 'mixed', 'hard'], description: 'How far to reset.' },
      confirm: { type: 'string', enum: ['Y', 'y', 'Yes', 'yes'], description: 'Type Y to confirm a hard reset.' },
      secret_type: { type: 'string', description: 'Only report leaked secrets of this type.' },
      options: { type: 'object', properties: { nextToken: { type: 'string', description: 'Where the previous page ended.' } } },
    },
    required: ['mode', 'confirm'],
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
};

function firedIn(pack: string, tool: Record<string, unknown> & { name: string }): string[] {
  const rules = ruleSet.rules.filter((rule) => rule.packs.includes(pack));
  const tools = [tool];
  const observation = { bounded: [], serverInfo: { name: 'git-test', version: '2.10.5' } };
  const surfaces = [surface('modern', tools), surface('legacy', tools)].map((one) => ({ ...one, observation }));
  return evaluate({ ...ruleSet, rules }, contextOf([], {}, surfaces), (rule) => rule.severity, 'findings').findings.map(
    (finding) => finding.ruleId,
  );
}

describe('B2 conventions stay in the b2 pack', () => {
  it('generic: a required confirm string, a secret_type filter and a nextToken cursor are no findings', () => {
    expect(firedIn('generic', GIT_RESET)).toEqual([]);
  });

  it('b2: the same tool breaks the confirm shape (boolean, optional) and the secret-name rules', () => {
    expect(firedIn('b2', GIT_RESET)).toEqual(
      expect.arrayContaining([
        'gating/confirm-boolean',
        'gating/confirm-optional',
        'credentials/secret-input',
        'credentials/secret-like-nested',
      ]),
    );
  });

  it('generic still judges what holds for any server: a credential field by name', () => {
    const withKey = structuredClone(GIT_RESET);
    (withKey.inputSchema.properties as Record<string, unknown>).apiKey = { type: 'string' };
    expect(firedIn('generic', withKey)).toEqual(['credentials/prohibited-field']);
  });
});
