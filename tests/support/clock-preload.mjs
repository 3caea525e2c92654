// The test clock for a whole process: vitest loads it as a setup file, spawned servers with
// `node --import` (see clock.ts). TEST_TIME_OF_DAY=HH:MM (UTC) makes Date read that time of day
// when the process starts, advancing in real time from there; TEST_CLOCK_OFFSET_MS passes the
// exact shift on to child processes. Timers are untouched.
const APPLIED = Symbol.for('b2-mcp-tests.clock-offset');
const DAY_MS = 86_400_000;

function offsetFromTimeOfDay(timeOfDay) {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(timeOfDay);
  if (!match) throw new Error(`TEST_TIME_OF_DAY must be HH:MM (UTC), got "${timeOfDay}"`);
  const real = Date.now();
  return Math.floor(real / DAY_MS) * DAY_MS + (Number(match[1]) * 60 + Number(match[2])) * 60_000 - real;
}

if (globalThis[APPLIED] === undefined) {
  if (!process.env.TEST_CLOCK_OFFSET_MS && process.env.TEST_TIME_OF_DAY) {
    process.env.TEST_CLOCK_OFFSET_MS = String(offsetFromTimeOfDay(process.env.TEST_TIME_OF_DAY));
  }
  const offsetMs = Number(process.env.TEST_CLOCK_OFFSET_MS ?? 0);
  if (!Number.isFinite(offsetMs)) throw new Error(`TEST_CLOCK_OFFSET_MS must be a number of ms`);
  globalThis[APPLIED] = offsetMs;
  if (offsetMs !== 0) {
    const RealDate = Date;
    globalThis.Date = class ShiftedDate extends RealDate {
      constructor(...args) {
        if (args.length === 0) super(RealDate.now() + offsetMs);
        else super(...args);
      }
      static now() {
        return RealDate.now() + offsetMs;
      }
    };
  }
}

export const processOffsetMs = globalThis[APPLIED];
