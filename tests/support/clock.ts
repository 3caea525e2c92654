/**
 * The tests' one clock. Every test process reads time through `Date`, which the clock preload
 * (a vitest setup file) shifts when `TEST_TIME_OF_DAY=HH:MM` (UTC) is set; the sandbox takes
 * `testClock.now`, and spawned servers get the same shift through `nodeArgs` and `env`, so both
 * sides of a date-sensitive call agree on "now". `clockAt` makes a clock for one test that reads
 * a given time of day.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { processOffsetMs } from './clock-preload.mjs';

const DAY_MS = 86_400_000;
const PRELOAD = pathToFileURL(join(import.meta.dirname, 'clock-preload.mjs')).href;

export interface TestClock {
  /** What the clock says it is, in ms since the epoch. */
  now(): number;
  readonly label: string;
  /** Node arguments and environment that give a spawned process the same clock. */
  readonly nodeArgs: string[];
  readonly env: Record<string, string>;
}

/** `extraMs` on top of this process's (possibly shifted) Date. */
function shiftedBy(extraMs: number, label: string): TestClock {
  const total = (processOffsetMs as number) + extraMs;
  return {
    now: () => Date.now() + extraMs,
    label,
    nodeArgs: total !== 0 ? ['--import', PRELOAD] : [],
    env: total !== 0 ? { TEST_CLOCK_OFFSET_MS: String(total) } : {},
  };
}

export const testClock: TestClock = shiftedBy(0, process.env.TEST_TIME_OF_DAY ? `${process.env.TEST_TIME_OF_DAY} UTC` : 'real time');

/** A clock that reads `HH:MM` UTC today now and runs on from there. */
export function clockAt(timeOfDay: string): TestClock {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(timeOfDay);
  if (!match) throw new Error(`time of day must be HH:MM (UTC), got "${timeOfDay}"`);
  const now = Date.now();
  const target = Math.floor(now / DAY_MS) * DAY_MS + (Number(match[1]) * 60 + Number(match[2])) * 60_000;
  return shiftedBy(target - now, `${timeOfDay} UTC`);
}

/**
 * Times of day that break careless day arithmetic: early morning (before the hour the demo data
 * was once laid out at) and a minute before midnight. Make the clock when the test starts.
 */
export const AWKWARD_TIMES_OF_DAY = ['03:30', '23:59'] as const;
