import { describe, expect, it } from 'vitest';
import { diffExecution, diffModernBlock, diffTools, explainDrift, renameSimilarity } from '../../../src/conformance/diff/diff.js';
import type { Change } from '../../../src/conformance/diff/changes.js';
import type { NormalizedTool } from '../../../src/contract/normalize.js';

/**
 * The tool differ's direction rules that docs/conformance.md and docs/rules/diff.md state: the
 * output schema read from the client's side, `execution.taskSupport` as ways of calling a tool,
 * description texts carried whole, renames by naming style, and drift explanations that name a
 * rename once.
 */
function tool(name: string, extra: Partial<NormalizedTool> = {}): NormalizedTool {
  return { name, descriptionSha256: 'd', inputSchema: { type: 'object', properties: {} }, annotations: {}, ...extra } as NormalizedTool;
}

/** The changes of one tool whose output schema moves from `before` to `after`, as [kind, path, before, after]. */
function outputChanges(before: unknown, after: unknown): [string, string, unknown, unknown][] {
  const one = (outputSchema: unknown) => tool('t', outputSchema === undefined ? {} : { outputSchema });
  return diffTools([one(before)], [one(after)]).map(({ kind, path, before: was, after: now }) => [kind, path, was, now]);
}

const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required });

describe('the output schema, read by the client: fewer values are a narrowing, other values a change', () => {
  it.each([
    // Types: a subset (integer is a subset of number) only takes values away; a type swapped for another adds some.
    [{ type: ['number', 'string'] }, { type: 'string' }, [['output-narrowed', 'outputSchema.type', ['number', 'string'], 'string']]],
    [{ type: 'number' }, { type: 'integer' }, [['output-narrowed', 'outputSchema.type', 'number', 'integer']]],
    [{ type: 'string' }, { type: 'number' }, [['output-changed', 'outputSchema.type', 'string', 'number']]],
    [{ type: ['number', 'string'] }, { type: 'boolean' }, [['output-changed', 'outputSchema.type', ['number', 'string'], 'boolean']]],
    [
      { type: ['number', 'string'] },
      { type: ['boolean', 'string'] },
      [['output-changed', 'outputSchema.type', ['number', 'string'], ['boolean', 'string']]],
    ],
    [{ type: 'integer' }, { type: 'number' }, [['output-widened', 'outputSchema.type', 'integer', 'number']]],
    [{}, { type: 'string' }, [['output-narrowed', 'outputSchema.type', undefined, 'string']]],
    // Enums: values dropped, or a value swapped for another.
    [{ enum: ['a', 'b', 'c'] }, { enum: ['a', 'b'] }, [['output-narrowed', 'outputSchema.enum', ['a', 'b', 'c'], ['a', 'b']]]],
    [{ enum: ['a', 'b'] }, { enum: ['a', 'c'] }, [['output-changed', 'outputSchema.enum', ['a', 'b'], ['a', 'c']]]],
    [{ enum: [{ k: 1 }, { k: 2 }] }, { const: { k: 2 } }, [['output-narrowed', 'outputSchema.enum', [{ k: 1 }, { k: 2 }], [{ k: 2 }]]]],
    [{ enum: ['a'] }, { enum: ['a', 'b'] }, [['output-widened', 'outputSchema.enum', ['a'], ['a', 'b']]]],
    // Bounds: a numeric bound moved in or added narrows; a pattern swapped, or a bound that is no number, is a change.
    [{ maximum: 10 }, { maximum: 5 }, [['output-narrowed', 'outputSchema.maximum', 10, 5]]],
    [{}, { maxLength: 5 }, [['output-narrowed', 'outputSchema.maxLength', undefined, 5]]],
    [{ maxLength: 5 }, { maxLength: 10 }, [['output-widened', 'outputSchema.maxLength', 5, 10]]],
    [{ pattern: '^a' }, { pattern: '^b' }, [['output-changed', 'outputSchema.pattern', '^a', '^b']]],
    [{ maxLength: '10' }, { maxLength: 5 }, [['output-changed', 'outputSchema.maxLength', '10', 5]]],
    [{ maxLength: 10 }, { maxLength: '5' }, [['output-changed', 'outputSchema.maxLength', 10, '5']]],
    // additionalProperties closed takes values away, whatever it allowed before.
    [
      { type: 'object', additionalProperties: { type: 'string' } },
      { type: 'object', additionalProperties: false },
      [['output-narrowed', 'outputSchema.additionalProperties', { type: 'string' }, false]],
    ],
    [
      { type: 'object', additionalProperties: false },
      { type: 'object' },
      [['output-widened', 'outputSchema.additionalProperties', false, undefined]],
    ],
  ])('%j → %j', (before, after, expected) => {
    expect(outputChanges(before, after)).toEqual(expected);
  });

  it('a field new and required is a field added; an existing field made required narrows; one no longer required widens', () => {
    expect(outputChanges(object({ a: { type: 'string' } }), object({ a: { type: 'string' }, b: { type: 'string' } }, ['b']))).toEqual([
      ['output-field-added', 'outputSchema.properties.b', undefined, { type: 'string' }],
    ]);
    expect(outputChanges(object({ a: { type: 'string' } }), object({ a: { type: 'string' } }, ['a']))).toEqual([
      ['output-narrowed', 'outputSchema.properties.a', 'optional', 'required'],
    ]);
    expect(outputChanges(object({ a: { type: 'string' } }, ['a']), object({ a: { type: 'string' } }))).toEqual([
      ['output-widened', 'outputSchema.properties.a', 'required', 'optional'],
    ]);
  });

  it('an output schema declared or dropped is named once; other kinds keep the input comparison’s name', () => {
    expect(outputChanges(undefined, { type: 'object' })).toEqual([['output-schema-added', 'outputSchema', undefined, { type: 'object' }]]);
    expect(outputChanges({ type: 'object' }, undefined)).toEqual([
      ['output-schema-removed', 'outputSchema', { type: 'object' }, undefined],
    ]);
    expect(outputChanges({ type: 'string', description: 'old' }, { type: 'string', description: 'new' })).toEqual([
      ['description-changed', 'outputSchema.description', 'old', 'new'],
    ]);
  });
});

describe('execution.taskSupport: the ways a client may call the tool', () => {
  const run = (before: unknown, after: unknown) => {
    const found: [string, string, unknown, unknown][] = [];
    diffExecution(before, after, (kind, path, was, now) => found.push([kind, path, was, now]));
    return found;
  };

  it.each([
    [undefined, { taskSupport: 'optional' }, 'task-support-widened'],
    [{ taskSupport: 'forbidden' }, { taskSupport: 'optional' }, 'task-support-widened'],
    [{ taskSupport: 'required' }, { taskSupport: 'optional' }, 'task-support-widened'],
    [{ taskSupport: 'optional' }, { taskSupport: 'required' }, 'task-support-narrowed'],
    [{ taskSupport: 'optional' }, { taskSupport: 'forbidden' }, 'task-support-narrowed'],
    [{ taskSupport: 'required' }, {}, 'task-support-narrowed'],
    [{ taskSupport: 'forbidden' }, { taskSupport: 'required' }, 'task-support-narrowed'],
    [{}, { taskSupport: 'forbidden' }, 'meta-changed'],
    [{ taskSupport: 'forbidden' }, 'not an object', 'meta-changed'],
    [{ taskSupport: 'sometimes' }, { taskSupport: 'optional' }, 'meta-changed'],
    [{ taskSupport: 'optional' }, { taskSupport: 'sometimes' }, 'meta-changed'],
    // A server's value that names a property every object inherits is just as unknown.
    [{ taskSupport: 'optional' }, { taskSupport: 'constructor' }, 'meta-changed'],
    [{ taskSupport: '__proto__' }, { taskSupport: 'toString' }, 'meta-changed'],
  ])('%j → %j is %s', (before, after, kind) => {
    const value = (side: unknown) =>
      typeof side === 'object' && side !== null ? (side as Record<string, unknown>).taskSupport : undefined;
    expect(run(before, after)).toEqual([[kind, 'execution.taskSupport', value(before), value(after)]]);
  });

  it('an unchanged execution is no change; other keys are metadata, in key order', () => {
    expect(run({ taskSupport: 'optional' }, { taskSupport: 'optional' })).toEqual([]);
    expect(run({ zeta: 1, taskSupport: 'optional', alpha: 1 }, { zeta: 2, taskSupport: 'optional', alpha: 2 })).toEqual([
      ['meta-changed', 'execution.alpha', 1, 2],
      ['meta-changed', 'execution.zeta', 1, 2],
    ]);
    // Only taskSupport names ways of calling: another key holding the same words is metadata.
    expect(run({ mode: 'optional' }, { mode: 'required' })).toEqual([['meta-changed', 'execution.mode', 'optional', 'required']]);
  });
});

describe('description texts', () => {
  const described = (before: Record<string, string> | undefined, after: Record<string, string> | undefined) =>
    diffTools([tool('t', { descriptionSha256: 'old' })], [tool('t', { descriptionSha256: 'new' })], {
      descriptions: { before, after },
    }).map(({ kind, before: was, after: now, text }) => ({ kind, was, now, text }));

  it('both texts known: the values and the text; one known: only the text; none: neither', () => {
    expect(described({ t: 'Old words.' }, { t: 'New words.' })).toEqual([
      { kind: 'description-changed', was: 'Old words.', now: 'New words.', text: { before: 'Old words.', after: 'New words.' } },
    ]);
    expect(described({ t: 'Old words.' }, undefined)).toEqual([
      { kind: 'description-changed', was: undefined, now: undefined, text: { before: 'Old words.' } },
    ]);
    expect(described(undefined, { t: 'New words.' })).toEqual([
      { kind: 'description-changed', was: undefined, now: undefined, text: { after: 'New words.' } },
    ]);
    expect(described({}, {})).toEqual([{ kind: 'description-changed', was: undefined, now: undefined, text: undefined }]);
  });

  it('a removed or added tool carries its own text; an inherited name has none', () => {
    const found = diffTools([tool('b2_gone', { descriptionSha256: '1' })], [tool('s3_new', { descriptionSha256: '2', _meta: { x: 1 } })], {
      descriptions: { before: { b2_gone: 'Gone.' }, after: { s3_new: 'New.' } },
    });
    expect(found).toEqual([
      { kind: 'tool-removed', tool: 'b2_gone', path: '', text: { before: 'Gone.' } },
      { kind: 'tool-added', tool: 's3_new', path: '', text: { after: 'New.' } },
    ]);
    const inherited = diffTools([tool('toString', { descriptionSha256: '1' })], [tool('toString', { descriptionSha256: '2' })], {
      descriptions: { before: {}, after: {} },
    });
    expect(inherited[0]).not.toHaveProperty('text');
  });
});

describe('annotations', () => {
  it('an unchanged title or extra key is no change beside a hint that moved', () => {
    const found = diffTools(
      [tool('t', { annotations: { title: 'T', extra: 1, readOnlyHint: true } })],
      [tool('t', { annotations: { title: 'T', extra: 1, readOnlyHint: false } })],
    );
    expect(found.map(({ kind, path }) => [kind, path])).toEqual([['annotation-read-only-withdrawn', 'annotations.readOnlyHint']]);
  });
});

describe('renames by naming style', () => {
  /** Two definitions that differ, so only the name can pair them. */
  const pairs = (removed: string[], added: string[]) =>
    diffTools(
      removed.map((name, index) => tool(name, { descriptionSha256: `r${index}` })),
      added.map((name, index) => tool(name, { descriptionSha256: `a${index}`, _meta: { index } })),
    )
      .filter((change) => change.kind === 'tool-renamed')
      .map((change) => [change.before, change.after, change.rename]);

  it.each([
    ['getTinyImage', 'get_tiny_image'],
    ['fetchHTTPResponse', 'fetch_http_response'],
    ['list__all--files', 'list-all-files'],
    ['_list_files', 'listFiles'],
  ])('%s and %s are the same words', (from, to) => {
    expect(pairs([from, 'zzz_unrelated_x'], ['qqq_other_y', to])).toEqual([[from, to, { by: 'spelling' }]]);
  });

  it('of two added tools in the same style, the first listed pairs with the first removed, then the next', () => {
    expect(pairs(['get-image', 'GET_IMAGE'], ['get_image', 'getImage'])).toEqual([
      ['get-image', 'get_image', { by: 'spelling' }],
      ['GET_IMAGE', 'getImage', { by: 'spelling' }],
    ]);
  });

  it('a renamed tool’s definition is compared under its new name', () => {
    const found = diffTools(
      [tool('getImage', { annotations: { readOnlyHint: true } })],
      [tool('get_image', { annotations: { readOnlyHint: false } })],
    );
    expect(found.map(({ kind, tool: name }) => [kind, name])).toEqual([
      ['tool-renamed', 'get_image'],
      ['annotation-read-only-withdrawn', 'get_image'],
    ]);
  });
});

describe('renameSimilarity: name words', () => {
  it('a name without a prefix keeps its first word; a name without words scores no word match', () => {
    // read, file of read, file, in, chunks: half the words, plus equal annotations and description.
    expect(renameSimilarity(tool('readFile'), tool('readFileInChunks'))).toMatchObject({ by: 'similarity', confidence: 0.83 });
    const inputs = { inputSchema: { type: 'object', properties: { key: { type: 'string' } } } };
    // No name words: 0 × 1, the inputs 1 × 3, annotations and description 1 each, of 6.
    expect(renameSimilarity(tool('_', inputs), tool('-', inputs))).toEqual({ by: 'similarity', confidence: 0.83, shared: 1, total: 1 });
  });
});

describe('drift explanations with renames', () => {
  const renamed = (from: string, to: string): Change => ({ kind: 'tool-renamed', tool: to, path: '', before: from, after: to });

  it('a rename is named once, not as a tool added and one removed', () => {
    const changes: Change[] = [
      renamed('b2_old', 'b2_new'),
      { kind: 'tool-added', tool: 'b2_extra', path: '' },
      { kind: 'tool-removed', tool: 'b2_gone', path: '' },
    ];
    expect(explainDrift({ names: ['b2_gone', 'b2_old'], hash: 'h' }, { names: ['b2_extra', 'b2_new'], hash: 'g' }, changes)).toEqual({
      status: 'tool-set-differs',
      added: ['b2_extra'],
      removed: ['b2_gone'],
      renamed: [{ from: 'b2_old', to: 'b2_new' }],
    });
  });

  it('one side without its tools: no respelled tool is guessed', () => {
    expect(explainDrift({ names: ['a'], hash: 'h', tools: [tool('a')] }, { names: ['a'], hash: 'g' }, [])).toEqual({
      status: 'definitions-differ',
      tools: [],
    });
    expect(explainDrift({ names: ['a'], hash: 'h' }, { names: ['a'], hash: 'g', tools: [tool('a')] }, [])).toEqual({
      status: 'definitions-differ',
      tools: [],
    });
  });
});

describe('the modern block when the fixtures record the capabilities on their own', () => {
  const block = (capabilities: unknown, ttlMs: number) =>
    ({ discover: { supportedVersions: ['v'], capabilities, ttlMs, cacheScope: 'private' } }) as never;

  it('a capability change is named by the capability comparison, not again here', () => {
    expect(diffModernBlock(block({ tools: {} }, 1), block({ logging: {} }, 2), { capabilities: false })).toEqual([
      { kind: 'modern-block-changed', path: 'modern.discover.ttlMs', before: 1, after: 2 },
    ]);
    expect(diffModernBlock(block({ tools: {} }, 1), block({ logging: {} }, 1), { capabilities: true })).toEqual([
      { kind: 'modern-block-changed', path: 'modern.discover.capabilities', before: { tools: {} }, after: { logging: {} } },
    ]);
    // Only the capabilities leave the prompts entry to the prompt comparison.
    const odd = (prompts: number) => ({ discover: { ttlMs: { prompts } } }) as never;
    expect(diffModernBlock(odd(1), odd(2)).map(({ path }) => path)).toEqual(['modern.discover.ttlMs']);
  });
});
