import { CHANGE_KINDS, type RenameBasis } from '../../diff.js';
import type { CheckKind } from '../types.js';

/** How a rename was recognised, in words a reviewer can weigh. */
function renameBasisText(basis: RenameBasis | undefined): string {
  if (basis === undefined || basis.by === 'definition') return 'same definition';
  if (basis.by === 'contract') return basis.reverted ? 'back to its former name, which the contract retired' : 'a rename the contract records';
  return `recognised by similarity, confidence ${basis.confidence}: same required inputs, ${basis.shared} of ${basis.total} input names in common`;
}

/** Differences between the expected fixtures and what was found, as a change kind names them. */
const diffChange: CheckKind = {
  params: { type: 'object', properties: { change: { enum: [...CHANGE_KINDS] } }, required: ['change'] },
  needs: ['changes'],
  run(params, context) {
    const show = (value: unknown) => (value === undefined ? 'absent' : typeof value === 'string' ? value : JSON.stringify(value).slice(0, 120));
    return context.changes
      .filter(({ change }) => change.kind === params.change)
      .map(({ scope, change }) => ({
        tool: change.tool,
        prompt: change.prompt,
        path: change.path || undefined,
        scope,
        key: change.kind === 'tool-renamed' ? String(change.before) : undefined,
        ...(change.rename?.by === 'similarity' ? { confidence: change.rename.confidence } : {}),
        data: {
          before: show(change.before),
          after: show(change.after),
          where: change.path ? ` at ${change.path}` : '',
          ...(change.kind === 'tool-renamed' ? { basis: renameBasisText(change.rename) } : {}),
        },
        ...(change.schemas ? { schemas: change.schemas } : {}),
        ...(change.kind !== 'tool-renamed' && typeof change.before === 'string' && typeof change.after === 'string' ? { text: { before: change.before, after: change.after } } : {}),
      }));
  },
};

export const CHANGE_CHECK_KINDS: Record<string, CheckKind> = {
  'diff-change': diffChange,
};
