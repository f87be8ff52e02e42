/**
 * A loopback HTTP proxy in front of an OpenSearch node that keeps every request it forwards (method, path,
 * query parameter names, body): the live tests point the adapter at it, then hold what was sent to the
 * operations OpenSearch Serverless supports (opensearch-serverless.ts). Forwarding is byte for byte.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SentRequest } from './opensearch-serverless.js';

export interface OpenSearchRecorder {
  url: string;
  requests: SentRequest[];
  /** When it returns true for a request, the request is forwarded (and applied) but its answer is lost. */
  failAfterForwarding?: (r: SentRequest) => boolean;
  stop(): Promise<void>;
}

export async function startOpenSearchRecorder(target: string): Promise<OpenSearchRecorder> {
  const requests: SentRequest[] = [];
  // eslint-disable-next-line prefer-const
  let recorder: OpenSearchRecorder;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url!, 'http://proxy');
      const sent: SentRequest = { method: req.method!, path: url.pathname, params: [...url.searchParams.keys()], body: body.toString('utf8') };
      requests.push(sent);
      try {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
        const r = await fetch(`${target}${req.url}`, { method: req.method, headers, body: body.length ? body : undefined });
        const out = Buffer.from(await r.arrayBuffer());
        if (recorder.failAfterForwarding?.(sent)) return void res.destroy();
        res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' }).end(out);
      } catch {
        // The node is down (a test restarts it): the client sees a connection-level failure, as it would.
        res.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  recorder = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    stop: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
  return recorder;
}
