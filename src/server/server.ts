import {
  fromJsonSchema,
  McpServer,
  type CallToolResult,
  type InputRequiredResult,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import { APPROVED_CACHE_HINT, SERVER_NAME, type Era, type ProfileName } from '../contract/constants.js';
import type { Backends } from './backends.js';
import { B2Error } from './b2/errors.js';
import type { Credentials, ServerConfig } from './config.js';
import type { ToolContext } from './context.js';
import type { Logger } from './logger.js';
import { type ConfirmationStates, evaluateGate } from './policy/gate.js';
import { type Sanitizer, sanitizeProviderCode, sanitizeRequestId } from './policy/sanitize.js';
import { lazyInputValidator } from './policy/input-validator.js';
import { errorResult, formatToolError, successResult, type TextEncoder } from './policy/serialize.js';
import { TOON_SPEC_VERSION } from './policy/toon.js';
import type { PromptDefinition } from './prompts/definition.js';
import { promptArgsSchema } from './prompts/wire.js';
import type { ResolvedTool } from './registry.js';
import type { SecretStore } from './secrets/store.js';
import { ToolError, type StatusError } from './errors.js';
import type { ToolOutcome } from './tools/definition.js';
import type { ToolArgs } from './tools/schema.js';

/** What one credential sees: its tool surface and the backends bound to it. */
export interface CredentialSession {
  surface: readonly ResolvedTool[];
  /** Empty unless prompts are enabled. */
  prompts: readonly PromptDefinition[];
  /** One factory per credential; it builds an McpServer per connection (stdio) or request (HTTP). */
  factory: McpServerFactory;
}

/** Everything one server process shares across connections and requests. */
export interface ServerRuntime {
  config: ServerConfig;
  version: string;
  logger: Logger;
  sanitizer: Sanitizer;
  states: ConfirmationStates;
  /** The durable-secret sink, opened once at start-up; absent when the sink is off. */
  secrets?: SecretStore | undefined;
  /**
   * The session for a credential (the process's own when omitted), created once and cached by
   * a fingerprint of the credential. HTTP `headers` mode calls it per request. A `ceiling`
   * (an OAuth token's scope) narrows the surface to what that profile's key could do as well;
   * a `principal` (the token's verified subject) gets sessions, and idempotency records, of its own.
   */
  sessionFor(credentials?: Credentials, ceiling?: ProfileName, principal?: string): Promise<CredentialSession>;
}

const FORMAT_SENTENCE: Record<ServerConfig['outputFormat'], string> = {
  json: 'Structured results carry structuredContent; their text block is compact JSON.',
  toon: `Structured results carry structuredContent; their text block is TOON (spec ${TOON_SPEC_VERSION}), with compact JSON when a result is too large for it.`,
  auto: `Structured results carry structuredContent; their text block is TOON (spec ${TOON_SPEC_VERSION}) or compact JSON, whichever is shorter for that result.`,
};

function instructions(config: ServerConfig): string {
  return [
    'Backblaze B2 tools: b2_* for account, buckets, keys, Object Lock and usage analytics; s3_* for objects and multipart uploads.',
    'Destructive or protection-weakening calls take confirm: true only after the user explicitly approved that exact call; never approve on their behalf.',
    'Credentials are never accepted as tool arguments and never returned.',
    FORMAT_SENTENCE[config.outputFormat],
  ].join(' ');
}

type ElicitationCapabilities = { elicitation?: unknown } | undefined;

function supportsFormElicitation(capabilities: ElicitationCapabilities): boolean {
  const elicitation = capabilities?.elicitation;
  if (elicitation === null || typeof elicitation !== 'object') return false;
  return Object.keys(elicitation).length === 0 || 'form' in elicitation;
}

function sanitizeOutcome(outcome: ToolOutcome, sanitizer: Sanitizer, config: ServerConfig): ToolOutcome {
  if ('text' in outcome) return { text: sanitizer.text(outcome.text) };
  // The one exception to sanitizing (contract §8.2): an inline-sink secret result, by operator opt-in.
  if (outcome.containsSecret && config.secretSink === 'inline') return outcome;
  return { structured: sanitizer.value(outcome.structured) };
}

/** What a session's tools are bound to. */
export interface SessionBinding {
  surface: readonly ResolvedTool[];
  prompts: readonly PromptDefinition[];
  capabilities: ReadonlySet<string> | null;
  /** Absent when the process runs without a key (pinned profile): calls needing B2 then fail clearly. */
  backends?: Backends | undefined;
  /** A non-secret id of the credential (see `callerIdOf`). */
  callerId?: string;
  /** What no local file may carry to B2 (see `ToolContext.protectedValues`). */
  protectedValues: readonly string[];
}

function missingCredentials(): never {
  throw new ToolError(
    401,
    'missing_credentials',
    'No B2 application key is configured for this server (set B2_APPLICATION_KEY_ID and B2_APPLICATION_KEY).',
  );
}

/** Tool and B2 failures carry their own status and code; everything else is an internal error. */
function knownFailure(error: unknown): StatusError | undefined {
  return error instanceof ToolError || error instanceof B2Error ? error : undefined;
}

/** The client's declared capabilities: per request in the modern era, per connection in the legacy one. */
function clientCapabilitiesOf(era: Era, envelope: unknown, server: McpServer): ElicitationCapabilities {
  return era === 'modern'
    ? (envelope as Record<string, ElicitationCapabilities> | undefined)?.['io.modelcontextprotocol/clientCapabilities']
    : server.server.getClientCapabilities();
}

/** Builds one McpServer per connection (stdio) or request (HTTP), for either era. */
export function createServerFactory(runtime: Omit<ServerRuntime, 'sessionFor'>, binding: SessionBinding): McpServerFactory {
  const { surface, prompts, backends } = binding;
  const { config, logger, sanitizer } = runtime;
  // Everything a handler gets except the request's own abort signal.
  const sessionContext: Omit<ToolContext, 'signal'> = {
    config,
    logger,
    capabilities: binding.capabilities,
    b2: () => backends?.b2 ?? missingCredentials(),
    partner: () => backends?.partner ?? missingCredentials(),
    s3: async () => (backends ? backends.s3() : missingCredentials()),
    secrets: runtime.secrets,
    callerId: binding.callerId,
    protectedValues: () => [...binding.protectedValues, ...(runtime.secrets?.knownSecrets() ?? [])],
    redaction: sanitizer,
  };
  const warnedFallbacks = new Set<string>();
  const encoder: TextEncoder = {
    format: config.outputFormat,
    onToonFallback: (reason) => {
      if (warnedFallbacks.has(reason)) return;
      warnedFallbacks.add(reason);
      logger.warn('tool.output_format.toon_fallback', { reason });
    },
  };

  return ({ era }: { era: Era }) => {
    const server = new McpServer(
      { name: SERVER_NAME, version: runtime.version },
      {
        instructions: instructions(config),
        capabilities: { tools: { listChanged: false }, ...(config.promptsEnabled && { prompts: { listChanged: false } }) },
        cacheHints: {
          'tools/list': { ...APPROVED_CACHE_HINT },
          'server/discover': { ...APPROVED_CACHE_HINT },
          ...(config.promptsEnabled && { 'prompts/list': { ...APPROVED_CACHE_HINT } }),
        },
        maxToolInputElements: 20_000,
        // A confirmation question left unanswered ends the call; progress cannot extend it (mcp-route.ts drops the client's).
        inputRequired: { roundTimeoutMs: config.elicitationTimeoutMs },
      },
    );

    for (const tool of surface) {
      const { definition } = tool;
      server.registerTool(
        definition.name,
        {
          title: definition.title,
          description: definition.description,
          inputSchema: fromJsonSchema<ToolArgs>(tool.inputSchema, lazyInputValidator),
          annotations: tool.annotations,
        },
        async (args: ToolArgs, ctx): Promise<CallToolResult | InputRequiredResult> => {
          const started = performance.now();
          let outcomeLabel = 'ok';
          try {
            const effect = tool.stub ? undefined : definition.gate?.(args);
            if (effect) {
              const clientCapabilities = clientCapabilitiesOf(era, ctx.mcpReq.envelope, server);
              const gate = evaluateGate(
                {
                  toolName: definition.name,
                  effect,
                  args,
                  policy: config.destructivePolicy,
                  canElicit: config.elicitation && supportsFormElicitation(clientCapabilities),
                  inputResponses: ctx.mcpReq.inputResponses,
                  requestState: ctx.mcpReq.requestState<string>(),
                  display: sanitizer.text,
                },
                runtime.states,
              );
              if (gate.kind === 'ask') {
                outcomeLabel = 'input_required';
                return gate.result;
              }
            }
            const outcome = await definition.handler(args, { ...sessionContext, signal: ctx.mcpReq.signal });
            return successResult(sanitizeOutcome(outcome, sanitizer, config), encoder);
          } catch (error) {
            const known = knownFailure(error);
            const toolError = known ?? new ToolError(500, 'internal_error', 'The tool failed unexpectedly; see the server log.');
            // A backend's code and request id reach the model and the log only if they look like a code and an id.
            const shown = {
              status: toolError.status,
              code: sanitizeProviderCode(toolError.code, sanitizer),
              message: toolError.message,
              requestId: sanitizeRequestId(toolError.requestId, sanitizer),
            };
            outcomeLabel = shown.code;
            // The logger sanitizes in log mode, which keeps an Error's name, message and stack (the result sanitizer would leave {}).
            if (!known) logger.error('tool.error', { tool: definition.name, error });
            return errorResult(sanitizer.text(formatToolError(shown)));
          } finally {
            logger.info('tool.call', {
              tool: definition.name,
              era,
              argKeys: Object.keys(args ?? {}),
              outcome: outcomeLabel,
              durationMs: Math.round(performance.now() - started),
            });
          }
        },
      );
    }
    for (const prompt of prompts) {
      server.registerPrompt(
        prompt.name,
        {
          title: prompt.title,
          description: prompt.description,
          argsSchema: fromJsonSchema<Record<string, string>>(promptArgsSchema(prompt), lazyInputValidator),
        },
        async (args: Record<string, string>) => ({
          description: prompt.description,
          messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.render(args) } }],
        }),
      );
    }
    return server;
  };
}
