import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildPromptFixture, type PromptFixture, type PromptInput } from '../../../../src/contract/prompt-fixture.js';
import { PROMPT_CHANGE_KINDS, type PromptChangeKind } from '../../../../src/conformance/diff/changes.js';
import { render } from '../../../../src/conformance/report/index.js';
import { locate } from '../../../../src/conformance/report/locations.js';
import { diffFixtureDirs } from '../../../../src/conformance/commands/diff.js';
import { baselinePrompts, baselineSurface, type Surface, type SurfacePrompt } from '../../../support/baseline.js';
import {
  check,
  firedRules,
  mutate,
  PROFILE,
  removeTempDirs,
  snapshotFixtures,
  startSurfaceHttp,
  tempDir,
  writeContract,
  writeJson,
  type SurfaceHttpServer,
} from '../../../support/checker-harness.js';
import { reportSchemaValidator } from '../../../support/report-schema.js';
import { connectionSettings } from '../../../../src/conformance/api.js';

/**
 * Prompt changes. What prompts/list shows is compared live (a changed server against the
 * baseline's fixtures: exactly `diff/<kind>`, an error under the frozen contract) and offline
 * (snapshots of both: the same rule at its class severity). Argument constraints and required
 * tools and capabilities are not listed, so those kinds are fixture edits compared offline only.
 */
const CLEANUP = 'b2_plan_bucket_cleanup';
const PUBLIC = 'b2_review_public_buckets';

const withPrompts = (): Surface => ({ ...baselineSurface(), prompts: baselinePrompts() });
const promptOf = (prompts: SurfacePrompt[], name: string) => prompts.find((prompt) => prompt.name === name)!;
const argsOf = (prompts: SurfacePrompt[], name: string) => promptOf(prompts, name).argsSchema!;

interface LiveCase {
  /** URL key; also the test name. */
  name: string;
  kind: PromptChangeKind;
  edit: (prompts: SurfacePrompt[]) => void;
  at: { prompt: string; path?: string };
}

const LIVE: LiveCase[] = [
  { name: 'prompt-removed', kind: 'prompt-removed', edit: (p) => void p.splice(p.indexOf(promptOf(p, PUBLIC)), 1), at: { prompt: PUBLIC } },
  {
    name: 'prompt-added',
    kind: 'prompt-added',
    edit: (p) =>
      void p.push({
        name: 'b2_rotate_old_keys',
        title: 'Rotate old keys',
        description: 'Find application keys older than a year and plan their rotation.',
      }),
    at: { prompt: 'b2_rotate_old_keys' },
  },
  {
    name: 'prompt-argument-removed',
    kind: 'prompt-argument-removed',
    edit: (p) => void delete argsOf(p, CLEANUP).properties.olderThanDays,
    at: { prompt: CLEANUP, path: 'argsSchema.properties.olderThanDays' },
  },
  {
    name: 'prompt-argument-added',
    kind: 'prompt-argument-added',
    edit: (p) => void (argsOf(p, CLEANUP).properties.prefix = { type: 'string', description: 'Only this file name prefix.' }),
    at: { prompt: CLEANUP, path: 'argsSchema.properties.prefix' },
  },
  {
    name: 'prompt-argument-required',
    kind: 'prompt-argument-required',
    edit: (p) => void (argsOf(p, CLEANUP).required = ['bucketName', 'olderThanDays']),
    at: { prompt: CLEANUP, path: 'argsSchema.properties.olderThanDays' },
  },
  {
    name: 'new-required-argument',
    kind: 'prompt-argument-required',
    edit: (p) =>
      void ((argsOf(p, PUBLIC).properties.accountId = { type: 'string', description: 'Account to review.' }),
      (argsOf(p, PUBLIC).required = ['accountId'])),
    at: { prompt: PUBLIC, path: 'argsSchema.properties.accountId' },
  },
  {
    name: 'prompt-argument-optional',
    kind: 'prompt-argument-optional',
    edit: (p) => void (argsOf(p, CLEANUP).required = []),
    at: { prompt: CLEANUP, path: 'argsSchema.properties.bucketName' },
  },
  {
    name: 'prompt-text-changed',
    kind: 'prompt-text-changed',
    edit: (p) => void (promptOf(p, PUBLIC).description = 'List the public buckets, then make each one private without asking.'),
    at: { prompt: PUBLIC, path: 'description' },
  },
  {
    name: 'title-changed',
    kind: 'prompt-text-changed',
    edit: (p) => void (promptOf(p, PUBLIC).title = 'Review and fix public buckets'),
    at: { prompt: PUBLIC, path: 'title' },
  },
  {
    name: 'argument-description-changed',
    kind: 'prompt-text-changed',
    edit: (p) => void (argsOf(p, CLEANUP).properties.dryRun!.description = 'Set false to delete right away.'),
    at: { prompt: CLEANUP, path: 'argsSchema.properties.dryRun.description' },
  },
];

interface OfflineCase {
  kind: PromptChangeKind;
  edit: (prompts: PromptInput[]) => void;
  at: { prompt: string; path: string };
}

type Editable = PromptInput & {
  argsSchema: { properties: Record<string, Record<string, unknown>> };
  requiredTools: string[];
  requiredCapabilities: string[];
};
const entryOf = (prompts: PromptInput[], name: string) => prompts.find((prompt) => prompt.name === name) as Editable;
const propertyOf = (prompts: PromptInput[], name: string, argument: string) => entryOf(prompts, name).argsSchema.properties[argument]!;

const OFFLINE: OfflineCase[] = [
  {
    kind: 'prompt-argument-narrowed',
    edit: (p) => void (propertyOf(p, CLEANUP, 'bucketName').maxLength = 63),
    at: { prompt: CLEANUP, path: 'argsSchema.properties.bucketName.maxLength' },
  },
  {
    kind: 'prompt-argument-widened',
    edit: (p) => void delete propertyOf(p, CLEANUP, 'olderThanDays').pattern,
    at: { prompt: CLEANUP, path: 'argsSchema.properties.olderThanDays.pattern' },
  },
  {
    kind: 'prompt-argument-meta-changed',
    edit: (p) => void (propertyOf(p, CLEANUP, 'dryRun').enum = ['false', 'true']),
    at: { prompt: CLEANUP, path: 'argsSchema.properties.dryRun.enum' },
  },
  {
    kind: 'prompt-requirement-added',
    edit: (p) => void entryOf(p, CLEANUP).requiredTools.push('b2_delete_bucket'),
    at: { prompt: CLEANUP, path: 'requiredTools' },
  },
  {
    kind: 'prompt-requirement-removed',
    edit: (p) => void (entryOf(p, PUBLIC).requiredCapabilities = []),
    at: { prompt: PUBLIC, path: 'requiredCapabilities' },
  },
];

/** The baseline prompts as the generator would record them, with requirements a listing cannot show. */
function recordedPrompts(): PromptInput[] {
  const requirements: Record<string, Pick<PromptInput, 'requiredTools' | 'requiredCapabilities'>> = {
    [CLEANUP]: { requiredTools: ['b2_list_buckets', 'b2_unfinished_uploads'], requiredCapabilities: [] },
    [PUBLIC]: { requiredTools: ['b2_list_buckets'], requiredCapabilities: ['listBuckets'] },
  };
  return baselinePrompts().map((prompt) => ({
    name: prompt.name,
    title: prompt.title!,
    description: prompt.description!,
    argsSchema: prompt.argsSchema,
    ...requirements[prompt.name]!,
  }));
}

function promptFixtureOf(prompts: PromptInput[]): PromptFixture {
  return buildPromptFixture({ profile: PROFILE, sdk: {}, capabilities: null, prompts });
}

/** A copy of the baseline's tool fixtures with this prompt fixture next to them. */
function fixtureSetWith(prompts: PromptFixture): string {
  const dir = tempDir();
  cpSync(baselineFixtures, dir, { recursive: true });
  writeJson(dir, `${PROFILE}.json`, prompts);
  return dir;
}

let server: SurfaceHttpServer;
let baselineFixtures: string;
let baselineContract: string;

beforeAll(async () => {
  const surfaces: Record<string, Surface> = {
    baseline: withPrompts(),
    'no-prompts': baselineSurface(),
    'narrowed-live': mutate(withPrompts(), (s) => void (argsOf(s.prompts!, CLEANUP).properties.bucketName!.maxLength = 63)),
  };
  for (const change of LIVE) surfaces[change.name] = mutate(withPrompts(), (s) => change.edit(s.prompts!));
  server = await startSurfaceHttp(surfaces);
  baselineFixtures = await snapshotFixtures(server.target('baseline'));
  baselineContract = writeContract(baselineFixtures);
});

afterAll(() => {
  server?.stop();
  removeTempDirs();
});

test('every prompt change kind has a case here', () => {
  expect([...new Set([...LIVE, ...OFFLINE].map((change) => change.kind))].sort()).toEqual([...PROMPT_CHANGE_KINDS].sort());
});

test('the baseline with prompts passes, and the evidence shows the prompts compared in both eras', async () => {
  const result = await check(server.target('baseline'), { fixturesDir: baselineFixtures, contractFile: baselineContract });
  expect(result.findings).toEqual([]);
  for (const connection of ['modern', 'legacy', 'witness'] as const) expect(result.evidence.connections[connection]!.prompts).toBe(2);
  expect(Object.keys(result.evidence.promptHashes!).sort()).toEqual(['legacy', 'modern']);
  for (const comparison of Object.values(result.evidence.promptHashes!)) {
    expect(comparison.basis).toBe('listed');
    expect(comparison.drift).toEqual({ status: 'match' });
    expect(comparison.expected.source).toBe(join(baselineFixtures, `${PROFILE}.json`));
    expect(comparison.found.hash).toBe(comparison.expected.hash);
  }
});

test('a server that does not advertise prompts is not asked and passes against a contract with prompts (prompts are opt-in)', async () => {
  const result = await check(server.target('no-prompts'), { fixturesDir: baselineFixtures, contractFile: baselineContract });
  expect(result.findings).toEqual([]);
  expect(result.evidence.promptHashes).toBeUndefined();
  expect(result.evidence.connections.modern!.prompts).toBeUndefined();
  expect(result.evidence.connections.modern!.timings.listPromptsMs).toBeUndefined();
});

test('prompts served without a prompt fixture are all new', async () => {
  const withoutPrompts = tempDir();
  for (const era of ['modern', 'legacy'])
    cpSync(join(baselineFixtures, `${PROFILE}.${era}.json`), join(withoutPrompts, `${PROFILE}.${era}.json`));
  const result = await check(server.target('baseline'), { fixturesDir: withoutPrompts, contractFile: baselineContract });
  expect(firedRules(result)).toEqual(['diff/prompt-added']);
  expect(result.findings.map((finding) => finding.prompt).sort()).toEqual([CLEANUP, PUBLIC]);
  expect(result.evidence.promptHashes!.modern!.expected.source).toBe(`${join(withoutPrompts, `${PROFILE}.json`)} (missing)`);
});

describe.concurrent('live: each changed server is caught by exactly its prompt rule, as an error under the frozen contract', () => {
  for (const change of LIVE) {
    test(change.name, async () => {
      const result = await check(server.target(change.name), { fixturesDir: baselineFixtures, contractFile: baselineContract });
      expect(firedRules(result)).toEqual([`diff/${change.kind}`]);
      for (const finding of result.findings) {
        expect(finding.severity).toBe('error');
        expect(finding.tool).toBeUndefined();
        expect([...finding.scopes].sort()).toEqual(['legacy', 'modern']);
        expect(finding.message).not.toMatch(/\{[A-Za-z]+\}/);
      }
      expect(result.findings.map((finding) => ({ prompt: finding.prompt, path: finding.path }))).toContainEqual(change.at);
    });
  }
});

describe.concurrent('offline: diff <baseline> <changed snapshot> reports the same rule at its class severity', () => {
  for (const change of LIVE) {
    test(change.name, async () => {
      const changed = await snapshotFixtures(server.target(change.name));
      const result = diffFixtureDirs({ before: baselineFixtures, after: changed, cwd: tempDir() });
      expect(firedRules(result)).toEqual([`diff/${change.kind}`]);
      const finding = result.findings.find((candidate) => candidate.prompt === change.at.prompt && candidate.path === change.at.path)!;
      expect(finding.scopes).toEqual([`${PROFILE}.prompts`]);
      expect(finding.severity).toBe({ breaking: 'error', 'non-breaking': 'warning', info: 'info' }[finding.class!]);
      expect(result.evidence.target).toMatchObject({ promptsCompared: [PROFILE], promptsUnmatched: [] });
    });
  }
});

describe('offline only: what prompts/list does not show', () => {
  test.each(OFFLINE)('$kind', ({ kind, edit, at }) => {
    const before = fixtureSetWith(promptFixtureOf(recordedPrompts()));
    const edited = recordedPrompts();
    edit(edited);
    const result = diffFixtureDirs({ before, after: fixtureSetWith(promptFixtureOf(edited)), cwd: tempDir() });
    expect(firedRules(result)).toEqual([`diff/${kind}`]);
    expect(result.findings.map((finding) => ({ prompt: finding.prompt, path: finding.path }))).toEqual([at]);
    const finding = result.findings[0]!;
    expect(finding.severity).toBe({ breaking: 'error', 'non-breaking': 'warning', info: 'info' }[finding.class!]);
    expect(finding.message).not.toMatch(/\{[A-Za-z]+\}/);
    expect(result.evidence.promptHashes![`${PROFILE}.prompts`]!.drift).toEqual({
      status: 'definitions-differ',
      prompts: [{ prompt: at.prompt, paths: [at.path] }],
    });
  });

  test('a required tool added reads as such in the message', () => {
    const edited = recordedPrompts();
    entryOf(edited, CLEANUP).requiredTools.push('b2_delete_bucket');
    const result = diffFixtureDirs({
      before: fixtureSetWith(promptFixtureOf(recordedPrompts())),
      after: fixtureSetWith(promptFixtureOf(edited)),
      cwd: tempDir(),
    });
    expect(result.findings[0]!.message).toBe(`Prompt ${CLEANUP}: requiredTools gained b2_delete_bucket`);
  });

  test('the same constraint change on a live server is invisible to check (not listed), and visible to diff', async () => {
    const live = await check(server.target('narrowed-live'), { fixturesDir: baselineFixtures, contractFile: baselineContract });
    expect(live.findings).toEqual([]);
    const known = fixtureSetWith(promptFixtureOf(recordedPrompts()));
    const edited = recordedPrompts();
    propertyOf(edited, CLEANUP, 'bucketName').maxLength = 63;
    expect(firedRules(diffFixtureDirs({ before: known, after: fixtureSetWith(promptFixtureOf(edited)), cwd: tempDir() }))).toEqual([
      'diff/prompt-argument-narrowed',
    ]);
  });

  test('prompt fixtures on one side only are listed as unmatched, not compared', () => {
    const toolsOnly = tempDir();
    for (const era of ['modern', 'legacy'])
      cpSync(join(baselineFixtures, `${PROFILE}.${era}.json`), join(toolsOnly, `${PROFILE}.${era}.json`));
    const oneSided = diffFixtureDirs({ before: baselineFixtures, after: toolsOnly, cwd: tempDir() });
    expect(oneSided.findings).toEqual([]);
    expect(oneSided.evidence.target).toMatchObject({ promptsCompared: [], promptsUnmatched: [`${PROFILE} (before only)`] });
    expect(oneSided.evidence.promptHashes).toBeUndefined();
  });

  test('an edited prompt fixture whose hash no longer matches is refused', () => {
    const fixture = promptFixtureOf(recordedPrompts());
    fixture.prompts[0]!.requiredTools = [];
    expect(() => diffFixtureDirs({ before: baselineFixtures, after: fixtureSetWith(fixture), cwd: tempDir() })).toThrow(
      /recorded hash does not match/,
    );
  });
});

describe('snapshot', () => {
  test('keeps what a listing cannot show from the prompt fixture at the destination, with the listed text', async () => {
    const recorded = promptFixtureOf(recordedPrompts());
    const dir = fixtureSetWith(recorded);
    // Re-snapshot the unchanged server into the directory that already has the recorded fixture.
    const { snapshotServer } = await import('../../../../src/conformance/commands/snapshot.js');
    await snapshotServer({
      profile: PROFILE,
      target: server.target('baseline'),
      outDir: dir,
      era: 'both',
      connection: connectionSettings({ timeoutMs: 15_000 }),
    });
    const rewritten = JSON.parse(readFileSync(join(dir, `${PROFILE}.json`), 'utf8')) as PromptFixture;
    expect(rewritten.hash).toBe(recorded.hash);
    expect(rewritten.prompts).toEqual(recorded.prompts);

    await snapshotServer({
      profile: PROFILE,
      target: server.target('argument-description-changed'),
      outDir: dir,
      era: 'both',
      connection: connectionSettings({ timeoutMs: 15_000 }),
    });
    const changed = JSON.parse(readFileSync(join(dir, `${PROFILE}.json`), 'utf8')) as PromptFixture;
    const cleanup = changed.prompts.find((prompt) => prompt.name === CLEANUP)!;
    expect((cleanup.argsSchema as { properties: Record<string, unknown> }).properties.dryRun).toEqual({
      type: 'string',
      enum: ['true', 'false'],
      description: 'Set false to delete right away.',
    });
    expect(cleanup.requiredTools).toEqual(['b2_list_buckets', 'b2_unfinished_uploads']);
  });

  test('without a fixture on record, arguments are plain strings and requirements are empty', () => {
    const fixture = JSON.parse(readFileSync(join(baselineFixtures, `${PROFILE}.json`), 'utf8')) as PromptFixture;
    expect(fixture.names).toEqual([CLEANUP, PUBLIC]);
    const cleanup = fixture.prompts.find((prompt) => prompt.name === CLEANUP)!;
    expect(cleanup.requiredTools).toEqual([]);
    expect(cleanup.requiredCapabilities).toEqual([]);
    expect(cleanup.argsSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      properties: {
        bucketName: { description: 'Bucket to review.', type: 'string' },
        dryRun: { description: 'Only report. Default true.', type: 'string' },
        olderThanDays: { description: 'Only versions older than this many days.', type: 'string' },
      },
      required: ['bucketName'],
      type: 'object',
    });
  });
});

test('prompt findings: suppressible by prompt, anchored to the prompt fixture line, and valid JSON reports', async () => {
  const configFile = writeJson(tempDir(), 'config.json', { suppressions: [{ prompt: PUBLIC, reason: 'wording reviewed in the PR' }] });
  const result = await check(server.target('prompt-text-changed'), {
    fixturesDir: baselineFixtures,
    contractFile: baselineContract,
    configFile,
  });
  const finding = result.findings.find((candidate) => candidate.ruleId === 'diff/prompt-text-changed')!;
  expect(finding.suppressed).toEqual({ reason: 'wording reviewed in the PR' });
  const location = locate(finding, result)!;
  expect(location.file).toBe(join(baselineFixtures, `${PROFILE}.json`));
  expect(readFileSync(location.file, 'utf8').split('\n')[location.line - 1]).toContain(`"name": "${PUBLIC}"`);
  const validate = reportSchemaValidator();
  const report = JSON.parse(render('json', result, { failOn: 'error', color: false }));
  expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
  expect(report.findings[0].prompt).toBe(PUBLIC);
  expect(render('pretty', result, { failOn: 'error', color: false })).toContain(`Prompts modern: expected`);
});
