import { requireCapability } from '../s3/rules.js';
import { defineTool, type GateTrigger, type ToolDefinition, type ToolHandler } from './definition.js';
import { boolean, integer, nullable, object, oneOf, string, toolInput } from './schema.js';

const fileId = string({ minLength: 1 });
const fileName = string({ minLength: 1 });

const legalHoldInput = toolInput({ fileId, fileName, legalHold: oneOf(['on', 'off']) }, ['fileId', 'fileName', 'legalHold']);

const retentionInput = toolInput(
  {
    fileId,
    fileName,
    fileRetention: object(
      {
        mode: nullable(oneOf(['governance', 'compliance'])),
        retainUntilTimestamp: nullable(integer(0, Number.MAX_SAFE_INTEGER, { description: 'Milliseconds since epoch.' })),
      },
      ['mode', 'retainUntilTimestamp'],
    ),
    bypassGovernance: boolean(),
  },
  ['fileId', 'fileName', 'fileRetention'],
);

const retentionEffects: GateTrigger<typeof retentionInput> = (args) => {
  const effects: string[] = [];
  if (args.fileRetention.mode === null) effects.push("remove the file's retention");
  if (args.bypassGovernance === true) effects.push('bypass governance-mode retention');
  return effects.length > 0 ? effects.join(' and ') : undefined;
};

const updateLegalHold: ToolHandler<typeof legalHoldInput> = async (args, context) => ({
  structured: await context
    .b2()
    .updateFileLegalHold({ fileId: args.fileId, fileName: args.fileName, legalHold: args.legalHold }, { signal: context.signal }),
});

const updateRetention: ToolHandler<typeof retentionInput> = async (args, context) => {
  const bypassGovernance = args.bypassGovernance === true;
  if (bypassGovernance) requireCapability(context.capabilities, 'bypassGovernance', 'bypassGovernance: true');
  const request = { fileId: args.fileId, fileName: args.fileName, fileRetention: args.fileRetention, bypassGovernance };
  return { structured: await context.b2().updateFileRetention(request, { signal: context.signal }) };
};

export const fileTools: ToolDefinition[] = [
  defineTool({
    name: 'b2_update_file_legal_hold',
    title: 'Update file legal hold',
    description: "Turn a file version's legal hold on or off; off needs confirmation.",
    input: legalHoldInput,
    backing: 'nativeB2Sdk',
    capabilities: ['writeFileLegalHolds'],
    effect: 'idempotent-write',
    gate: (args) => (args.legalHold === 'off' ? 'release the legal hold so the file can be deleted' : undefined),
    handler: updateLegalHold,
  }),
  defineTool({
    name: 'b2_update_file_retention',
    title: 'Update file retention',
    description:
      "Set or clear a file version's Object Lock retention (null mode and retainUntilTimestamp clear); clearing or bypassing governance needs confirmation.",
    input: retentionInput,
    backing: 'nativeB2Sdk',
    capabilities: ['writeFileRetentions'],
    effect: 'idempotent-write',
    gate: retentionEffects,
    handler: updateRetention,
  }),
];
