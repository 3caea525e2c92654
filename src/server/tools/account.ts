import type { ToolDefinition, ToolHandler } from './definition.js';

/** A fresh authorization; the client already dropped the token from the account info. */
const authorizeAccount: ToolHandler = async (_args, context) => ({
  structured: (await context.b2().authorize({ force: true, signal: context.signal })).response,
});

export const accountTools: ToolDefinition[] = [
  {
    name: 'b2_authorize_account',
    title: 'Authorize account',
    description: 'Re-authorize the configured key; returns account id, API URLs, capabilities and bucket/prefix restrictions, never the auth token.',
    input: { properties: {} },
    backing: 'nativeB2Sdk',
    capabilities: 'unmapped',
    effect: 'read',
    handler: authorizeAccount,
  },
];
