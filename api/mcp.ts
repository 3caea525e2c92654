/**
 * The Vercel entry point (Node.js runtime): `b2-mcp` at `/api/mcp` (and `/api/health`, routed here by
 * vercel.json), configured by the project's environment variables under the names of the README's
 * configuration table. Vercel's proxy sets `X-Forwarded-For`, which the per-address limits trust.
 */
import { createFetchHandler } from '../src/server/fetch-handler.js';

const handler = createFetchHandler({ env: { B2_TRUST_PROXY_HEADERS: 'true', ...process.env } });

export const GET = (request: Request): Promise<Response> => handler(request);
export const POST = GET;
export const DELETE = GET;
