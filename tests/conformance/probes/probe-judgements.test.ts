import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { deflateSync, gzipSync } from 'node:zlib';
import { argumentSteps, judgeUndeclared, undeclaredArgument } from '../../../src/conformance/probes/arguments.js';
import { changeText, mutationText } from '../../../src/conformance/probes/attempt.js';
import { judgeFormat } from '../../../src/conformance/probes/format.js';
import { judgeEffect, offTarget } from '../../../src/conformance/probes/gate.js';
import { readMutationSteps } from '../../../src/conformance/probes/reads.js';
import {
  callSurfaces,
  errorSummary,
  firstDifference,
  hasSignedUrl,
  quoteServerText,
  resultText,
} from '../../../src/conformance/probes/results.js';
import { CONSECUTIVE_TIMEOUT_LIMIT } from '../../../src/conformance/probes/run-state.js';
import { CanaryScanner } from '../../../src/conformance/probes/secrets.js';
import { fillTemplate, loadProbeTables, referencedNames } from '../../../src/conformance/probes/table.js';
import type { TargetSeeder } from '../../../src/conformance/probes/targets.js';
import { judgeWriteEffect, writeSteps } from '../../../src/conformance/probes/writes.js';
import { FakeSandbox, REFUSAL, fakeSession, manualClock, probeRun, text, type FakeServer } from '../../support/probe-fakes.js';

/** The probes' judgement functions and the run state, in-process, with fake observations. */
const outcome = (value: Record<string, unknown>) => ({ elicitations: [], ...value }) as never;

describe('results: what a call said', () => {
  it('resultText joins text blocks and shows other blocks as JSON', () => {
    expect(
      resultText(outcome({ result: { content: [{ type: 'text', text: 'a' }, { type: 'image', data: 'x' }, { type: 'text' }] } })),
    ).toBe('a\n{"type":"image","data":"x"}\n{"type":"text"}');
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
    expect(
      mutationText([
        { seq: 1, operation: 'a' },
        { seq: 2, operation: 'b' },
        { seq: 3, operation: 'a' },
      ]),
    ).toBe('3 changes in the sandbox (a, b)');
  });

  it('changeText counts by kind and change', () => {
    expect(changeText([])).toBe('');
    expect(
      changeText([
        { kind: 'bucket', name: 'x', change: 'added' },
        { kind: 'bucket', name: 'y', change: 'added' },
        { kind: 'key', name: 'k', change: 'removed' },
      ]),
    ).toBe('2 bucket added, 1 key removed');
  });
});

describe('judgeFormat: the text block against structuredContent, per output mode', () => {
  const structured = (value: unknown, body: string) =>
    outcome({ result: { content: [{ type: 'text', text: body }], structuredContent: value } });
  const value = {
    buckets: [
      { name: 'a', size: 1 },
      { name: 'b', size: 2 },
    ],
  };
  const TOON = 'buckets[2]{name,size}:\n  a,1\n  b,2';

  it.each([
    ['json', JSON.stringify(value), 'format.json', true, 'compact JSON equal to structuredContent'],
    ['json', JSON.stringify(value, null, 1), 'format.json', false, 'the JSON text is not compact (it has whitespace between tokens)'],
    ['json', TOON, 'format.json', false, 'the text block is not JSON'],
    [
      'json',
      JSON.stringify({ buckets: [{ name: 'a', size: 1 }] }),
      'format.json',
      false,
      'the JSON text differs from structuredContent at buckets (length 2 vs 1)',
    ],
    ['toon', TOON, 'format.toon', true, 'TOON that decodes to structuredContent'],
    ['toon', JSON.stringify(value), 'format.json', true, 'compact JSON equal to structuredContent'],
    [
      'toon',
      'buckets[2]{name,size}:\n  a,1\n  b,3',
      'format.toon',
      false,
      'the TOON text decodes to something else than structuredContent, first at buckets[1].size',
    ],
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
    expect(judgeFormat(structured('hello', '"hello"'), 'auto', 'result')).toEqual({
      aspect: 'format.json',
      passed: true,
      detail: 'compact JSON equal to structuredContent',
    });
    expect(judgeFormat(structured(7, '8'), 'auto', 'result')).toMatchObject({ aspect: 'format.toon' });
  });

  it('results without structuredContent, failed reads and protocol errors', () => {
    expect(judgeFormat(outcome(text('plain words')), 'json', 'result')).toEqual({
      aspect: 'format.plain',
      passed: true,
      detail: 'plain-text result without structuredContent',
    });
    expect(judgeFormat(outcome(text('[x] (HTTP 500)', true)), 'json', 'result')).toEqual({
      aspect: 'run.incomplete',
      passed: false,
      detail: 'the read failed with error x (HTTP 500): "[x] (HTTP 500)"',
    });
    expect(judgeFormat(outcome({ thrown: 'gone' }), 'json', 'error')).toEqual({
      aspect: 'run.incomplete',
      passed: false,
      detail: 'the read call failed with a protocol error: "gone"',
    });
  });

  it('an expected error must be an isError result in plain text', () => {
    expect(judgeFormat(outcome(text('found it')), 'json', 'error')).toEqual({
      aspect: 'run.incomplete',
      passed: false,
      detail: 'a read that must fail (missing object or bucket) returned a result',
    });
    expect(judgeFormat(outcome(text('[not_found] (HTTP 404): no such file', true)), 'toon', 'error')).toEqual({
      aspect: 'format.error',
      passed: true,
      detail: 'plain text (error not_found (HTTP 404): "[not_found] (HTTP 404): no such file")',
    });
    expect(
      judgeFormat(outcome({ result: { content: [{ type: 'text', text: 'x' }], isError: true, structuredContent: {} } }), 'json', 'error'),
    ).toEqual({ aspect: 'format.error', passed: false, detail: 'an error result carries structuredContent' });
    expect(judgeFormat(outcome(text(' {"error":"x"} ', true)), 'json', 'error')).toEqual({
      aspect: 'format.error',
      passed: false,
      detail: 'an error result is a JSON document instead of plain text',
    });
    expect(judgeFormat(outcome(text('[1]', true)), 'json', 'error')).toMatchObject({ passed: false });
    expect(judgeFormat(outcome(text('null', true)), 'json', 'error')).toMatchObject({ aspect: 'format.error', passed: true });
    expect(judgeFormat(outcome(text('42', true)), 'json', 'error')).toMatchObject({ aspect: 'format.error', passed: true });
  });
});

describe('CanaryScanner: every encoding a leak takes', () => {
  const secret = 'K005~~~~~~abcdefghij+/klmnopqrst';
  const alphanumericKey = 'K005abcdefghijKLMNOPQRSTuvwxyz0123';
  const scanner = () => new CanaryScanner([{ name: 'application key', value: secret, keyId: '005keyid' }]);
  const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64');
  const hex = (value: string) => Buffer.from(value).toString('hex');
  const percentEvery = (value: string, upper: boolean) =>
    [...Buffer.from(value)]
      .map((byte) => `%${byte.toString(16).padStart(2, '0')}`)
      .map((code) => (upper ? code.toUpperCase() : code))
      .join('');
  const base32 = (value: string) => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
    const bits = [...Buffer.from(value)].map((byte) => byte.toString(2).padStart(8, '0')).join('');
    return (bits.match(/.{1,5}/g) ?? []).map((chunk) => alphabet[parseInt(chunk.padEnd(5, '0'), 2)]).join('');
  };

  it.each([
    ['raw', `x${secret}y`],
    ['base64', b64(secret)],
    ['base64', `prefix${b64(`a${secret}`)}`],
    ['base64', b64(`ab${secret}`)],
    ['base64url', Buffer.from(`>>${secret}`).toString('base64url')],
    ['percent-encoded', encodeURIComponent(secret)],
    ['percent-encoded', percentEvery(secret, true)],
    ['percent-encoded', percentEvery(secret, false)],
    ['hex', hex(secret)],
    ['hex', hex(secret).toUpperCase()],
    ['hex', hex(secret).match(/../g)!.join(':')],
    ['reversed hex', [...hex(secret)].reverse().join('')],
    ['hex, reversed', hex([...secret].reverse().join(''))],
    ['reversed', [...secret].reverse().join('')],
    ['base64', `Authorization: Basic ${b64(`005keyid:${secret}`)}`],
    ['base32', base32(secret)],
    ['base32', base32(secret).toLowerCase()],
    ['escaped characters', [...secret].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
    ['escaped characters', [...secret].map((char) => `&#${char.charCodeAt(0)};`).join('')],
    ['character codes', [...secret].map((char) => char.charCodeAt(0)).join(', ')],
    ['separated characters', [...secret].join(' ')],
    ['separated characters', [...secret].join('.')],
    ['base64, base64', b64(b64(secret))],
    ['base64, gzip', b64(gzipSync(secret))],
    ['base64, deflate', b64(deflateSync(secret))],
    [
      'base64',
      `-----BEGIN DATA-----\n${b64(`${'padding '.repeat(12)}${secret}${' tail'.repeat(12)}`)
        .match(/.{1,32}/g)!
        .join('\n')}\n-----END DATA-----`,
    ],
    [
      'base64',
      JSON.stringify({
        pem: b64(`${'padding '.repeat(12)}${secret}`)
          .match(/.{1,40}/g)!
          .join('\r\n'),
      }),
    ],
  ])('finds it %s', (encoding, haystack) => {
    expect(scanner().scan(haystack)).toEqual([{ canary: 'application key', encoding }]);
  });

  it('an alphanumeric key percent-encoded byte by byte is found, though encodeURIComponent would leave it unchanged', () => {
    const plain = new CanaryScanner([{ name: 'application key', value: alphanumericKey }]);
    expect(encodeURIComponent(alphanumericKey)).toBe(alphanumericKey);
    expect(plain.scan(`see ${percentEvery(alphanumericKey, true)}`)).toEqual([{ canary: 'application key', encoding: 'percent-encoded' }]);
  });

  it('finds nothing in a near miss or in ordinary encoded data, and each canary once', () => {
    expect(scanner().scan(secret.slice(0, -1))).toEqual([]);
    expect(scanner().scan(b64(secret.slice(0, -3)))).toEqual([]);
    expect(
      scanner().scan(
        `${b64(randomBytes(300))} ${hex('an ordinary sentence, nothing more')} 12, 34, 56, 78, 90, 12, 34, 56, 78, 90, 11, 12`,
      ),
    ).toEqual([]);
    expect(scanner().scan(`${secret} ${secret} ${b64(secret)}`)).toEqual([{ canary: 'application key', encoding: 'raw' }]);
  });

  it('decoding is bounded in depth: three layers are decoded, a fourth is not', () => {
    let nested = secret;
    for (let layer = 0; layer < 3; layer++) nested = b64(nested);
    expect(scanner().scan(`${b64(randomBytes(20_000))} ${nested}`)).toEqual([
      { canary: 'application key', encoding: 'base64, base64, base64' },
    ]);
    expect(scanner().scan(b64(nested))).toEqual([]);
  });

  it('short secrets are found raw only; adding a known value again changes nothing', () => {
    const short = new CanaryScanner([{ name: 's', value: 'short' }]);
    expect(short.scan(b64('short'))).toEqual([]);
    short.add([
      { name: 'again', value: 'short' },
      { name: 'new', value: 'another-one' },
    ]);
    expect(short.canaryCount).toBe(2);
    expect(short.scan('short another-one').map((leak) => leak.canary)).toEqual(['s', 'new']);
  });

  it('mask replaces the raw and reversed value, and withholds a text that still holds it encoded', () => {
    expect(scanner().mask(`raw ${secret} back ${[...secret].reverse().join('')}`)).toBe('raw *** back ***');
    expect(scanner().mask(`b64 ${b64(secret)}`)).toBe('[withheld: it holds a secret the server was given]');
    expect(scanner().maskValue({ a: [`x ${secret}`, 1], b: percentEvery(secret, false) })).toEqual({
      a: ['x ***', 1],
      b: '[withheld: it holds a secret the server was given]',
    });
  });
});

describe('undeclared arguments', () => {
  const candidates = [{ force: true }, { __conform_probe: 1 }, { a: 1, b: 2 }];

  it('the first candidate the schema does not declare, by any of its names', () => {
    expect(undeclaredArgument({ name: 't', inputSchema: { properties: { force: {} } } } as never, candidates)).toEqual({
      __conform_probe: 1,
    });
    expect(undeclaredArgument({ name: 't' } as never, candidates)).toEqual({ force: true });
    expect(
      undeclaredArgument({ name: 't', inputSchema: { properties: { force: {}, __conform_probe: {}, b: {} } } } as never, candidates),
    ).toBeUndefined();
  });

  it.each([
    [
      { outcome: outcome({ thrown: 'MCP error -32602: Invalid arguments' }), mutations: [], changes: [] },
      true,
      'refused with JSON-RPC -32602 (invalid params); nothing changed',
    ],
    [
      { outcome: outcome({ thrown: 'MCP error -32603: internal' }), mutations: [], changes: [] },
      false,
      'b2_x answered the undeclared argument force: true with a protocol error other than -32602 (invalid params)',
    ],
    [{ outcome: outcome(REFUSAL), mutations: [], changes: [] }, true, `refused with ${errorSummary(outcome(REFUSAL))}; nothing changed`],
    [
      { outcome: outcome(text('ok')), mutations: [], changes: [] },
      false,
      'b2_x accepted the undeclared argument force: true instead of refusing the call',
    ],
    [
      { outcome: outcome(REFUSAL), mutations: [{ seq: 1, operation: 'delete' }], changes: [] },
      false,
      'b2_x acted on a call with the undeclared argument force: true: 1 change in the sandbox (delete)',
    ],
    [
      { outcome: outcome(REFUSAL), mutations: [], changes: [{ kind: 'bucket', name: 'b', change: 'removed' }] },
      false,
      'b2_x acted on a call with the undeclared argument force: true: the sandbox state changed (1 bucket removed)',
    ],
  ])('judgeUndeclared %#', (attempt, passed, detail) => {
    expect(judgeUndeclared('b2_x', 'force: true', attempt as never)).toEqual({ passed, detail });
  });

  it('argumentSteps: one step per tool that lacks a candidate, called with its valid arguments plus the extra one', async () => {
    const sandbox = new FakeSandbox();
    const run = probeRun(sandbox);
    const session = fakeSession(sandbox, ({ args }) =>
      'force' in args || '__conform_probe' in args ? { outcome: { thrown: 'MCP error -32602: bad' } } : { outcome: text('ok') },
    );
    const full = { name: 'b2_full', inputSchema: { properties: { force: {}, __conform_probe: {}, a: {}, b: {} } } };
    const steps = argumentSteps(
      run,
      session,
      [
        { tool: { name: 'b2_x', inputSchema: { properties: { id: {} } } } as never, prepare: async () => ({ id: 'i' }) },
        { tool: full as never, prepare: async () => ({}) },
      ],
      candidates,
    );
    expect(steps.map(({ label, tool }) => [label, tool])).toEqual([['undeclared argument b2_x', 'b2_x']]);
    expect(run.skipped).toEqual(['b2_full: its schema declares every undeclared-argument candidate of rules/probes/writes.json']);
    await steps[0]!.run();
    expect(session.calls.map(({ args }) => args)).toEqual([{ id: 'i', force: true }]);
    expect(run.observations).toEqual([
      {
        aspect: 'argument.undeclared',
        tool: 'b2_x',
        variant: 'force: true',
        passed: true,
        detail: 'refused with JSON-RPC -32602 (invalid params); nothing changed',
      },
    ]);
    const twoNames = argumentSteps(
      run,
      session,
      [{ tool: { name: 'b2_y', inputSchema: { properties: { force: {}, __conform_probe: {} } } } as never, prepare: async () => ({}) }],
      candidates,
    );
    await twoNames[0]!.run();
    expect(run.observations.at(-1)!.variant).toBe('a: 1, b: 2');
    const silent = argumentSteps(
      run,
      fakeSession(sandbox, () => ({ outcome: { timedOut: true } })),
      [{ tool: { name: 'b2_z' } as never, prepare: async () => ({}) }],
      candidates,
    );
    await expect(silent[0]!.run()).rejects.toThrow('no answer within the timeout');
  });
});

describe('reads change nothing', () => {
  it('a mutation only one read tool was running during is pinned on it; one several were running during makes each a suspect, called again alone', async () => {
    const sandbox = new FakeSandbox();
    const run = probeRun(sandbox);
    const session = fakeSession(sandbox, ({ tool }) => ({
      outcome: text('ok'),
      ...(tool === 'b2_sneaky' ? { effect: { log: ['b2_create_bucket'] } } : {}),
    }));
    sandbox.apply({ log: ['b2_create_bucket', 'PutObject'] });
    const windows = [
      { tool: 'b2_lone', args: {}, session, from: 0, to: 1 },
      { tool: 'b2_sneaky', args: { id: 1 }, session, from: 1, to: 2 },
      { tool: 'b2_honest', args: {}, session, from: 1, to: 2 },
      { tool: 'b2_quiet', args: {}, session, from: 2, to: 2 },
    ];
    const steps = await readMutationSteps(run, windows, 0);
    expect(steps.map(({ label }) => label)).toEqual(['read b2_sneaky again, alone', 'read b2_honest again, alone']);
    for (const step of steps) await step.run();
    expect(session.calls.map(({ tool, args }) => [tool, args])).toEqual([
      ['b2_sneaky', { id: 1 }],
      ['b2_honest', {}],
    ]);
    expect(run.observations.map(({ tool, passed, detail }) => [tool, passed, detail])).toEqual([
      ['b2_lone', false, 'b2_lone only reads, yet a call of it made 1 change in the sandbox (b2_create_bucket)'],
      ['b2_quiet', true, 'changed nothing'],
      ['b2_sneaky', false, 'b2_sneaky only reads, yet a call of it made 1 change in the sandbox (b2_create_bucket)'],
      ['b2_honest', true, 'changed nothing'],
    ]);
  });
});

describe('an approved gated call acts on its own target', () => {
  const target = { bucketName: 'b', key: 'k', fileName: 'k' };
  it.each([
    [{ seq: 1, operation: 'DeleteObject', bucketName: 'b', fileName: 'k' }, undefined],
    [{ seq: 1, operation: 'DeleteObject', bucketName: 'b' }, undefined],
    [{ seq: 1, operation: 'DeleteObject', bucketName: 'b', fileName: 'k.old' }, 'its fileName is "k.old", the target\'s "k"'],
    [{ seq: 1, operation: 'DeleteBucket', bucketName: 'other' }, 'its bucketName is "other", the target\'s "b"'],
    [{ seq: 1, operation: 'DeleteKey', applicationKeyId: 'x' }, undefined],
  ])('offTarget %#', (mutation, expected) => {
    expect(offTarget(mutation, target)).toBe(expected);
  });

  it('judgeEffect fails a change of something else, and passes the one change of the target', () => {
    const spec = { tool: 's3_delete_object', effect: 'mutation' as const };
    const attempt = (fileName: string) => ({
      outcome: outcome(text('deleted')),
      mutations: [{ seq: 1, operation: 'DeleteObject', bucketName: 'b', fileName }],
      changes: [],
      target,
    });
    expect(judgeEffect(spec, attempt('k'))).toEqual({ passed: true, detail: 'changed the sandbox once (DeleteObject)' });
    expect(judgeEffect(spec, attempt('k.old'))).toEqual({
      passed: false,
      detail:
        'an approved s3_delete_object changed something else than the target it was called on (DeleteObject: its fileName is "k.old", the target\'s "k")',
    });
  });
});

describe('write effects', () => {
  const effect = {
    mutations: [{ operation: 'PutObject', bucketName: 'b', fileName: 'k' }],
    changes: [{ change: 'version added', bucket: 'b', key: 'k', size: 3, sha1: 'abc', metadata: {}, versions: 1 }],
  };
  const attempt = (mutations: Record<string, unknown>[], result: Record<string, unknown> = text('ok')) =>
    ({ outcome: outcome(result), mutations: mutations.map((fields, index) => ({ seq: index + 1, ...fields })), changes: [] }) as never;
  const put = { operation: 'PutObject', bucketName: 'b', fileName: 'k' };
  const added = (facts: Record<string, unknown> = {}) => ({
    change: 'version added',
    bucket: 'b',
    key: 'k',
    size: 3,
    sha1: 'abc',
    metadata: {},
    versions: 1,
    ...facts,
  });

  it.each([
    [[put], [added()], true, 'did exactly what it declares (PutObject of b/k; version added b/k)'],
    [[put, put], [added()], false, 'b2_w must log exactly PutObject of b/k; it logged PutObject of b/k, PutObject of b/k'],
    [[], [], false, 'b2_w must log exactly PutObject of b/k; it logged nothing'],
    [
      [{ ...put, fileName: 'k-copy' }],
      [added({ key: 'k-copy' })],
      false,
      'b2_w must log exactly PutObject of b/k; it logged PutObject of b/k-copy',
    ],
    [
      [put],
      [],
      false,
      'b2_w must change exactly what it declares; the store shows missing version added b/k (size 3, sha1 abc, metadata {}, versions 1)',
    ],
    [
      [put],
      [added({ sha1: 'def' })],
      false,
      'b2_w must change exactly what it declares; the store shows missing version added b/k (size 3, sha1 abc, metadata {}, versions 1), found instead or besides version added b/k (size 3, sha1 def, metadata {}, versions 1)',
    ],
    [
      [put],
      [added({ metadata: { injected: 'yes' } })],
      false,
      expect.stringContaining('found instead or besides version added b/k (size 3, sha1 abc, metadata {"injected":"yes"}'),
    ],
    [
      [put],
      [added(), { change: 'bucket changed', name: 'other' }],
      false,
      'b2_w must change exactly what it declares; the store shows found instead or besides bucket changed other',
    ],
    [[put], [added({ versions: 2 })], false, expect.stringContaining('versions 2')],
  ])('judgeWriteEffect %#', (mutations, observed, passed, detail) => {
    expect(judgeWriteEffect('b2_w', effect, attempt(mutations), observed as never)).toEqual({ passed, detail });
  });

  it('a failed call fails, with what it changed', () => {
    expect(judgeWriteEffect('b2_w', effect, attempt([put], REFUSAL), [])).toEqual({
      passed: false,
      detail: `b2_w failed with ${errorSummary(outcome(REFUSAL))} (1 change in the sandbox (PutObject))`,
    });
    expect(judgeWriteEffect('b2_w', effect, attempt([], { thrown: 'x' }), [])).toEqual({
      passed: false,
      detail: 'b2_w failed with a protocol error: "x"',
    });
  });

  it('a presigned URL must be exactly one, for the object, upload and part asked for', () => {
    const presign = { mutations: [], changes: [], signedUrl: { bucket: 'b', key: 'dir/k.bin', uploadId: 'u1', partNumber: 1 } };
    const url = (path: string, query: string) => text(`https://s3.example.com${path}?${query}&X-Amz-Signature=s`);
    expect(judgeWriteEffect('s3_p', presign, attempt([], url('/b/dir/k.bin', 'partNumber=1&uploadId=u1')), [])).toMatchObject({
      passed: true,
    });
    expect(judgeWriteEffect('s3_p', presign, attempt([], url('/b/dir/other.bin', 'partNumber=1&uploadId=u1')), [])).toEqual({
      passed: false,
      detail: 's3_p returned a presigned URL for another object or part than b/dir/k.bin part 1 (/b/dir/other.bin)',
    });
    expect(judgeWriteEffect('s3_p', presign, attempt([], url('/b/dir/k.bin', 'partNumber=2&uploadId=u1')), [])).toMatchObject({
      passed: false,
    });
    expect(judgeWriteEffect('s3_p', presign, attempt([]), [])).toEqual({
      passed: false,
      detail: 's3_p must return exactly one presigned URL, for b/dir/k.bin part 1; it returned 0',
    });
  });

  it('writeSteps seeds a target per tool, fills the template and the effect, and records the verdict', async () => {
    const sandbox = new FakeSandbox();
    const run = probeRun(sandbox);
    const seeds: unknown[] = [];
    const seeder = { seed: async (target: unknown) => (seeds.push(target), { bucketName: 'seeded' }) } as unknown as TargetSeeder;
    const spec = {
      tool: 'b2_upload_file',
      target: { kind: 'bucket' },
      arguments: { bucketName: '{{target.bucketName}}', at: '{{now}}' },
      effect: {
        mutations: [{ operation: 'upload_file' }],
        changes: [{ change: 'version added', bucket: '{{target.bucketName}}', key: 'f', size: 2 }],
      },
    };
    sandbox.facts['version:seeded/f#1'] = { bucket: 'seeded', key: 'f', size: 2 };
    const server: FakeServer = () => ({ outcome: text('ok'), effect: { log: ['upload_file'], state: { 'version:seeded/f#1': 'p' } } });
    const session = fakeSession(sandbox, server);
    const steps = writeSteps(run, seeder, session, [spec], { now: 5 });
    expect(steps.map(({ label, tool }) => [label, tool])).toEqual([
      ['write b2_upload_file', 'b2_upload_file'],
      ['write b2_upload_file again', 'b2_upload_file'],
    ]);
    await steps[0]!.run();
    expect(seeds).toEqual([{ kind: 'bucket' }]);
    expect(session.calls.map(({ args }) => args)).toEqual([{ bucketName: 'seeded', at: 5 }]);
    expect(run.observations).toEqual([
      {
        aspect: 'write.effect',
        tool: 'b2_upload_file',
        variant: 'declared effect',
        passed: true,
        detail: 'did exactly what it declares (upload_file; version added seeded/f)',
      },
    ]);
    const silent = writeSteps(
      run,
      seeder,
      fakeSession(sandbox, () => ({ outcome: { timedOut: true } })),
      [spec],
      { now: 5 },
    );
    await expect(silent[0]!.run()).rejects.toThrow('no answer within the timeout');
  });
});

describe('probe tables: templates', () => {
  it('a whole placeholder keeps its type; an embedded one is text; nested values are filled', () => {
    const values = { target: { bucketId: 'b1', size: 3 }, now: 7, list: ['x'] };
    expect(
      fillTemplate(
        {
          id: '{{target.bucketId}}',
          size: '{{target.size}}',
          label: 'size={{target.size}} at {{now}}',
          list: ['{{list}}', 2, null, true],
          nested: { deep: '{{now}}' },
        },
        values,
      ),
    ).toEqual({
      id: 'b1',
      size: 3,
      label: 'size=3 at 7',
      list: [['x'], 2, null, true],
      nested: { deep: 7 },
    });
  });

  it('a placeholder that names nothing seeded is an error; malformed braces are text', () => {
    expect(() => fillTemplate({ a: '{{target.missing}}' }, { target: {} })).toThrow(
      'probe table placeholder {{target.missing}} names nothing that was seeded',
    );
    expect(() => fillTemplate('x {{nothing}}', {})).toThrow('{{nothing}}');
    expect(() => fillTemplate('{{now.deeper}}', { now: 5 })).toThrow('{{now.deeper}}');
    expect(fillTemplate('{{ spaced }} {{1bad}} {single}', {})).toBe('{{ spaced }} {{1bad}} {single}');
  });

  it('referencedNames lists the top-level names of every placeholder', () => {
    expect(
      [...referencedNames({ a: '{{target.bucketId}} and {{hostile.key}}', b: ['{{now}}', { c: '{{target.x}}' }], d: 5, e: null })].sort(),
    ).toEqual(['hostile', 'now', 'target']);
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
    const run = probeRun(new FakeSandbox(), { now: clock.now, deadline: 100, budgetLabel: '100ms' }, (done, total, label) =>
      progress.push([done, total, label]),
    );
    run.plan(3);
    expect(run.step('one')).toBe(true);
    clock.advance(99);
    expect(run.step('two')).toBe(true);
    clock.advance(1);
    expect(run.halted).toBe(false);
    expect(run.step('three')).toBe(false);
    expect(run.halted).toBe(true);
    run.finish();
    expect(progress).toEqual([
      [0, 3, 'one'],
      [1, 3, 'two'],
      [3, 3, 'done'],
    ]);
    expect(run.observations).toEqual([
      {
        aspect: 'run.incomplete',
        passed: false,
        variant: 'stopped early',
        detail: 'the probe time budget (--max-duration 100ms) ran out; 1 of 3 probe steps did not run',
      },
    ]);
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
    expect(run.observations.at(-1)!.detail).toBe(
      '3 probe calls in a row got no answer within --timeout 2000 ms (the last: last); 10 of 10 probe steps did not run',
    );
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

  it('every part of every message the server sent is searched, by its place, once per place, canary and encoding; details are masked', () => {
    const key = 'K005secretsecretsecret+/x';
    const run = probeRun(new FakeSandbox([{ name: 'application key', value: key }]));
    const result = (fields: Record<string, unknown>) => ({ message: { jsonrpc: '2.0', id: 1, result: fields }, tool: 'b2_leaky' }) as never;
    run.searchMessages([
      result({ content: [{ type: 'text', text: `key ${key}` }] }),
      result({ content: [{ type: 'text', text: `again ${key}` }] }),
      result({ content: [], _meta: { 'x/debug': { a: key.slice(0, 10), b: key.slice(10) } } }),
      result({ content: [], _meta: { trace: encodeURIComponent(key) } }),
      { message: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: [...key].join(' ') } } } as never,
      { message: { jsonrpc: '2.0', id: 2, method: 'elicitation/create', params: { message: key } }, tool: 'b2_gated' } as never,
      {
        message: { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-11-25', instructions: Buffer.from(key).toString('base64') } },
      } as never,
      { message: { jsonrpc: '2.0', id: 3, error: { code: -32603, message: [...key].reverse().join('') } }, tool: 'b2_err' } as never,
    ]);
    expect(run.observations.map(({ tool, variant, detail }) => [tool, variant, detail])).toEqual([
      [
        'b2_leaky',
        'result text: application key (raw)',
        'the application key given to the server appeared verbatim in the result text of b2_leaky',
      ],
      [
        'b2_leaky',
        'result _meta (split across fields): application key (raw)',
        'the application key given to the server appeared verbatim in the result _meta (split across fields) of b2_leaky',
      ],
      [
        'b2_leaky',
        'result _meta: application key (percent-encoded)',
        'the application key given to the server appeared percent-encoded in the result _meta of b2_leaky',
      ],
      [
        undefined,
        'log notification: application key (separated characters)',
        'the application key given to the server appeared separated characters in its log notification',
      ],
      [
        'b2_gated',
        'elicitation request: application key (raw)',
        'the application key given to the server appeared verbatim in the elicitation request of b2_gated',
      ],
      [undefined, 'instructions: application key (base64)', 'the application key given to the server appeared base64 in its instructions'],
      [
        'b2_err',
        'protocol error: application key (reversed)',
        'the application key given to the server appeared reversed in the protocol error of b2_err',
      ],
    ]);
    expect(run.counts().leaks).toBe(7);
    run.searchMessages([
      {
        message: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `part ${key.slice(0, 12)}` } },
        tool: 'b2_halves',
      },
      { message: { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: key.slice(12) }] } }, tool: 'b2_halves' },
    ] as never);
    expect(run.observations.at(-1)).toMatchObject({
      tool: 'b2_halves',
      variant: 'messages of one call (split across messages): application key (raw)',
    });
    run.scan('stderr', Buffer.from(key).toString('hex'));
    expect(run.observations.at(-1)).toEqual({
      aspect: 'secret.leak',
      passed: false,
      variant: 'stderr: application key (hex)',
      detail: 'the application key given to the server appeared hex in its stderr',
    });
    run.record({ aspect: 'x', passed: true, detail: `said ${key}` });
    expect(run.observations.at(-1)!.detail).toBe('said ***');
  });

  it('tokens the sandbox issued are canaries for every message, those that came before they were known too', async () => {
    const sandbox = new FakeSandbox();
    const run = probeRun(sandbox);
    const token = '4_0050000000000000000000000000000000000000token';
    const session = fakeSession(sandbox, () => ({ outcome: text('ok'), effect: { issue: [token] } }));
    const early = { message: { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 't', description: `session ${token}` }] } } } as never;
    await run.call(session, 'read', 'auth', {});
    run.searchMessages([early]);
    expect(run.observations.map(({ variant }) => variant)).toEqual(['tools/list: B2 token (raw)']);
    expect(run.counts().canaries).toBe(1);
  });

  it('a structured result of a non-read call is judged for its format; read calls and errors are not', async () => {
    const sandbox = new FakeSandbox();
    const run = probeRun(sandbox);
    const structured = { result: { content: [{ type: 'text' as const, text: '{"a": 1}' }], structuredContent: { a: 1 } } };
    const session = fakeSession(sandbox, () => ({ outcome: structured }), { outputFormat: 'json' });
    await run.call(session, 'write', 'b2_w', {});
    await run.call(session, 'read', 'b2_r', {});
    expect(run.observations).toEqual([
      {
        aspect: 'format.json',
        passed: false,
        detail: 'the JSON text is not compact (it has whitespace between tokens)',
        tool: 'b2_w',
        variant: 'json (write call)',
      },
    ]);
    const unknownMode = fakeSession(sandbox, () => ({ outcome: { result: { ...structured.result, isError: true } } }), {
      outputFormat: null,
    });
    await run.call(unknownMode, 'gate', 'b2_g', {});
    expect(run.observations).toHaveLength(1);
    const asConfigured = fakeSession(
      sandbox,
      () => ({ outcome: { result: { content: [{ type: 'text' as const, text: '{"a":1}' }], structuredContent: { a: 1 } } } }),
      { outputFormat: null },
    );
    await run.call(asConfigured, 'argument', 'b2_a', {});
    expect(run.observations.at(-1)).toEqual({
      aspect: 'format.json',
      passed: true,
      detail: 'compact JSON equal to structuredContent',
      tool: 'b2_a',
      variant: 'as configured (argument call)',
    });
  });

  it('incomplete records the first line of the error, bounded, with or without a tool', () => {
    const run = probeRun(new FakeSandbox());
    run.incomplete('b2_x', 'seeding', new Error(`first ${'y'.repeat(400)}\nsecond`));
    run.incomplete(undefined, 'closing', 'plain string');
    expect(run.observations).toEqual([
      {
        aspect: 'run.incomplete',
        passed: false,
        tool: 'b2_x',
        variant: 'seeding',
        detail: `seeding: first ${'y'.repeat(400)}`.slice(0, 'seeding: '.length + 300),
      },
      { aspect: 'run.incomplete', passed: false, variant: 'closing', detail: 'closing: plain string' },
    ]);
  });
});
