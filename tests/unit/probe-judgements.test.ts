import { describe, expect, it } from 'vitest';
import { argumentSteps, judgeUndeclared, undeclaredArgument } from '../../src/conformance/probes/arguments.js';
import { changeText, mutationText } from '../../src/conformance/probes/attempt.js';
import { judgeFormat } from '../../src/conformance/probes/format.js';
import { callSurfaces, errorSummary, firstDifference, hasSignedUrl, quoteServerText, resultText } from '../../src/conformance/probes/results.js';
import { CONSECUTIVE_TIMEOUT_LIMIT } from '../../src/conformance/probes/run-state.js';
import { CanaryScanner } from '../../src/conformance/probes/secrets.js';
import { fillTemplate, loadProbeTables, referencedNames } from '../../src/conformance/probes/table.js';
import type { TargetSeeder } from '../../src/conformance/probes/targets.js';
import { judgeWriteEffect, writeSteps } from '../../src/conformance/probes/writes.js';
import { FakeSandbox, REFUSAL, fakeSession, manualClock, probeRun, text, type FakeServer } from '../support/probe-fakes.js';

/** The probes' judgement functions and the run state, in-process, with fake observations. */
const outcome = (value: Record<string, unknown>) => ({ elicitations: [], ...value }) as never;

describe('results: what a call said', () => {
  it('resultText joins text blocks and shows other blocks as JSON', () => {
    expect(resultText(outcome({ result: { content: [{ type: 'text', text: 'a' }, { type: 'image', data: 'x' }, { type: 'text' }] } }))).toBe('a\n{"type":"image","data":"x"}\n{"type":"text"}');
    expect(resultText(outcome({}))).toBe('');
  });

  it('callSurfaces names every place a secret could hide', () => {
    expect(callSurfaces(outcome({ result: { content: [], structuredContent: { k: 1 } }, thrown: 'boom', elicitations: ['ask'] }))).toEqual([
      { place: 'result text', text: '' },
      { place: 'structuredContent', text: '{"k":1}' },
      { place: 'protocol error', text: 'boom' },
      { place: 'elicitation message', text: 'ask' },
    ]);
    expect(callSurfaces(outcome({ result: { content: [{ type: 'text', text: 't' }] } }))).toEqual([{ place: 'result text', text: 't' }]);
  });

  it('hasSignedUrl looks in every place, in any case', () => {
    expect(hasSignedUrl(outcome({ result: { content: [], structuredContent: { url: 'https://x/?x-amz-signature=1' } } }))).toBe(true);
    expect(hasSignedUrl(outcome({ elicitations: ['https://x/?X-Amz-Signature=1'] }))).toBe(true);
    expect(hasSignedUrl(outcome({ result: { content: [{ type: 'text', text: 'https://x/?X-Amz-Credential=1' }] } }))).toBe(false);
  });

  it('quoteServerText trims, bounds at 160 characters and escapes', () => {
    expect(quoteServerText(' a\u0000b ')).toBe('"a\\u0000b"');
    expect(quoteServerText('z'.repeat(160))).toBe(JSON.stringify('z'.repeat(160)));
    expect(quoteServerText('z'.repeat(161))).toBe(JSON.stringify(`${'z'.repeat(160)}…`));
  });

  it.each([
    ['B2 Error [bad_request] (HTTP 400): nope', 'error bad_request (HTTP 400): "B2 Error [bad_request] (HTTP 400): nope"'],
    ['[a.b-c_9](HTTP 404)', 'error a.b-c_9 (HTTP 404): "[a.b-c_9](HTTP 404)"'],
    ['[bad code!] (HTTP 400)', 'an error: "[bad code!] (HTTP 400)"'],
    ['[x] (HTTP 40)', 'an error: "[x] (HTTP 40)"'],
    [`[${'c'.repeat(65)}] (HTTP 400)`, `an error: ${JSON.stringify(`[${'c'.repeat(65)}] (HTTP 400)`)}`],
  ])('errorSummary of %j', (said, summary) => {
    expect(errorSummary(outcome(text(said, true)))).toBe(summary);
  });

  it.each([
    [{ a: [1, 2] }, { a: [1, 2] }, undefined],
    [{ a: [1, 2] }, { a: [1, 3] }, 'a[1]'],
    [{ a: [1, 2] }, { a: [1] }, 'a (length 2 vs 1)'],
    [[1], { 0: 1 }, '(root)'],
    [{ a: 1 }, [1], '(root)'],
    [{ a: 1 }, { a: 1, b: 2 }, 'b'],
    [{ 'odd key': 1 }, { 'odd key': 2 }, '["odd key"]'],
    [{ x: { 'y-z': 1 } }, { x: { 'y-z': 2 } }, 'x["y-z"]'],
    [{ x: { y: null } }, { x: { y: {} } }, 'x.y'],
    [Number.NaN, Number.NaN, undefined],
    [0, -0, undefined],
    [1, 2, '(root)'],
    ['1', 1, '(root)'],
  ])('firstDifference(%j, %j) = %s', (expected, actual, path) => {
    expect(firstDifference(expected, actual)).toBe(path);
  });
});

describe('attempt texts', () => {
  it('mutationText counts and names each operation once', () => {
    expect(mutationText([])).toBe('no change in the sandbox');
    expect(mutationText([{ seq: 1, operation: 'a' }])).toBe('1 change in the sandbox (a)');
    expect(mutationText([{ seq: 1, operation: 'a' }, { seq: 2, operation: 'b' }, { seq: 3, operation: 'a' }])).toBe('3 changes in the sandbox (a, b)');
  });

  it('changeText counts by kind and change', () => {
    expect(changeText([])).toBe('');
    expect(changeText([{ kind: 'bucket', name: 'x', change: 'added' }, { kind: 'bucket', name: 'y', change: 'added' }, { kind: 'key', name: 'k', change: 'removed' }])).toBe('2 bucket added, 1 key removed');
  });
});

describe('judgeFormat: the text block against structuredContent, per output mode', () => {
  const structured = (value: unknown, body: string) => outcome({ result: { content: [{ type: 'text', text: body }], structuredContent: value } });
  const value = { buckets: [{ name: 'a', size: 1 }, { name: 'b', size: 2 }] };
  const TOON = 'buckets[2]{name,size}:\n  a,1\n  b,2';

  it.each([
    ['json', JSON.stringify(value), 'format.json', true, 'compact JSON equal to structuredContent'],
    ['json', JSON.stringify(value, null, 1), 'format.json', false, 'the JSON text is not compact (it has whitespace between tokens)'],
    ['json', TOON, 'format.json', false, 'the text block is not JSON'],
    ['json', JSON.stringify({ buckets: [{ name: 'a', size: 1 }] }), 'format.json', false, 'the JSON text differs from structuredContent at buckets (length 2 vs 1)'],
    ['toon', TOON, 'format.toon', true, 'TOON that decodes to structuredContent'],
    ['toon', JSON.stringify(value), 'format.json', true, 'compact JSON equal to structuredContent'],
    ['toon', 'buckets[2]{name,size}:\n  a,1\n  b,3', 'format.toon', false, 'the TOON text decodes to something else than structuredContent, first at buckets[1].size'],
    ['auto', TOON, 'format.toon', true, 'TOON that decodes to structuredContent'],
    ['auto', JSON.stringify(value, null, 2), 'format.json', false, 'the JSON text is not compact (it has whitespace between tokens)'],
    [null, JSON.stringify(value), 'format.json', true, 'compact JSON equal to structuredContent'],
  ] as const)('mode %s, text %j: %s passed %s', (mode, body, aspect, passed, detail) => {
    expect(judgeFormat(structured(value, body), mode, 'result')).toEqual({ aspect, passed, detail });
  });

  it('a TOON text the decoder rejects is named with the decoder error', () => {
    const verdict = judgeFormat(structured(value, 'buckets[3]{name,size}:\n  a,1'), 'toon', 'result');
    expect(verdict).toMatchObject({ aspect: 'format.toon', passed: false });
    expect(verdict.detail).toMatch(/^the official TOON decoder rejects the text block: \S/);
    expect(verdict.detail.length).toBeLessThanOrEqual('the official TOON decoder rejects the text block: '.length + 160);
  });

  it('auto: a JSON-looking text that differs is judged as JSON; a scalar JSON text as TOON', () => {
    expect(judgeFormat(structured(value, '{"buckets":[]}'), 'auto', 'result')).toMatchObject({ aspect: 'format.json', passed: false });
    expect(judgeFormat(structured('hello', '"hello"'), 'auto', 'result')).toEqual({ aspect: 'format.json', passed: true, detail: 'compact JSON equal to structuredContent' });
    expect(judgeFormat(structured(7, '8'), 'auto', 'result')).toMatchObject({ aspect: 'format.toon' });
  });

  it('results without structuredContent, failed reads and protocol errors', () => {
    expect(judgeFormat(outcome(text('plain words')), 'json', 'result')).toEqual({ aspect: 'format.plain', passed: true, detail: 'plain-text result without structuredContent' });
    expect(judgeFormat(outcome(text('[x] (HTTP 500)', true)), 'json', 'result')).toEqual({ aspect: 'run.incomplete', passed: false, detail: 'the read failed with error x (HTTP 500): "[x] (HTTP 500)"' });
    expect(judgeFormat(outcome({ thrown: 'gone' }), 'json', 'error')).toEqual({ aspect: 'run.incomplete', passed: false, detail: 'the read call failed with a protocol error: "gone"' });
  });

  it('an expected error must be an isError result in plain text', () => {
    expect(judgeFormat(outcome(text('found it')), 'json', 'error')).toEqual({ aspect: 'run.incomplete', passed: false, detail: 'a read that must fail (missing object or bucket) returned a result' });
    expect(judgeFormat(outcome(text('[not_found] (HTTP 404): no such file', true)), 'toon', 'error')).toEqual({ aspect: 'format.error', passed: true, detail: 'plain text (error not_found (HTTP 404): "[not_found] (HTTP 404): no such file")' });
    expect(judgeFormat(outcome({ result: { content: [{ type: 'text', text: 'x' }], isError: true, structuredContent: {} } }), 'json', 'error')).toEqual({ aspect: 'format.error', passed: false, detail: 'an error result carries structuredContent' });
    expect(judgeFormat(outcome(text(' {"error":"x"} ', true)), 'json', 'error')).toEqual({ aspect: 'format.error', passed: false, detail: 'an error result is a JSON document instead of plain text' });
    expect(judgeFormat(outcome(text('[1]', true)), 'json', 'error')).toMatchObject({ passed: false });
    expect(judgeFormat(outcome(text('null', true)), 'json', 'error')).toMatchObject({ aspect: 'format.error', passed: true });
    expect(judgeFormat(outcome(text('42', true)), 'json', 'error')).toMatchObject({ aspect: 'format.error', passed: true });
  });
});

describe('CanaryScanner: every encoding a leak takes', () => {
  const secret = 'K005~~~~~~abcdefghij+/klmnopqrst';
  const scanner = () => new CanaryScanner([{ name: 'application key', value: secret, keyId: '005keyid' }]);
  const b64 = (value: string) => Buffer.from(value).toString('base64');

  it.each([
    ['raw', `x${secret}y`],
    ['base64', b64(secret)],
    ['base64', b64(`a${secret}`)],
    ['base64', b64(`ab${secret}`)],
    ['base64url', Buffer.from(secret).toString('base64url')],
    ['URL-encoded', encodeURIComponent(secret)],
    ['hex', Buffer.from(secret).toString('hex')],
    ['HEX', Buffer.from(secret).toString('hex').toUpperCase()],
    ['reversed', [...secret].reverse().join('')],
    ['Basic auth', `Authorization: Basic ${b64(`005keyid:${secret}`)}`],
  ])('finds it %s', (encoding, haystack) => {
    expect(scanner().scan(haystack).map((leak) => leak.encoding)).toContain(encoding);
    expect(scanner().scan(haystack).every((leak) => leak.canary === 'application key')).toBe(true);
  });

  it('finds nothing in a near miss, and each encoding once', () => {
    expect(scanner().scan(secret.slice(0, -1))).toEqual([]);
    expect(scanner().scan(`${secret} ${secret}`)).toEqual([{ canary: 'application key', encoding: 'raw' }]);
  });

  it('a secret without URL-special characters, uppercase-free hex or a key id has fewer forms', () => {
    const plain = new CanaryScanner([{ name: 'token', value: '1234567890123456789' }]);
    expect(plain.scan(encodeURIComponent('1234567890123456789')).map((leak) => leak.encoding)).toEqual(['raw']);
    expect(plain.scan('Basic ').map((leak) => leak.encoding)).toEqual([]);
    const palindrome = new CanaryScanner([{ name: 'p', value: 'abcdefghhgfedcba' }]);
    expect(palindrome.scan('abcdefghhgfedcba').map((leak) => leak.encoding)).toEqual(['raw']);
  });

  it('short secrets have no base64 core; adding a known value again changes nothing', () => {
    const short = new CanaryScanner([{ name: 's', value: 'short' }]);
    expect(short.scan(b64('short'))).toEqual([]);
    short.add([{ name: 'again', value: 'short' }, { name: 'new', value: 'another-one' }]);
    expect(short.canaryCount).toBe(2);
    expect(short.scan('short another-one').map((leak) => leak.canary)).toEqual(['s', 'new']);
  });

  it('mask replaces every form, longest first', () => {
    const masked = scanner().mask(`raw ${secret} b64 ${b64(secret)} hex ${Buffer.from(secret).toString('hex')}`);
    // The base64 form is found by its alignment-independent core: the padded tail stays.
    expect(masked).toBe('raw *** b64 ***c3Q= hex ***');
  });
});

describe('undeclared arguments', () => {
  const candidates = [{ force: true }, { __conform_probe: 1 }, { a: 1, b: 2 }];

  it('the first candidate the schema does not declare, by any of its names', () => {
    expect(undeclaredArgument({ name: 't', inputSchema: { properties: { force: {} } } } as never, candidates)).toEqual({ __conform_probe: 1 });
    expect(undeclaredArgument({ name: 't' } as never, candidates)).toEqual({ force: true });
    expect(undeclaredArgument({ name: 't', inputSchema: { properties: { force: {}, __conform_probe: {}, b: {} } } } as never, candidates)).toBeUndefined();
  });

  it.each([
    [{ outcome: outcome({ thrown: 'MCP error -32602: Invalid arguments' }), mutations: [], changes: [] }, true, 'refused with JSON-RPC -32602 (invalid params); nothing changed'],
    [{ outcome: outcome({ thrown: 'MCP error -32603: internal' }), mutations: [], changes: [] }, false, 'b2_x answered the undeclared argument force: true with a protocol error other than -32602 (invalid params)'],
    [{ outcome: outcome(REFUSAL), mutations: [], changes: [] }, true, `refused with ${errorSummary(outcome(REFUSAL))}; nothing changed`],
    [{ outcome: outcome(text('ok')), mutations: [], changes: [] }, false, 'b2_x accepted the undeclared argument force: true instead of refusing the call'],
    [{ outcome: outcome(REFUSAL), mutations: [{ seq: 1, operation: 'delete' }], changes: [] }, false, 'b2_x acted on a call with the undeclared argument force: true: 1 change in the sandbox (delete)'],
    [{ outcome: outcome(REFUSAL), mutations: [], changes: [{ kind: 'bucket', name: 'b', change: 'removed' }] }, false, 'b2_x acted on a call with the undeclared argument force: true: the sandbox state changed (1 bucket removed)'],
  ])('judgeUndeclared %#', (attempt, passed, detail) => {
    expect(judgeUndeclared('b2_x', 'force: true', attempt as never)).toEqual({ passed, detail });
  });

  it('argumentSteps: one step per tool that lacks a candidate, called with its valid arguments plus the extra one', async () => {
    const sandbox = new FakeSandbox();
    const run = probeRun(sandbox);
    const session = fakeSession(sandbox, ({ args }) => ('force' in args || '__conform_probe' in args ? { outcome: { thrown: 'MCP error -32602: bad' } } : { outcome: text('ok') }));
    const full = { name: 'b2_full', inputSchema: { properties: { force: {}, __conform_probe: {}, a: {}, b: {} } } };
    const steps = argumentSteps(run, session, [
      { tool: { name: 'b2_x', inputSchema: { properties: { id: {} } } } as never, prepare: async () => ({ id: 'i' }) },
      { tool: full as never, prepare: async () => ({}) },
    ], candidates);
    expect(steps.map(({ label, tool }) => [label, tool])).toEqual([['undeclared argument b2_x', 'b2_x']]);
    expect(run.skipped).toEqual(['b2_full: its schema declares every undeclared-argument candidate of rules/probes/writes.json']);
    await steps[0]!.run();
    expect(session.calls.map(({ args }) => args)).toEqual([{ id: 'i', force: true }]);
    expect(run.observations).toEqual([{ aspect: 'argument.undeclared', tool: 'b2_x', variant: 'force: true', passed: true, detail: 'refused with JSON-RPC -32602 (invalid params); nothing changed' }]);
    const twoNames = argumentSteps(run, session, [{ tool: { name: 'b2_y', inputSchema: { properties: { force: {}, __conform_probe: {} } } } as never, prepare: async () => ({}) }], candidates);
    await twoNames[0]!.run();
    expect(run.observations.at(-1)!.variant).toBe('a: 1, b: 2');
    const silent = argumentSteps(run, fakeSession(sandbox, () => ({ outcome: { timedOut: true } })), [{ tool: { name: 'b2_z' } as never, prepare: async () => ({}) }], candidates);
    await expect(silent[0]!.run()).rejects.toThrow('no answer within the timeout');
  });
});

describe('write effects', () => {
  const spec = { tool: 'b2_upload_file', target: { kind: 'bucket' }, arguments: { bucketName: '{{target.bucketName}}', at: '{{now}}' }, effect: { mutations: ['upload_file'], state: { 'version added': 1 } } };
  const attempt = (mutations: string[], changes: [string, string][], result: Record<string, unknown> = text('ok')) => ({
    outcome: outcome(result),
    mutations: mutations.map((operation, index) => ({ seq: index + 1, operation })),
    changes: changes.map(([kind, change], index) => ({ kind, name: `n${index}`, change })),
  }) as never;

  it.each([
    [attempt(['upload_file'], [['version', 'added']]), true, 'did exactly what it declares (logs upload_file; 1 version added)'],
    [attempt(['upload_file', 'upload_file'], [['version', 'added']]), false, 'b2_upload_file must do exactly this: logs upload_file; 1 version added; it made 2 changes in the sandbox (upload_file)'],
    [attempt([], []), false, 'b2_upload_file must do exactly this: logs upload_file; 1 version added; it made no change in the sandbox'],
    [attempt(['upload_file'], []), false, 'b2_upload_file must do exactly this: logs upload_file; 1 version added; the sandbox state shows no change'],
    [attempt(['upload_file'], [['version', 'added'], ['bucket', 'changed']]), false, 'b2_upload_file must do exactly this: logs upload_file; 1 version added; the sandbox state shows 1 version added, 1 bucket changed'],
    [attempt(['upload_file'], [['version', 'added'], ['version', 'added']]), false, 'b2_upload_file must do exactly this: logs upload_file; 1 version added; the sandbox state shows 2 version added'],
    [attempt(['upload_file'], [], REFUSAL), false, `b2_upload_file failed with ${errorSummary(outcome(REFUSAL))} (1 change in the sandbox (upload_file))`],
    [attempt([], [], { thrown: 'x' }), false, 'b2_upload_file failed with a protocol error: "x"'],
  ])('judgeWriteEffect %#', (observed, passed, detail) => {
    expect(judgeWriteEffect(spec, observed)).toEqual({ passed, detail });
  });

  it('an effect with no change and a signed URL', () => {
    const presign = { ...spec, tool: 's3_get_presigned_url', effect: { mutations: [], state: {}, signedUrl: true } };
    expect(judgeWriteEffect(presign, attempt([], [], text('https://x/?X-Amz-Signature=s')))).toEqual({ passed: true, detail: 'did exactly what it declares (logs no change; no state change; a presigned URL)' });
    expect(judgeWriteEffect(presign, attempt([], []))).toEqual({ passed: false, detail: 's3_get_presigned_url returned no presigned URL' });
  });

  it('writeSteps seeds a target per tool, fills the template and records the verdict', async () => {
    const sandbox = new FakeSandbox();
    const run = probeRun(sandbox);
    const seeds: unknown[] = [];
    const seeder = { seed: async (target: unknown) => (seeds.push(target), { bucketName: 'seeded' }) } as unknown as TargetSeeder;
    const server: FakeServer = () => ({ outcome: text('ok'), effect: { log: ['upload_file'], state: { 'version:seeded/f#1': 'p' } } });
    const session = fakeSession(sandbox, server);
    const steps = writeSteps(run, seeder, session, [spec], { now: 5 });
    expect(steps.map(({ label, tool }) => [label, tool])).toEqual([['write b2_upload_file', 'b2_upload_file']]);
    await steps[0]!.run();
    expect(seeds).toEqual([{ kind: 'bucket' }]);
    expect(session.calls.map(({ args }) => args)).toEqual([{ bucketName: 'seeded', at: 5 }]);
    expect(run.observations).toEqual([{ aspect: 'write.effect', tool: 'b2_upload_file', variant: 'declared effect', passed: true, detail: 'did exactly what it declares (logs upload_file; 1 version added)' }]);
    const silent = writeSteps(run, seeder, fakeSession(sandbox, () => ({ outcome: { timedOut: true } })), [spec], { now: 5 });
    await expect(silent[0]!.run()).rejects.toThrow('no answer within the timeout');
  });
});

describe('probe tables: templates', () => {
  it('a whole placeholder keeps its type; an embedded one is text; nested values are filled', () => {
    const values = { target: { bucketId: 'b1', size: 3 }, now: 7, list: ['x'] };
    expect(fillTemplate({ id: '{{target.bucketId}}', size: '{{target.size}}', label: 'size={{target.size}} at {{now}}', list: ['{{list}}', 2, null, true], nested: { deep: '{{now}}' } }, values)).toEqual({
      id: 'b1',
      size: 3,
      label: 'size=3 at 7',
      list: [['x'], 2, null, true],
      nested: { deep: 7 },
    });
  });

  it('a placeholder that names nothing seeded is an error; malformed braces are text', () => {
    expect(() => fillTemplate({ a: '{{target.missing}}' }, { target: {} })).toThrow('probe table placeholder {{target.missing}} names nothing that was seeded');
    expect(() => fillTemplate('x {{nothing}}', {})).toThrow('{{nothing}}');
    expect(() => fillTemplate('{{now.deeper}}', { now: 5 })).toThrow('{{now.deeper}}');
    expect(fillTemplate('{{ spaced }} {{1bad}} {single}', {})).toBe('{{ spaced }} {{1bad}} {single}');
  });

  it('referencedNames lists the top-level names of every placeholder', () => {
    expect([...referencedNames({ a: '{{target.bucketId}} and {{hostile.key}}', b: ['{{now}}', { c: '{{target.x}}' }], d: 5, e: null })].sort()).toEqual(['hostile', 'now', 'target']);
    expect([...referencedNames('no placeholders')]).toEqual([]);
  });

  it('loading tables from a directory without them is a config error naming the file', () => {
    expect(() => loadProbeTables('/nonexistent-probe-tables')).toThrow(/^probe table \/nonexistent-probe-tables\/gates\.json: /);
  });
});

describe('the probe run: budget, timeouts, canaries', () => {
  it('step refuses once the deadline is reached, and finish records what did not run', () => {
    const clock = manualClock(0);
    const progress: [number, number, string][] = [];
    const run = probeRun(new FakeSandbox(), { now: clock.now, deadline: 100, budgetLabel: '100ms' }, (done, total, label) => progress.push([done, total, label]));
    run.plan(3);
    expect(run.step('one')).toBe(true);
    clock.advance(99);
    expect(run.step('two')).toBe(true);
    clock.advance(1);
    expect(run.halted).toBe(false);
    expect(run.step('three')).toBe(false);
    expect(run.halted).toBe(true);
    run.finish();
    expect(progress).toEqual([[0, 3, 'one'], [1, 3, 'two'], [3, 3, 'done']]);
    expect(run.observations).toEqual([{ aspect: 'run.incomplete', passed: false, variant: 'stopped early', detail: 'the probe time budget (--max-duration 100ms) ran out; 1 of 3 probe steps did not run' }]);
  });

  it('finish without a stop records nothing', () => {
    const run = probeRun(new FakeSandbox());
    run.plan(1);
    run.step('only');
    run.finish();
    expect(run.observations).toEqual([]);
  });

  it('requestTimeout is the per-call timeout, cut to the budget left, at least 1 ms', () => {
    const clock = manualClock(0);
    const run = probeRun(new FakeSandbox(), { now: clock.now, deadline: 10_000, timeoutMs: 3_000 });
    expect(run.requestTimeout()).toBe(3_000);
    clock.advance(8_000);
    expect(run.requestTimeout()).toBe(2_000);
    clock.advance(2_000.5);
    expect(run.requestTimeout()).toBe(1);
  });

  it(`${CONSECUTIVE_TIMEOUT_LIMIT} timeouts in a row halt the run; an answer between resets the count`, async () => {
    expect(CONSECUTIVE_TIMEOUT_LIMIT).toBe(3);
    const sandbox = new FakeSandbox();
    const run = probeRun(sandbox, { timeoutMs: 2_000 });
    let answers = [true, true, false, true, true, true];
    const session = fakeSession(sandbox, () => (answers.shift() ? { outcome: { timedOut: true } } : { outcome: text('ok') }));
    for (let index = 0; index < 5; index++) await run.call(session, 'read', `t${index}`, {});
    expect(run.halted).toBe(false);
    await run.call(session, 'read', 'last', {});
    expect(run.halted).toBe(true);
    expect(run.step('next')).toBe(false);
    run.plan(10);
    run.finish();
    expect(run.observations.at(-1)!.detail).toBe('3 probe calls in a row got no answer within --timeout 2000 ms (the last: last); 10 of 10 probe steps did not run');
    expect(session.calls.map(({ timeoutMs }) => timeoutMs)).toEqual([2_000, 2_000, 2_000, 2_000, 2_000, 2_000]);
    answers = [true];
  });

  it('timeouts near the deadline are named as the time left', async () => {
    const clock = manualClock(0);
    const sandbox = new FakeSandbox();
    const run = probeRun(sandbox, { now: clock.now, deadline: 1_000, timeoutMs: 5_000 });
    const session = fakeSession(sandbox, () => ({ outcome: { timedOut: true } }));
    for (let index = 0; index < 3; index++) await run.call(session, 'gate', 'slow', {});
    run.finish();
    expect(run.observations.at(-1)!.detail).toMatch(/^3 probe calls in a row got no answer within the time left \(the last: slow\)/);
  });

  it('counts calls by kind and elicitations of gate calls only', async () => {
    const sandbox = new FakeSandbox();
    const run = probeRun(sandbox);
    const session = fakeSession(sandbox, () => ({ outcome: { ...REFUSAL, elicitations: ['a', 'b'] } }));
    await run.call(session, 'gate', 't', {});
    await run.call(session, 'write', 't', {});
    await run.call(session, 'argument', 't', {});
    await run.call(session, 'read', 't', {});
    expect(run.counts()).toEqual({ gate: 1, read: 1, write: 1, argument: 1, elicitations: 2, leaks: 0, canaries: 0 });
  });

  it('a canary in any place of an answer is one leak per place, canary and encoding, and is masked in every detail', async () => {
    const sandbox = new FakeSandbox([{ name: 'application key', value: 'K005secretsecretsecret+/x' }]);
    const run = probeRun(sandbox);
    const session = fakeSession(sandbox, () => ({ outcome: { ...text('key K005secretsecretsecret+/x'), elicitations: ['K005secretsecretsecret+/x'] } }));
    await run.call(session, 'read', 'b2_leaky', {});
    await run.call(session, 'read', 'b2_leaky', {});
    expect(run.observations).toEqual([
      { aspect: 'secret.leak', passed: false, tool: 'b2_leaky', variant: 'result text: application key (raw)', detail: 'the application key given to the server appeared verbatim in the result text of b2_leaky' },
      { aspect: 'secret.leak', passed: false, tool: 'b2_leaky', variant: 'elicitation message: application key (raw)', detail: 'the application key given to the server appeared verbatim in the elicitation message of b2_leaky' },
    ]);
    expect(run.counts().leaks).toBe(2);
    run.scan('stderr', Buffer.from('K005secretsecretsecret+/x').toString('hex'));
    expect(run.observations.at(-1)).toEqual({ aspect: 'secret.leak', passed: false, variant: 'stderr: application key (hex)', detail: 'the application key given to the server appeared hex in its stderr' });
    run.record({ aspect: 'x', passed: true, detail: 'said K005secretsecretsecret+/x' });
    expect(run.observations.at(-1)!.detail).toBe('said ***');
  });

  it('tokens the sandbox issued become canaries from the next call on', async () => {
    const sandbox = new FakeSandbox();
    const run = probeRun(sandbox);
    const token = '4_0050000000000000000000000000000000000000token';
    const session = fakeSession(sandbox, ({ tool }) => (tool === 'auth' ? { outcome: text('ok'), effect: { issue: [token] } } : { outcome: text(`here ${token}`) }));
    await run.call(session, 'read', 'auth', {});
    await run.call(session, 'read', 'echo', {});
    expect(run.observations.map(({ variant }) => variant)).toEqual(['result text: B2 token (raw)']);
    expect(run.counts().canaries).toBe(1);
  });

  it('a structured result of a non-read call is judged for its format; read calls and errors are not', async () => {
    const sandbox = new FakeSandbox();
    const run = probeRun(sandbox);
    const structured = { result: { content: [{ type: 'text' as const, text: '{"a": 1}' }], structuredContent: { a: 1 } } };
    const session = fakeSession(sandbox, () => ({ outcome: structured }), { outputFormat: 'json' });
    await run.call(session, 'write', 'b2_w', {});
    await run.call(session, 'read', 'b2_r', {});
    expect(run.observations).toEqual([{ aspect: 'format.json', passed: false, detail: 'the JSON text is not compact (it has whitespace between tokens)', tool: 'b2_w', variant: 'json (write call)' }]);
    const unknownMode = fakeSession(sandbox, () => ({ outcome: { result: { ...structured.result, isError: true } } }), { outputFormat: null });
    await run.call(unknownMode, 'gate', 'b2_g', {});
    expect(run.observations).toHaveLength(1);
    const asConfigured = fakeSession(sandbox, () => ({ outcome: { result: { content: [{ type: 'text' as const, text: '{"a":1}' }], structuredContent: { a: 1 } } } }), { outputFormat: null });
    await run.call(asConfigured, 'argument', 'b2_a', {});
    expect(run.observations.at(-1)).toEqual({ aspect: 'format.json', passed: true, detail: 'compact JSON equal to structuredContent', tool: 'b2_a', variant: 'as configured (argument call)' });
  });

  it('incomplete records the first line of the error, bounded, with or without a tool', () => {
    const run = probeRun(new FakeSandbox());
    run.incomplete('b2_x', 'seeding', new Error(`first ${'y'.repeat(400)}\nsecond`));
    run.incomplete(undefined, 'closing', 'plain string');
    expect(run.observations).toEqual([
      { aspect: 'run.incomplete', passed: false, tool: 'b2_x', variant: 'seeding', detail: `seeding: first ${'y'.repeat(400)}`.slice(0, 'seeding: '.length + 300) },
      { aspect: 'run.incomplete', passed: false, variant: 'closing', detail: 'closing: plain string' },
    ]);
  });
});
