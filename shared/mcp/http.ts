import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpServer, type McpOptions } from './server.js';

/**
 * The MCP server over Streamable HTTP (`npm run mcp -- --http`): stateless (a server and transport per
 * request), bound to 127.0.0.1 only. Before a request reaches the transport it must name this server as its
 * `Host` (`127.0.0.1:<port>` or `localhost:<port>`, exactly), carry no `Origin` or this server's own loopback
 * origin (both 403 otherwise: a web page the browser loads from elsewhere, or a DNS-rebound name, is
 * refused), and carry `Authorization: Bearer <token>` (401 with `WWW-Authenticate: Bearer` otherwise),
 * compared in constant time. The token is random per start unless the caller supplies one.
 *
 * The checks are here, not in the SDK transport's `allowedHosts`/`allowedOrigins` options: those are
 * deprecated in the SDK (1.32) in favour of checks in front of the transport, and the bearer check has to run
 * before the transport anyway; doing all three in one place fixes their order (403 before 401).
 */
export interface McpHttpOptions {
  mcp: McpOptions;
  /** 0 (the default) for any free port. */
  port?: number;
  /** The bearer token to require; a fresh random one (32 bytes, base64url) when absent. */
  token?: string;
}

export interface McpHttpServer {
  url: string;
  port: number;
  token: string;
  server: Server;
  close(): Promise<void>;
}

/** A token the caller supplies must be at least this long (a generated one is 43 characters). */
export const MIN_TOKEN_LENGTH = 32;

const digest = (s: string) => createHash('sha256').update(s).digest();

function refuse(res: ServerResponse, status: 401 | 403 | 404, message: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

export async function startMcpHttpServer(opts: McpHttpOptions): Promise<McpHttpServer> {
  if (opts.token !== undefined && opts.token.length < MIN_TOKEN_LENGTH) throw new Error(`the MCP HTTP token must be at least ${MIN_TOKEN_LENGTH} characters`);
  const token = opts.token ?? randomBytes(32).toString('base64url');
  const expected = digest(token);
  let hosts = new Set<string>();
  let origins = new Set<string>();

  const authorized = (req: IncomingMessage) => {
    const m = /^Bearer ([^\s]+)$/.exec(req.headers.authorization ?? '');
    // Equal-length digests, so the comparison takes the same time whatever the presented token.
    return m !== null && timingSafeEqual(digest(m[1]!), expected);
  };

  const server = createServer(async (req, res) => {
    if (!hosts.has(req.headers.host ?? '')) return refuse(res, 403, 'Forbidden: Host must be this server’s loopback address');
    const origin = req.headers.origin;
    if (origin !== undefined && !origins.has(origin)) return refuse(res, 403, 'Forbidden: Origin is not this server’s');
    if (!authorized(req)) return refuse(res, 401, 'Unauthorized: send Authorization: Bearer <token>', { 'WWW-Authenticate': 'Bearer' });
    if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') return refuse(res, 404, 'Not found: the MCP endpoint is /mcp');
    const mcp = createMcpServer(opts.mcp);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close().then(() => mcp.close()));
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  origins = new Set([...hosts].map((h) => `http://${h}`));
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    token,
    server,
    close: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((e) => (e ? reject(e) : resolve()));
    }),
  };
}
