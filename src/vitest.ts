/**
 * `b2-mcp-conform/vitest`: the `toPassContract()` matcher for a server's own tests (vitest or
 * jest: `expect.extend(contractMatchers)`).
 */
export { contractMatchers, toPassContract, type MatcherResult } from './conformance/matchers.js';
