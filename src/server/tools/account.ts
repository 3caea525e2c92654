import type { ToolDefinition } from './definition.js';
import { pendingHandler } from './pending.js';

export const accountTools: ToolDefinition[] = [
  {
    name: 'b2_authorize_account',
    title: 'Authorize account',
    description: 'Re-authorize the configured B2 key and return account info: account id, API URLs, allowed capabilities, bucket and name-prefix restrictions. The auth token is never returned.',
    input: { properties: {} },
    backing: 'nativeB2Sdk',
    capabilities: 'unmapped',
    effect: 'read',
    handler: pendingHandler('b2_authorize_account'),
  },
];
