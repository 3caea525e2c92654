import { toolInput } from './schema.js';
import { defineTool, type ToolDefinition, type ToolHandler } from './definition.js';

const authorizeAccountInput = toolInput({});

/** A fresh authorization; the client already dropped the token from the account info. */
const authorizeAccount: ToolHandler<typeof authorizeAccountInput> = async (_args, context) => ({
  structured: (await context.b2().authorize({ force: true, signal: context.signal })).response,
});

export const accountTools: ToolDefinition[] = [
  defineTool({
    name: 'b2_authorize_account',
    title: 'Authorize account',
    description:
      'Re-authorize the configured key; returns account id, API URLs, capabilities and bucket/prefix restrictions, never the auth token.',
    input: authorizeAccountInput,
    backing: 'nativeB2Sdk',
    capabilities: 'unmapped',
    effect: 'read',
    handler: authorizeAccount,
  }),
];
