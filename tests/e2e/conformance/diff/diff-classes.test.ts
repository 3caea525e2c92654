import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TOOL_CHANGE_KINDS, type ToolChangeKind } from '../../../../src/conformance/diff/changes.js';
import { diffFixtureDirs } from '../../../../src/conformance/commands/diff.js';
import { baselineSurface, type Surface } from '../../../support/baseline.js';
import {
  check,
  firedRules,
  mutate,
  propsOf,
  removeTempDirs,
  snapshotFixtures,
  startSurfaceHttp,
  tempDir,
  toolOf,
  writeContract,
  type SurfaceHttpServer,
} from '../../../support/checker-harness.js';

/**
 * One server change per diff class. Live: the changed server is checked against the baseline's
 * fixtures and contract, and must be caught by exactly `diff/<kind>`, as an error (the contract is
 * frozen). Offline: `diff baseline changed` must report exactly that rule, at its class severity.
 */
interface Change {
  kind: ToolChangeKind;
  /** The server the fixtures are taken from, when not the baseline: a change toward the baseline. */
  before?: (surface: Surface) => void;
  surface: (surface: Surface) => void;
  /** Where the finding points (tool, path). */
  at: { tool?: string; path?: string };
}

/** An output schema for b2_list_buckets, and its properties. */
const BUCKETS_OUTPUT = { type: 'object', properties: { buckets: { type: 'array' }, count: { type: 'integer' } }, required: ['buckets'] };
const withOutput = (surface: Surface) => void (toolOf(surface, 'b2_list_buckets').outputSchema = structuredClone(BUCKETS_OUTPUT));
const outputOf = (surface: Surface) =>
  toolOf(surface, 'b2_list_buckets').outputSchema!.properties as Record<string, Record<string, unknown>>;
/** `execution.taskSupport` on b2_list_buckets (third in the listing), which the SDK servers do not let a test tool declare. */
const taskSupport = (value: string) => ({ resultKey: 'tools', path: 'tools.2.execution', set: { taskSupport: value } });
/** The logging capability, declared in `initialize` and `server/discover` alike. */
const LOGGING = { resultKey: 'capabilities', path: 'capabilities.logging', set: {} };
const experimental = (value: Record<string, unknown>) => ({ resultKey: 'capabilities', path: 'capabilities.experimental', set: value });

const itemsOf = (surface: Surface) => propsOf(surface, 'b2_update_bucket').lifecycleRules!.items as Record<string, unknown>;

const CHANGES: Change[] = [
  {
    kind: 'tool-removed',
    surface: (s) => void (s.tools = s.tools.filter((tool) => tool.name !== 's3_put_object')),
    at: { tool: 's3_put_object' },
  },
  {
    kind: 'tool-renamed',
    surface: (s) => void (toolOf(s, 'b2_unfinished_uploads').name = 'b2_report_unfinished_uploads'),
    at: { tool: 'b2_report_unfinished_uploads' },
  },
  {
    kind: 'tool-added',
    surface: (s) =>
      void s.tools.splice(3, 0, {
        ...structuredClone(toolOf(s, 'b2_list_buckets')),
        name: 'b2_list_keys',
        description: 'List the application keys of the account, without their secrets.',
      }),
    at: { tool: 'b2_list_keys' },
  },
  {
    kind: 'required-added',
    surface: (s) => void (toolOf(s, 's3_list_objects_v2').inputSchema!.required = ['bucket', 'prefix']),
    at: { tool: 's3_list_objects_v2', path: 'inputSchema.properties.prefix' },
  },
  {
    kind: 'required-removed',
    surface: (s) => void (toolOf(s, 's3_put_object').inputSchema!.required = ['bucket']),
    at: { tool: 's3_put_object', path: 'inputSchema.properties.key' },
  },
  {
    kind: 'property-removed',
    surface: (s) => void delete propsOf(s, 's3_list_objects_v2').prefix,
    at: { tool: 's3_list_objects_v2', path: 'inputSchema.properties.prefix' },
  },
  {
    kind: 'property-added',
    surface: (s) => void (propsOf(s, 's3_list_objects_v2').delimiter = { type: 'string' }),
    at: { tool: 's3_list_objects_v2', path: 'inputSchema.properties.delimiter' },
  },
  {
    kind: 'type-narrowed',
    surface: (s) => void (propsOf(s, 'b2_rank_egress_leaders').limit!.type = 'string'),
    at: { tool: 'b2_rank_egress_leaders', path: 'inputSchema.properties.limit.type' },
  },
  {
    kind: 'type-widened',
    surface: (s) => void (propsOf(s, 'b2_rank_egress_leaders').limit!.type = 'number'),
    at: { tool: 'b2_rank_egress_leaders', path: 'inputSchema.properties.limit.type' },
  },
  {
    kind: 'enum-narrowed',
    surface: (s) => void (propsOf(s, 'b2_update_bucket').bucketType!.enum = ['allPrivate']),
    at: { tool: 'b2_update_bucket', path: 'inputSchema.properties.bucketType.enum' },
  },
  {
    kind: 'enum-widened',
    surface: (s) => void (propsOf(s, 'b2_update_bucket').bucketType!.enum = ['allPublic', 'allPrivate', 'snapshot']),
    at: { tool: 'b2_update_bucket', path: 'inputSchema.properties.bucketType.enum' },
  },
  {
    kind: 'bounds-tightened',
    surface: (s) => void (propsOf(s, 's3_list_objects_v2').maxKeys!.maximum = 500),
    at: { tool: 's3_list_objects_v2', path: 'inputSchema.properties.maxKeys.maximum' },
  },
  {
    kind: 'bounds-loosened',
    surface: (s) => void (propsOf(s, 's3_list_objects_v2').maxKeys!.maximum = 5000),
    at: { tool: 's3_list_objects_v2', path: 'inputSchema.properties.maxKeys.maximum' },
  },
  {
    kind: 'additional-properties-closed',
    surface: (s) => void (toolOf(s, 's3_put_object').inputSchema!.additionalProperties = false),
    at: { tool: 's3_put_object', path: 'inputSchema.additionalProperties' },
  },
  {
    kind: 'additional-properties-opened',
    surface: (s) => void delete itemsOf(s).additionalProperties,
    at: { tool: 'b2_update_bucket', path: 'inputSchema.properties.lifecycleRules.items.additionalProperties' },
  },
  {
    kind: 'description-changed',
    surface: (s) => void (toolOf(s, 'b2_list_buckets').description = 'List every bucket of the account, with its type and settings.'),
    at: { tool: 'b2_list_buckets', path: 'description' },
  },
  {
    kind: 'default-changed',
    surface: (s) => void (propsOf(s, 's3_get_presigned_url').expiresIn!.default = 900),
    at: { tool: 's3_get_presigned_url', path: 'inputSchema.properties.expiresIn.default' },
  },
  {
    kind: 'annotation-read-only-claimed',
    surface: (s) => void (toolOf(s, 's3_put_object').annotations!.readOnlyHint = true),
    at: { tool: 's3_put_object', path: 'annotations.readOnlyHint' },
  },
  {
    kind: 'annotation-read-only-withdrawn',
    surface: (s) => void (toolOf(s, 'b2_list_buckets').annotations!.readOnlyHint = false),
    at: { tool: 'b2_list_buckets', path: 'annotations.readOnlyHint' },
  },
  // The confirm gate follows destructiveHint (gating/confirm-iff-destructive), so the hint moves toward the baseline.
  {
    kind: 'annotation-non-destructive-claimed',
    before: (s) => void (toolOf(s, 's3_put_object').annotations!.destructiveHint = true),
    surface: () => {},
    at: { tool: 's3_put_object', path: 'annotations.destructiveHint' },
  },
  {
    kind: 'annotation-destructive-claimed',
    before: (s) => void (toolOf(s, 'b2_delete_bucket').annotations!.destructiveHint = false),
    surface: () => {},
    at: { tool: 'b2_delete_bucket', path: 'annotations.destructiveHint' },
  },
  {
    kind: 'annotation-idempotent-claimed',
    before: (s) => void (toolOf(s, 's3_put_object').annotations!.idempotentHint = false),
    surface: () => {},
    at: { tool: 's3_put_object', path: 'annotations.idempotentHint' },
  },
  {
    kind: 'annotation-idempotent-withdrawn',
    surface: (s) => void (toolOf(s, 's3_put_object').annotations!.idempotentHint = false),
    at: { tool: 's3_put_object', path: 'annotations.idempotentHint' },
  },
  {
    kind: 'annotation-closed-world-claimed',
    surface: (s) => void (toolOf(s, 'b2_list_buckets').annotations!.openWorldHint = false),
    at: { tool: 'b2_list_buckets', path: 'annotations.openWorldHint' },
  },
  {
    kind: 'annotation-open-world-claimed',
    before: (s) => void (toolOf(s, 'b2_list_buckets').annotations!.openWorldHint = false),
    surface: () => {},
    at: { tool: 'b2_list_buckets', path: 'annotations.openWorldHint' },
  },
  {
    kind: 'output-schema-added',
    surface: (s) => void (toolOf(s, 'b2_list_buckets').outputSchema = BUCKETS_OUTPUT),
    at: { tool: 'b2_list_buckets', path: 'outputSchema' },
  },
  { kind: 'output-schema-removed', before: withOutput, surface: () => {}, at: { tool: 'b2_list_buckets', path: 'outputSchema' } },
  {
    kind: 'output-field-removed',
    before: withOutput,
    surface: (s) => void (withOutput(s), delete outputOf(s).count),
    at: { tool: 'b2_list_buckets', path: 'outputSchema.properties.count' },
  },
  {
    kind: 'output-field-added',
    before: withOutput,
    surface: (s) => void (withOutput(s), (outputOf(s).next = { type: 'string' })),
    at: { tool: 'b2_list_buckets', path: 'outputSchema.properties.next' },
  },
  {
    kind: 'output-widened',
    before: withOutput,
    surface: (s) => void (withOutput(s), (toolOf(s, 'b2_list_buckets').outputSchema!.required = [])),
    at: { tool: 'b2_list_buckets', path: 'outputSchema.properties.buckets' },
  },
  {
    kind: 'output-narrowed',
    before: withOutput,
    surface: (s) => void (withOutput(s), (outputOf(s).count!.minimum = 0)),
    at: { tool: 'b2_list_buckets', path: 'outputSchema.properties.count.minimum' },
  },
  {
    kind: 'output-changed',
    before: withOutput,
    surface: (s) => void (withOutput(s), (outputOf(s).count!.type = 'string')),
    at: { tool: 'b2_list_buckets', path: 'outputSchema.properties.count.type' },
  },
  {
    kind: 'task-support-narrowed',
    surface: (s) => void (s.rewrites = [taskSupport('required')]),
    at: { tool: 'b2_list_buckets', path: 'execution.taskSupport' },
  },
  {
    kind: 'task-support-widened',
    surface: (s) => void (s.rewrites = [taskSupport('optional')]),
    at: { tool: 'b2_list_buckets', path: 'execution.taskSupport' },
  },
  { kind: 'server-capability-added', surface: (s) => void (s.rewrites = [LOGGING]), at: { path: 'serverCapabilities.logging' } },
  {
    kind: 'server-capability-removed',
    before: (s) => void (s.rewrites = [LOGGING]),
    surface: () => {},
    at: { path: 'serverCapabilities.logging' },
  },
  {
    kind: 'server-capability-changed',
    before: (s) => void (s.rewrites = [experimental({ 'example.com/a': {} })]),
    surface: (s) => void (s.rewrites = [experimental({ 'example.com/a': {}, 'example.com/b': {} })]),
    at: { path: 'serverCapabilities.experimental' },
  },
  {
    kind: 'meta-changed',
    surface: (s) => void (toolOf(s, 'b2_list_buckets')._meta = { 'example.com/tier': 'gold' }),
    at: { tool: 'b2_list_buckets', path: '_meta' },
  },
  {
    kind: 'schema-changed',
    surface: (s) => void (toolOf(s, 's3_put_object').inputSchema!.dependentRequired = { body: ['key'] }),
    at: { tool: 's3_put_object', path: 'inputSchema.dependentRequired' },
  },
  {
    // At the root the contract's own rule (schema/json-schema-2020) would fire too: a subschema declaring another dialect is the diff alone.
    kind: 'schema-dialect-changed',
    surface: (s) => void (propsOf(s, 's3_put_object').key!.$schema = 'http://json-schema.org/draft-07/schema#'),
    at: { tool: 's3_put_object', path: 'inputSchema.properties.key.$schema' },
  },
  {
    kind: 'modern-block-changed',
    surface: (s) =>
      void (s.cacheHints = {
        'tools/list': { ttlMs: 30_000, cacheScope: 'public' },
        'server/discover': { ttlMs: 30_000, cacheScope: 'public' },
      }),
    at: { path: 'modern.toolsListCacheHint' },
  },
  {
    kind: 'instructions-changed',
    surface: (s) => void (s.instructions = 'Before deleting anything, ask the user.'),
    at: { path: 'instructions' },
  },
];

let server: SurfaceHttpServer;
let baselineFixtures: string;
let baselineContract: string;
/** Fixtures and contract of each change's own `before` server. */
const beforeOf = new Map<ToolChangeKind, { fixtures: string; contract: string }>();

beforeAll(async () => {
  const surfaces: Record<string, Surface> = { baseline: baselineSurface() };
  for (const change of CHANGES) {
    surfaces[change.kind] = mutate(baselineSurface(), change.surface);
    if (change.before) surfaces[`${change.kind}:before`] = mutate(baselineSurface(), change.before);
  }
  server = await startSurfaceHttp(surfaces);
  baselineFixtures = await snapshotFixtures(server.target('baseline'));
  baselineContract = writeContract(baselineFixtures);
  for (const change of CHANGES.filter((candidate) => candidate.before)) {
    const fixtures = await snapshotFixtures(server.target(`${change.kind}:before`));
    beforeOf.set(change.kind, { fixtures, contract: writeContract(fixtures) });
  }
});

afterAll(() => {
  server?.stop();
  removeTempDirs();
});

test('every tool change kind the differ can name has a case here (prompt kinds: prompts-diff.test.ts)', () => {
  expect(CHANGES.map((change) => change.kind).sort()).toEqual([...TOOL_CHANGE_KINDS].sort());
});

describe.concurrent('live: each changed server is caught by exactly its diff rule, as an error under the frozen contract', () => {
  for (const change of CHANGES) {
    test(change.kind, async () => {
      // The approved cache hint is contract data: for the modern-block case it follows the server,
      // so only the drift from the fixture remains.
      const own = beforeOf.get(change.kind);
      const contractFile =
        change.kind === 'modern-block-changed'
          ? writeContract(baselineFixtures, (contract) => void (contract.approvedCacheHint = { ttlMs: 30_000, cacheScope: 'public' }))
          : (own?.contract ?? baselineContract);
      const result = await check(server.target(change.kind), { fixturesDir: own?.fixtures ?? baselineFixtures, contractFile });
      expect(firedRules(result)).toEqual([`diff/${change.kind}`]);
      expect(result.findings.map((finding) => ({ tool: finding.tool, path: finding.path }))).toContainEqual({
        tool: change.at.tool,
        path: change.at.path,
      });
      for (const finding of result.findings) {
        expect(finding.severity).toBe('error');
        expect(finding.class).toMatch(/^(breaking|non-breaking|info)$/);
      }
    });
  }
});

describe.concurrent('offline: diff <baseline> <changed> reports the same rule at its class severity', () => {
  for (const change of CHANGES) {
    test(change.kind, async () => {
      const changedFixtures = await snapshotFixtures(server.target(change.kind));
      const result = diffFixtureDirs({
        before: beforeOf.get(change.kind)?.fixtures ?? baselineFixtures,
        after: changedFixtures,
        cwd: tempDir(),
      });
      expect(firedRules(result)).toEqual([`diff/${change.kind}`]);
      const finding = result.findings[0]!;
      // Under diff a rule's own severity applies; a breaking change is always an error.
      expect(finding.severity, `${change.kind} is ${finding.class}`).toBe(result.rules.byId.get(`diff/${change.kind}`)!.severity);
      if (finding.class === 'breaking') expect(finding.severity).toBe('error');
      const scopes = change.kind === 'modern-block-changed' ? ['default.modern'] : ['default.legacy', 'default.modern'];
      expect([...finding.scopes].sort()).toEqual(scopes);
    });
  }
});

test('hash drift is explained: same names with differing definitions, or a different tool set', async () => {
  const described = await check(server.target('description-changed'), { fixturesDir: baselineFixtures, contractFile: baselineContract });
  expect(described.evidence.hashes.modern!.drift).toEqual({
    status: 'definitions-differ',
    tools: [{ tool: 'b2_list_buckets', paths: ['description'] }],
  });
  const removed = await check(server.target('tool-removed'), { fixturesDir: baselineFixtures, contractFile: baselineContract });
  expect(removed.evidence.hashes.legacy!.drift).toEqual({ status: 'tool-set-differs', added: [], removed: ['s3_put_object'] });
});
