import { listDeltaText } from '../../diff/contract.js';
import { CHANGE_KINDS, CONTRACT_CHANGE_KINDS, type Change, type ChangedText, type RenameBasis } from '../../diff/changes.js';
import type { CheckKind } from '../types.js';

/** How a rename was recognised, in words a reviewer can weigh. */
function renameBasisText(basis: RenameBasis | undefined): string {
  if (basis === undefined || basis.by === 'definition') return 'same definition';
  if (basis.by === 'contract')
    return basis.reverted ? 'back to its former name, which the contract retired' : 'a rename the contract records';
  if (basis.by === 'spelling') return 'the same words in another naming style';
  return `recognised by similarity, confidence ${basis.confidence}: same required inputs, ${basis.shared} of ${basis.total} input names in common`;
}

/** Longest value a message shows; the finding's `text` (or the JSON report) carries the rest. */
const SHOWN_CHARACTERS = 120;

/** A value as a message shows it: `absent`, `""` for an empty string, other strings as they are, anything else as JSON, bounded with an ellipsis. */
export function shownValue(value: unknown): string {
  if (value === undefined) return 'absent';
  const text = value === '' ? '""' : typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > SHOWN_CHARACTERS ? `${text.slice(0, SHOWN_CHARACTERS)}…` : text;
}

/** Kinds whose values are prose a model reads: a side that is a string is shown in full, even when the other side is absent. */
const PROSE_KINDS = new Set<string>(['description-changed', 'instructions-changed', 'prompt-text-changed', 'contract-description-changed']);

/** The text a finding shows: the differ's own, else the prose on either side, else two strings (a word diff of the values). */
function textOf(change: Change): ChangedText | undefined {
  if (change.text) return change.text;
  if (change.kind === 'tool-renamed') return undefined;
  const before = typeof change.before === 'string' ? change.before : undefined;
  const after = typeof change.after === 'string' ? change.after : undefined;
  if (PROSE_KINDS.has(change.kind) && (before !== undefined || after !== undefined))
    return { ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) };
  return before !== undefined && after !== undefined ? { before, after } : undefined;
}

/** A change as a finding: where it is, its values as a message shows them, and its text. */
function findingOf(scope: string, change: Change) {
  const text = textOf(change);
  const delta = listDeltaText(change.before, change.after);
  return {
    tool: change.tool,
    prompt: change.prompt,
    path: change.path || undefined,
    scope,
    key: change.kind === 'tool-renamed' ? String(change.before) : change.profile,
    ...(change.rename?.by === 'similarity' ? { confidence: change.rename.confidence } : {}),
    data: {
      before: shownValue(change.before),
      after: shownValue(change.after),
      where: change.path ? ` at ${change.path}` : '',
      ...(change.profile !== undefined ? { profileName: change.profile } : {}),
      ...(delta ?? {}),
      ...(change.kind === 'tool-renamed' ? { basis: renameBasisText(change.rename) } : {}),
    },
    ...(change.schemas ? { schemas: change.schemas } : {}),
    ...(text ? { text } : {}),
  };
}

/** The check kind of a family of changes: each rule names the one change kind it reports. */
function changeKind(kinds: readonly string[]): CheckKind {
  return {
    params: { type: 'object', properties: { change: { enum: [...kinds] } }, required: ['change'] },
    needs: ['changes'],
    run(params, context) {
      return context.changes.filter(({ change }) => change.kind === params.change).map(({ scope, change }) => findingOf(scope, change));
    },
  };
}

export const CHANGE_CHECK_KINDS: Record<string, CheckKind> = {
  /** Differences between the expected fixtures and what was found (or two fixture sets). */
  'diff-change': changeKind(CHANGE_KINDS),
  /** Differences between two contract artifacts (diff only). */
  'contract-change': changeKind(CONTRACT_CHANGE_KINDS),
};
