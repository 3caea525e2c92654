import { CHANGE_KINDS } from '../../diff.js';
import type { CheckKind } from '../types.js';

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
        data: { before: show(change.before), after: show(change.after), where: change.path ? ` at ${change.path}` : '' },
        ...(typeof change.before === 'string' && typeof change.after === 'string' ? { text: { before: change.before, after: change.after } } : {}),
      }));
  },
};

export const CHANGE_CHECK_KINDS: Record<string, CheckKind> = {
  'diff-change': diffChange,
};
