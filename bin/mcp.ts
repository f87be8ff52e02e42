import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpServer, type McpOptions } from '../shared/mcp/server.js';

/**
 * `npm run mcp`: the MCP server over the public API with the caller's key (`PEOPLE_API_KEY`), against
 * `PEOPLE_API_URL` (default the local stack, http://localhost:3000). stdio by default; `--http` (or
 * `MCP_HTTP_PORT`, 0 for any free one) serves Streamable HTTP at http://127.0.0.1:<port>/mcp, stateless.
 */
const apiKey = process.env.PEOPLE_API_KEY;
if (!apiKey) {
  console.error('Set PEOPLE_API_KEY to your API key (npm start prints the demo one).');
  process.exit(1);
}
const opts: McpOptions = {
  origin: process.env.PEOPLE_API_URL ?? 'http://localhost:3000',
  apiKey,
  waitSeconds: Number(process.env.MCP_WAIT_SECONDS ?? 120),
  pollIntervalMs: Number(process.env.MCP_POLL_MS ?? 2000),
};

const httpPort = process.env.MCP_HTTP_PORT ?? (process.argv.includes('--http') ? '3333' : undefined);
if (httpPort === undefined) {
  await createMcpServer(opts).connect(new StdioServerTransport());
} else {
  const http = createServer(async (req, res) => {
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    // Stateless: one server and transport per request, so nothing is kept between calls.
    const server = createMcpServer(opts);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(Number(httpPort), '127.0.0.1', () => console.error(`MCP (Streamable HTTP) at http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`));
}
