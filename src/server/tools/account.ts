import type { ToolDefinition, ToolHandler } from './definition.js';

/** A fresh authorization; the client already dropped the token from the account info. */
const authorizeAccount: ToolHandler = async (_args, context) => ({
  structured: (await context.b2().authorize({ force: true, signal: context.signal })).response,
});

export const accountTools: ToolDefinition[] = [
  {
    name: 'b2_authorize_account',
    title: 'Authorize account',
    description: 'Re-authorize the configured B2 key and return account info: account id, API URLs, allowed capabilities, bucket and name-prefix restrictions. The auth token is never returned.',
    input: { properties: {} },
    backing: 'nativeB2Sdk',
    capabilities: 'unmapped',
    effect: 'read',
    handler: authorizeAccount,
  },
];
