import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { startMcpHttpServer } from '../shared/mcp/http.js';
import { createMcpServer, type McpOptions } from '../shared/mcp/server.js';
import { checkMcpWebhookUrl, mcpWebhookPolicy } from '../shared/mcp/webhook.js';

/**
 * `npm run mcp`: the MCP server over the public API with the caller's key (`PEOPLE_API_KEY`), against
 * `PEOPLE_API_URL` (default the local stack, http://localhost:3000). stdio by default; `--http` (or
 * `MCP_HTTP_PORT`, 0 for any free one) serves Streamable HTTP at http://127.0.0.1:<port>/mcp, stateless,
 * behind Host/Origin checks and a bearer token (shared/mcp/http.ts): a random one printed once at start, or
 * `MCP_HTTP_TOKEN` when set. `MCP_WEBHOOK_URL` (required) is the `webhook_url` every async tool sends, checked
 * here once by the service's webhook-target rules (shared/mcp/webhook.ts) before anything is served.
 */
const apiKey = process.env.PEOPLE_API_KEY;
if (!apiKey) {
  console.error('Set PEOPLE_API_KEY to your API key (npm start prints the demo one).');
  process.exit(1);
}
const origin = process.env.PEOPLE_API_URL ?? 'http://localhost:3000';
let webhookUrl: string;
try {
  webhookUrl = await checkMcpWebhookUrl(process.env.MCP_WEBHOOK_URL, mcpWebhookPolicy(origin));
} catch (e) {
  console.error((e as Error).message);
  process.exit(1);
}
const opts: McpOptions = {
  origin,
  apiKey,
  webhookUrl,
  waitSeconds: Number(process.env.MCP_WAIT_SECONDS ?? 120),
  pollIntervalMs: Number(process.env.MCP_POLL_MS ?? 2000),
};

const httpPort = process.env.MCP_HTTP_PORT ?? (process.argv.includes('--http') ? '3333' : undefined);
if (httpPort === undefined) {
  await createMcpServer(opts).connect(new StdioServerTransport());
} else {
  const fixed = process.env.MCP_HTTP_TOKEN || undefined;
  const http = await startMcpHttpServer({ mcp: opts, port: Number(httpPort), token: fixed });
  console.error(`MCP (Streamable HTTP) at ${http.url}`);
  console.error(fixed ? 'Bearer token: the one in MCP_HTTP_TOKEN' : `Bearer token: ${http.token} (printed once; send it as Authorization: Bearer <token>)`);
}
