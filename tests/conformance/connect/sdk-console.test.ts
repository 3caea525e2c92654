import { afterAll, beforeEach, expect, test } from 'vitest';
import { callerCallback, withoutSdkConsole } from '../../../src/conformance/connect/sdk-console.js';

// The guard wraps whatever console methods exist when it is first used: record through them.
const printed: string[] = [];
const saved = { warn: console.warn, log: console.log, error: console.error };
beforeEach(() => {
  printed.length = 0;
});
afterAll(() => Object.assign(console, saved));
console.warn = (...args: unknown[]) => void printed.push(`warn ${args.join(' ')}`);
console.log = (...args: unknown[]) => void printed.push(`log ${args.join(' ')}`);
console.error = (...args: unknown[]) => void printed.push(`error ${args.join(' ')}`);

test('console output from inside the work is dropped, also after an await and in a timer', async () => {
  const result = await withoutSdkConsole(async () => {
    console.warn("[mcp-sdk] excluding tool '\x1b[2Jx'");
    await Promise.resolve();
    console.log('to stdout');
    await new Promise<void>((resolve) => setImmediate(() => (console.error('later'), resolve())));
    return 42;
  });
  expect(result).toBe(42);
  expect(printed).toEqual([]);
});

test('outside the work, and in the caller’s own callbacks, console output passes', async () => {
  const progress = callerCallback((step: string) => console.log(`progress ${step}`));
  await withoutSdkConsole(async () => {
    progress('1/2');
    console.warn('dropped');
  });
  console.warn('after');
  expect(printed).toEqual(['log progress 1/2', 'warn after']);
});

test('work that fails still fails, and only its own output is dropped', async () => {
  const failing = withoutSdkConsole(async () => {
    console.warn('dropped');
    throw new Error('broken');
  });
  console.warn('alongside');
  await expect(failing).rejects.toThrow('broken');
  expect(printed).toEqual(['warn alongside']);
});
