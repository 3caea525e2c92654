import { describe, expect, it } from 'vitest';
import type { Change } from '../../../../src/conformance/diff/changes.js';
import { CHECK_KINDS } from '../../../../src/conformance/rules/kinds/index.js';
import { contextOf } from '../../../support/rule-context.js';

/**
 * What a change finding carries for its message and its text diff (rules/diff.json and
 * rules/contract.json messages use `before`, `after`, `profileName`, `gained` and `lost`): values as
 * a message shows them, and the prose a reviewer reads, as far as each side is known.
 */
function findings(kind: 'diff-change' | 'contract-change', change: Change) {
  return CHECK_KINDS[kind]!.run({ change: change.kind }, contextOf([], { changes: [{ scope: 'modern', change }] }));
}

function only(kind: 'diff-change' | 'contract-change', change: Change) {
  const found = findings(kind, change);
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe('a value as a message shows it', () => {
  it('an empty string is shown as "" (not as nothing), a string of exactly 120 characters whole', () => {
    const exact = 'y'.repeat(120);
    const found = only('diff-change', {
      kind: 'default-changed',
      tool: 'b2_x_y',
      path: 'inputSchema.properties.a.default',
      before: '',
      after: exact,
    });
    expect(found.data).toMatchObject({ before: '""', after: exact });
  });

  it('a string one character longer than 120 is cut with an ellipsis', () => {
    const found = only('diff-change', {
      kind: 'default-changed',
      tool: 'b2_x_y',
      path: 'inputSchema.properties.a.default',
      before: 'z'.repeat(121),
      after: 'a',
    });
    expect(found.data).toMatchObject({ before: `${'z'.repeat(120)}…`, after: 'a' });
  });
});

describe('the text a change finding carries', () => {
  it("the differ's own text wins: an added tool carries its description, though its values are not strings", () => {
    const found = only('diff-change', {
      kind: 'tool-added',
      tool: 'b2_x_y',
      path: '',
      after: { name: 'b2_x_y' },
      text: { after: 'Lists the buckets.' },
    });
    expect(found.text).toStrictEqual({ after: 'Lists the buckets.' });
  });

  it('a value that is not prose gets a word diff only when both sides are strings', () => {
    const path = 'inputSchema.properties.a.default';
    expect('text' in only('diff-change', { kind: 'default-changed', tool: 'b2_x_y', path, before: 5, after: 'five' })).toBe(false);
    expect('text' in only('diff-change', { kind: 'default-changed', tool: 'b2_x_y', path, before: 'five', after: 5 })).toBe(false);
  });

  it.each([
    ['description-changed', 'description'],
    ['instructions-changed', 'instructions'],
  ] as const)('%s: a side that is absent is left out of the text, the other shown in full', (kind, path) => {
    const tool = kind === 'description-changed' ? 'b2_x_y' : undefined;
    expect(only('diff-change', { kind, tool, path, before: undefined, after: 'New words.' }).text).toStrictEqual({ after: 'New words.' });
    expect(only('diff-change', { kind, tool, path, before: 'Old words.', after: undefined }).text).toStrictEqual({ before: 'Old words.' });
    expect(only('diff-change', { kind, tool, path, before: 'Old.', after: 'New.' }).text).toStrictEqual({ before: 'Old.', after: 'New.' });
    expect('text' in only('diff-change', { kind, tool, path, before: undefined, after: undefined })).toBe(false);
  });
});

describe('contract changes name their profile', () => {
  it('a profile change carries profileName and is keyed by the profile; a tool change carries no profileName', () => {
    const profile = only('contract-change', {
      kind: 'contract-description-changed',
      profile: 'read-only',
      path: 'profiles.read-only.description',
      before: 'Reads.',
      after: 'Reads and lists.',
    });
    expect(profile).toMatchObject({
      key: 'read-only',
      data: { profileName: 'read-only' },
      text: { before: 'Reads.', after: 'Reads and lists.' },
    });
    const tool = only('diff-change', { kind: 'description-changed', tool: 'b2_x_y', path: 'description', before: 'a', after: 'b' });
    expect('profileName' in tool.data!).toBe(false);
  });

  it('a change of a list says what it gained and lost', () => {
    const found = only('contract-change', {
      kind: 'contract-key-capabilities-changed',
      profile: 'writer',
      path: 'profiles.writer.capabilities',
      before: ['listBuckets', 'deleteFiles'],
      after: ['listBuckets', 'writeFiles'],
    });
    expect(found.data).toMatchObject({ profileName: 'writer', gained: 'writeFiles', lost: 'deleteFiles' });
  });
});
