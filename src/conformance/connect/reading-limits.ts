/**
 * Bounds on what the checker reads from a server, whatever the transport: the size of one
 * message (stdio frame, HTTP body, SSE event), the size of one whole `tools/list` answer (all
 * pages), and how deep a message may nest. A server under audit is hostile: without these, one
 * answer could exhaust the checker's memory or overflow the stack of the SDK client parsing it.
 */

export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * Deepest nesting (objects and arrays) the SDK clients are given. Far above what any rule allows
 * (schema/limits), far below where their recursive validators overflow the stack.
 */
export const MAX_NESTING = 256;

/**
 * Most tools (or prompts) one listing may hold, all pages together: far beyond any real server,
 * and few enough that every finding about each of them still fits one report.
 */
const MAX_LISTED = 10_000;

/** The listings read page by page, each bounded as a whole. */
export type ListingMethod = 'tools/list' | 'prompts/list';

/** What a bound applies to, as the error message names it. */
export type LimitSubject = 'message' | 'listing' | 'nesting' | 'item count';

/** A server sent more than a bound allows. */
export class ReadLimitError extends Error {
  constructor(
    readonly subject: LimitSubject,
    readonly limit: number,
    /** What was read: "a stdout line", "an HTTP body", "an SSE event", "the tools/list answer (all pages)". */
    readonly where: string,
    /** For an item count: what the items are ("tools", "prompts"). */
    readonly items = 'items',
  ) {
    super(
      subject === 'nesting'
        ? `${where} nests deeper than ${limit} levels`
        : subject === 'item count'
          ? `${where} lists more than ${limit} ${items}`
          : `${where} exceeds ${formatBytes(limit)}`,
    );
    this.name = 'ReadLimitError';
  }
}

export function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  if (Number.isInteger(mib)) return `${mib} MiB`;
  const kib = bytes / 1024;
  return Number.isInteger(kib) ? `${kib} KiB` : `${bytes} bytes`;
}

const UNIT: Record<string, number> = {
  '': 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};

/** `16777216`, `16MiB`, `512k`, `1g` (binary units) → bytes; undefined when it is not a positive size. */
export function parseByteSize(text: string): number | undefined {
  const match = /^\s*(\d+)\s*([a-z]*)\s*$/i.exec(text);
  const unit = match ? UNIT[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined) return undefined;
  const bytes = Number(match[1]) * unit;
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
}

/** Depth of a JSON value (a scalar is 0, `{}` is 1), measured without recursion. */
export function nestingDepth(value: unknown): number {
  return jsonExtent(value).depth;
}

/**
 * Depth and member count (object keys and array items, at every level) of a JSON value, in one
 * pass without recursion.
 */
function jsonExtent(value: unknown): { depth: number; members: number } {
  let deepest = 0;
  let members = 0;
  const nodes: object[] = [];
  const depths: number[] = [];
  if (value !== null && typeof value === 'object') {
    nodes.push(value);
    depths.push(1);
  }
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > deepest) deepest = depth;
    // for…in over a parsed JSON object: own keys only, and no array of its values to allocate.
    for (const key in node) {
      members++;
      const child = (node as Record<string, unknown>)[key];
      if (child === null || typeof child !== 'object') continue;
      nodes.push(child);
      depths.push(depth + 1);
    }
  }
  return { depth: deepest, members };
}

/**
 * Most members (object keys and array items, all levels together) one tool part may hold to be
 * judged: far beyond any real schema (tens of thousands of tokens for one tool), and few enough
 * that every rule, the diff and the report stay linear and fast on it.
 */
export const MAX_PART_MEMBERS = 20_000;

/**
 * Most members the parts of all the tools of one listing may hold together to be judged: far more
 * than a real server's tools hold, and what one check judges within its time and memory bounds
 * (docs/benchmarks.md). Parts past it are replaced on arrival like a part too large.
 */
export const MAX_LISTING_MEMBERS = 100_000;

/** Levels above a tool part in a `tools/list` answer: message, result, tools, tool. */
const PART_DEPTH_IN_MESSAGE = 4;

/** The parts of a listed tool that hold nested JSON; the whole tool is bounded part by part. */
const TOOL_PARTS = ['inputSchema', 'outputSchema', 'annotations', '_meta'] as const;

/** A tool part too deep, too large, or past the listing's members, replaced before the SDK client saw it. */
export interface BoundedPart {
  tool: string;
  part: (typeof TOOL_PARTS)[number];
  depth: number;
  members: number;
  /** Set when the part was replaced because the listing's members, this part's included, came to this many. */
  listingMembers?: number;
}

/** Whether a tool part this deep is replaced on arrival (its message would nest too deep). */
export function partTooDeep(depth: number): boolean {
  return depth > MAX_NESTING - PART_DEPTH_IN_MESSAGE;
}

/** Whether a tool part with this many members is replaced on arrival. */
export function partTooLarge(members: number): boolean {
  return members > MAX_PART_MEMBERS;
}

/** Top-level entries a stand-in keeps: a part may be too large at its very top. */
const STAND_IN_KEYS = 64;

/**
 * What stands in for a part too deep or too large to pass on: its top level, with every object or array in it
 * emptied and at most STAND_IN_KEYS entries kept (the root keywords stay visible to the rules; the SDK's tool shape still holds).
 */
function standIn(part: BoundedPart['part'], value: unknown): unknown {
  const top: Record<string, unknown> = {};
  if (isRecord(value)) {
    for (const [key, child] of Object.entries(value).slice(0, STAND_IN_KEYS)) {
      const emptied = child === null || typeof child !== 'object' ? child : Array.isArray(child) ? [] : {};
      Object.defineProperty(top, key, { value: emptied, enumerable: true, writable: true, configurable: true });
    }
  }
  if (part === 'inputSchema' || part === 'outputSchema') top.type = 'object';
  return top;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Bound one incoming JSON-RPC message. Tools of a `tools/list` result whose parts nest too deep
 * or hold too many members, or whose members would take the listing past `listingMembers` (what
 * earlier pages already hold), get a stand-in part (recorded in `bounded`, so schema/limits reports
 * them); any other message that nests too deep is refused. Returns the listing's members after it.
 */
export function boundMessage(message: unknown, where: string, bounded: BoundedPart[], listingMembers = 0): number {
  const result = isRecord(message) ? message.result : undefined;
  const tools = isRecord(result) && Array.isArray(result.tools) ? result.tools : [];
  let total = listingMembers;
  for (const tool of tools) {
    if (!isRecord(tool)) continue;
    for (const part of TOOL_PARTS) {
      if (!Object.hasOwn(tool, part)) continue;
      const { depth, members } = jsonExtent(tool[part]);
      total += members;
      const pastListing = total > MAX_LISTING_MEMBERS;
      if (!partTooDeep(depth) && !partTooLarge(members) && !pastListing) continue;
      bounded.push({
        tool: typeof tool.name === 'string' ? tool.name : String(tool.name),
        part,
        depth,
        members,
        ...(pastListing ? { listingMembers: total } : {}),
      });
      tool[part] = standIn(part, tool[part]);
    }
  }
  if (nestingDepth(message) > MAX_NESTING) throw new ReadLimitError('nesting', MAX_NESTING, where);
  return total;
}

/**
 * The reading state of one connection: the bounds, what was replaced, and the total size of the
 * `tools/list` answer being read. `broken` rejects with the first bound a server breaks.
 */
export class ReadBudget {
  readonly bounded: BoundedPart[] = [];
  readonly broken: Promise<never>;
  private rejectBroken!: (error: Error) => void;
  private violation?: ReadLimitError;
  private listing: { method: ListingMethod; bytes: number; items: number; members: number } | undefined;

  constructor(readonly maxMessageBytes: number = DEFAULT_MAX_MESSAGE_BYTES) {
    this.broken = new Promise<never>((_, reject) => {
      this.rejectBroken = reject;
    });
    this.broken.catch(() => {}); // observed by whoever races it
  }

  /** The first bound this connection's server broke. */
  get exceeded(): ReadLimitError | undefined {
    return this.violation;
  }

  fail(error: ReadLimitError): ReadLimitError {
    this.violation ??= error;
    this.rejectBroken(this.violation);
    return this.violation;
  }

  /** Count the answer to `method` from now on, all pages together. */
  beginListing(method: ListingMethod): void {
    this.listing = { method, bytes: 0, items: 0, members: 0 };
  }

  endListing(): void {
    this.listing = undefined;
  }

  /**
   * Take in one complete message of `bytes` bytes read from `where`: parse it, bound it, and
   * count it against the listing in progress. Returns undefined when it is not JSON.
   */
  accept(text: string, bytes: number, where: string): unknown {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (this.listing !== undefined) {
      const { method } = this.listing;
      const answer = `the ${method} answer (all pages)`;
      const items = method === 'tools/list' ? 'tools' : 'prompts';
      this.listing.bytes += bytes;
      if (this.listing.bytes > this.maxMessageBytes) throw this.fail(new ReadLimitError('listing', this.maxMessageBytes, answer));
      const result = isRecord(message) ? message.result : undefined;
      const listed = isRecord(result) ? result[items] : undefined;
      this.listing.items += Array.isArray(listed) ? listed.length : 0;
      if (this.listing.items > MAX_LISTED) throw this.fail(new ReadLimitError('item count', MAX_LISTED, answer, items));
    }
    try {
      const members = boundMessage(message, where, this.bounded, this.listing?.members);
      if (this.listing) this.listing.members = members;
    } catch (error) {
      throw error instanceof ReadLimitError ? this.fail(error) : error;
    }
    return message;
  }
}
