/** Byte quantities as the analytics tools report them. GB is decimal: 1 GB = 1e9 bytes. */

const BYTES_PER_GB = 1_000_000_000n;
const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * Parses a non-negative decimal GB quantity (`"42.000123"`) to an exact byte count; digits past
 * the ninth decimal (below one byte) are rounded half up. `undefined` for anything else.
 */
export function parseGbToBytes(text: string): bigint | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const fraction = match[2] ?? '';
  let bytes = BigInt(match[1]!) * BYTES_PER_GB + BigInt(fraction.slice(0, 9).padEnd(9, '0'));
  if (fraction.length > 9 && fraction.charCodeAt(9) >= 0x35 /* '5' */) bytes += 1n;
  return bytes;
}

/** Bytes as GB, rounded to six decimals (the precision of the usage reports). */
export function bytesToGb(bytes: bigint | number): number {
  const big = typeof bytes === 'bigint' ? bytes : BigInt(Math.round(bytes));
  const sign = big < 0n ? -1 : 1;
  const magnitude = big < 0n ? -big : big;
  // Round to whole kilobytes (1e-6 GB) in integers, half away from zero, before going to float.
  const micro = (magnitude + 500n) / 1000n;
  return (sign * Number(micro)) / 1e6;
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];

/** A short decimal size for people: `20.5 KB`, `48 MB`, `1.23 TB`. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < UNITS.length - 1) {
    value /= 1000;
    unit += 1;
  }
  const rounded = value >= 100 || unit === 0 ? Math.round(value) : Number(value.toPrecision(3));
  return `${rounded} ${UNITS[unit]}`;
}
