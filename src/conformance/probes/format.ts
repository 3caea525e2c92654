import { isDeepStrictEqual } from 'node:util';
import { decode } from '@toon-format/toon';
import { errorSummary, firstDifference, resultText } from './results.js';
import type { CallOutcome } from './sessions.js';
import type { ProbeObservation } from './types.js';

/** The output format a session's server runs with; null when unknown (a server started by hand). */
export type FormatMode = 'toon' | 'json' | 'auto' | null;

type Verdict = Pick<ProbeObservation, 'aspect' | 'passed' | 'detail'>;

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function decodeToon(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: decode(text) };
  } catch (error) {
    return { ok: false, error: (error as Error).message.split('\n')[0]!.slice(0, 160) };
  }
}

/** An error result stays plain text in every mode: no structuredContent, and text that is not a JSON document. */
function judgeError(outcome: CallOutcome): Verdict {
  const result = outcome.result!;
  if (result.structuredContent !== undefined)
    return { aspect: 'format.error', passed: false, detail: 'an error result carries structuredContent' };
  const parsed = parseJson(resultText(outcome).trim());
  if (parsed.ok && parsed.value !== null && typeof parsed.value === 'object')
    return { aspect: 'format.error', passed: false, detail: 'an error result is a JSON document instead of plain text' };
  return { aspect: 'format.error', passed: true, detail: `plain text (${errorSummary(outcome)})` };
}

/** Compact JSON equal to structuredContent, or why not. */
function judgeJson(text: string, expected: unknown): Verdict {
  const parsed = parseJson(text);
  if (!parsed.ok) return { aspect: 'format.json', passed: false, detail: 'the text block is not JSON' };
  if (!isDeepStrictEqual(parsed.value, expected))
    return {
      aspect: 'format.json',
      passed: false,
      detail: `the JSON text differs from structuredContent at ${firstDifference(expected, parsed.value)}`,
    };
  if (JSON.stringify(parsed.value) !== text)
    return { aspect: 'format.json', passed: false, detail: 'the JSON text is not compact (it has whitespace between tokens)' };
  return { aspect: 'format.json', passed: true, detail: 'compact JSON equal to structuredContent' };
}

/** TOON the official decoder reads back to structuredContent, or why not. */
function judgeToon(text: string, expected: unknown): Verdict {
  const decoded = decodeToon(text);
  if (!decoded.ok)
    return { aspect: 'format.toon', passed: false, detail: `the official TOON decoder rejects the text block: ${decoded.error}` };
  if (!isDeepStrictEqual(decoded.value, expected))
    return {
      aspect: 'format.toon',
      passed: false,
      detail: `the TOON text decodes to something else than structuredContent, first at ${firstDifference(expected, decoded.value)}`,
    };
  return { aspect: 'format.toon', passed: true, detail: 'TOON that decodes to structuredContent' };
}

/**
 * Judge one read call's text block against its structuredContent for the server's output mode:
 * `json` wants compact JSON; `toon` wants TOON (compact JSON is its documented fallback); `auto`,
 * and a server whose mode is unknown, may answer either per result.
 */
export function judgeFormat(
  outcome: CallOutcome,
  mode: FormatMode,
  expect: 'result' | 'error',
): Verdict | { aspect: 'run.incomplete'; passed: false; detail: string } {
  if (outcome.thrown) return { aspect: 'run.incomplete', passed: false, detail: `the read call failed with ${errorSummary(outcome)}` };
  const result = outcome.result!;
  if (expect === 'error') {
    if (!result.isError)
      return { aspect: 'run.incomplete', passed: false, detail: 'a read that must fail (missing object or bucket) returned a result' };
    return judgeError(outcome);
  }
  if (result.isError) return { aspect: 'run.incomplete', passed: false, detail: `the read failed with ${errorSummary(outcome)}` };
  if (result.structuredContent === undefined)
    return { aspect: 'format.plain', passed: true, detail: 'plain-text result without structuredContent' };
  const text = resultText(outcome);
  const expected = result.structuredContent;
  if (mode === 'json') return judgeJson(text, expected);
  const asJson = judgeJson(text, expected);
  if (asJson.passed) return asJson;
  if (mode === 'toon') return judgeToon(text, expected);
  const looksJson = parseJson(text).ok && /^[[{]/.test(text);
  return looksJson ? asJson : judgeToon(text, expected);
}
