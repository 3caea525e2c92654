import type { CheckKind } from '../types.js';

/** A configured suppression that matched no finding: the config is stale. */
const staleSuppression: CheckKind = {
  params: { type: 'object', properties: {} },
  needs: ['suppressions'],
  run(_params, context) {
    return (context.suppressions?.stale ?? []).map(({ index, description }) => ({
      path: `suppressions[${index}]`,
      key: description,
      data: { index, suppression: description },
    }));
  },
};

/** A suppression past its `expires` date: it no longer hides anything. */
const expiredSuppression: CheckKind = {
  params: { type: 'object', properties: {} },
  needs: ['suppressions'],
  run(_params, context) {
    return (context.suppressions?.expired ?? []).map(({ index, description, expires }) => ({
      path: `suppressions[${index}]`,
      key: description,
      data: { index, suppression: description, expires },
    }));
  },
};

export const SUPPRESSION_KINDS: Record<string, CheckKind> = {
  'stale-suppression': staleSuppression,
  'expired-suppression': expiredSuppression,
};
