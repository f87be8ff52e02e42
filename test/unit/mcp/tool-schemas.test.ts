import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { PRICES } from '../../../shared/accounts/prices.js';
import { createMcpServer } from '../../../shared/mcp/server.js';
import { checkMcpWebhookUrl, mcpWebhookPolicy } from '../../../shared/mcp/webhook.js';

/**
 * The MCP tools an agent can call with nothing made up: each tool's required fields are those of the public
 * operation behind it (shared/contract/openapi.json) minus `webhook_url`, which the server fills from its
 * configuration; errors come back flat. The server runs in-process against a fake public API on loopback.
 */
const doc = JSON.parse(readFileSync(new URL('../../../shared/contract/openapi.json', import.meta.url), 'utf8'));
const HOOK = 'http://127.0.0.1:9/hook';
const JOB = `dj_${'c'.repeat(26)}`;

/**
 * The operation behind each tool; `shape` picks the body's alternative (`oneOf`) the tool stands for, and
 * `mcp` the required fields only the MCP server adds (a spending confirmation, an explicit cap, which poll).
 */
const BEHIND: Record<string, { method: string; path: string; shape?: string; mcp?: string[] }> = {
  people_search: { method: 'post', path: 'search/', shape: 'query' },
  people_search_next_page: { method: 'post', path: 'search/', shape: 'search_id' },
  deep_search: { method: 'post', path: 'deep-search/', mcp: ['confirm'] },
  agentic_search: { method: 'post', path: 'agentic-search/', mcp: ['max_credits'] },
  cancel_agentic_search: { method: 'post', path: 'agentic-search/{job_id}/cancel/' },
  enrich_phone: { method: 'post', path: 'enrich/phone/' },
  bulk_enrich: { method: 'post', path: 'enrich/bulk/' },
  job_status: { method: 'get', path: 'search/{job_id}/', mcp: ['kind'] },
  enrich_email: { method: 'post', path: 'enrich/email/' },
  enrich_professional_url: { method: 'post', path: 'enrich/professional-url/' },
  enrich_professional_profile: { method: 'post', path: 'enrich/professional-profile/' },
  list_sending_accounts: { method: 'get', path: 'email/accounts/' },
  create_email: { method: 'post', path: 'emails/' },
  get_email: { method: 'get', path: 'emails/{id}/' },
  edit_email: { method: 'patch', path: 'emails/{id}/' },
  cancel_email: { method: 'post', path: 'emails/{id}/cancel/' },
  create_sequence: { method: 'post', path: 'sequences/', mcp: ['confirm'] },
};
/** Optional inputs of the MCP server's own: the Idempotency-Key header as a field, bulk_enrich's go-ahead after its cost review. */
const MCP_OPTIONAL = ['idempotency_key', 'confirm'];

function published(tool: string): { required: string[]; fields: string[] } {
  const b = BEHIND[tool]!;
  const op = doc.paths[`/api/public/v1/${b.path}`]?.[b.method];
  if (!op) throw new Error(`${tool}: no ${b.method.toUpperCase()} ${b.path} in the document`);
  const body = op.requestBody?.content['application/json'].schema ?? { properties: {} };
  const path = (op.parameters ?? []).filter((p: any) => p.in === 'path');
  const shape = b.shape ? (body.oneOf as { required: string[] }[]).find((s) => s.required.includes(b.shape!))!.required : [];
  return {
    required: [...(body.required ?? []), ...shape, ...path.filter((p: any) => p.required).map((p: any) => p.name)].filter((f) => f !== 'webhook_url'),
    fields: [...Object.keys(body.properties ?? {}), ...path.map((p: any) => p.name)].filter((f) => f !== 'webhook_url'),
  };
}

let api: Server;
let origin: string;
const received: { method: string; path: string; body: any }[] = [];
let client: Client;

beforeAll(async () => {
  api = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      received.push({ method: req.method!, path: req.url!, body: raw ? JSON.parse(raw) : undefined });
      const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === '/api/public/v1/enrich/professional-profile/') return json(404, { error: { code: 'not_found', message: 'No profile matches.' } });
      if (req.url === '/api/public/v1/enrich/email/') return json(429, { message: 'Too Many Requests' });
      if (req.method === 'POST' && req.url === '/api/public/v1/search/') return json(202, { id: JOB, status: 'pending', created_at: '2026-11-26T10:00:00.000Z' });
      if (req.url === `/api/public/v1/search/${JOB}/`) return json(200, { id: JOB, status: 'completed', tier: 'people_search', leads_returned: 0, result: { results: [], total_returned: 0 }, error: null });
      if (req.url === '/api/public/v1/enrich/phone/') return json(400, { error: { code: 'invalid_request', message: 'Invalid request body.', details: [{ path: 'email', message: 'Invalid email address' }] } });
      json(404, { error: { code: 'not_found', message: 'Not found.' } });
    });
  });
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer({ origin, apiKey: 'k', webhookUrl: HOOK, waitSeconds: 5, pollIntervalMs: 10 }).connect(serverSide);
  client = new Client({ name: 'schema-test', version: '1.0.0' });
  await client.connect(clientSide);
});
afterAll(async () => {
  await client?.close();
  await new Promise((r) => api?.close(r));
});

describe('tool schemas against the published document', () => {
  test('every tool is behind a documented operation, and requires exactly what it does (minus webhook_url)', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(BEHIND).sort());
    for (const t of tools) {
      const want = published(t.name);
      const extra = BEHIND[t.name]!.mcp ?? [];
      expect({ tool: t.name, required: [...(t.inputSchema.required ?? [])].sort() }).toEqual({ tool: t.name, required: [...new Set([...want.required, ...extra])].sort() });
      // No field the operation does not take (webhook_url included), besides the server's own.
      const unknown = Object.keys(t.inputSchema.properties ?? {}).filter((f) => !want.fields.includes(f) && !extra.includes(f) && !MCP_OPTIONAL.includes(f));
      expect({ tool: t.name, unknown }).toEqual({ tool: t.name, unknown: [] });
    }
  });

  test('people_search requires its query; the document says a new search needs query and a continuation search_id', async () => {
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'people_search')!.inputSchema.required).toEqual(expect.arrayContaining(['query', 'max_results']));
    const body = doc.paths['/api/public/v1/search/'].post.requestBody.content['application/json'].schema;
    expect(body.oneOf).toEqual([{ required: ['query'] }, { required: ['search_id'] }]);
  });

  test('the async tools send the configured webhook_url; the model gives none', async () => {
    received.length = 0;
    const res = await client.callTool({ name: 'people_search', arguments: { query: 'software engineers', max_results: 25 } });
    expect(res.isError).toBeFalsy();
    expect(received.find((r) => r.method === 'POST')!.body).toEqual({ query: 'software engineers', max_results: 25, webhook_url: HOOK });
    const invented = await client.callTool({ name: 'people_search', arguments: { query: 'x', max_results: 25, webhook_url: 'https://hooks.example.com/' } });
    expect(invented.structuredContent).toMatchObject({ code: 'invalid_request' });
  });
});

describe('bulk_enrich shows its cost for review before it runs', () => {
  const items = [
    { kind: 'email', professional_url: 'https://www.linkedin.com/in/someone' },
    { kind: 'phone', email: 'a@example.com' },
    // No identity shape: the tool's schema lets it through (shape rules are the API's), the API reports it invalid.
    { kind: 'email' },
  ];

  test('without confirm: the most it can cost, and no call to the API', async () => {
    received.length = 0;
    const r = await client.callTool({ name: 'bulk_enrich', arguments: { items } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ review: true, items: 3, credits_reserved_at_most: PRICES.email_enrich + PRICES.phone_enrich, invalid_items: 1, credits_charged: 0 });
    expect(received).toEqual([]);
  });

  test('with confirm: true it sends the items and the configured webhook_url', async () => {
    received.length = 0;
    await client.callTool({ name: 'bulk_enrich', arguments: { items, confirm: true } });
    expect(received[0]).toMatchObject({ method: 'POST', path: '/api/public/v1/enrich/bulk/', body: { items, webhook_url: HOOK } });
  });
});

describe('errors have one flat shape {code, message}', () => {
  const flat = (r: any) => {
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toEqual(expect.objectContaining({ code: expect.any(String), message: expect.any(String) }));
    expect(r.structuredContent.error).toBeUndefined();
    expect(JSON.parse(r.content[0].text)).toEqual(r.structuredContent);
    return r.structuredContent;
  };

  test('a no-match enrichment: not_found at full price, not error.error', async () => {
    const r = await client.callTool({ name: 'enrich_professional_profile', arguments: { professional_url: 'https://www.linkedin.com/in/nobody' } });
    expect(flat(r)).toEqual({ code: 'not_found', message: 'No profile matches.', http_status: 404, credits_charged: PRICES.professional_profile_enrich });
  });

  test('the gateway’s {message} gets a code from its status', async () => {
    const r = await client.callTool({ name: 'enrich_email', arguments: { professional_url: 'https://www.linkedin.com/in/someone' } });
    expect(flat(r)).toEqual({ code: 'throttled', message: 'Too Many Requests', http_status: 429, credits_charged: 0 });
  });

  test('an API validation error keeps its details beside code and message', async () => {
    const r = await client.callTool({ name: 'enrich_phone', arguments: { email: 'a@example.com' } });
    expect(flat(r)).toMatchObject({ code: 'invalid_request', message: 'Invalid request body.', details: [{ path: 'email' }], http_status: 400, credits_charged: 0 });
  });

  test('arguments the tool schema refuses, and an unknown tool, are invalid_request', async () => {
    expect(flat(await client.callTool({ name: 'people_search', arguments: { max_results: 25 } }))).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/query/) });
    expect(flat(await client.callTool({ name: 'approve_email', arguments: {} }))).toMatchObject({ code: 'invalid_request' });
  });
});

describe('MCP_WEBHOOK_URL is checked once at start by the webhook-target rules', () => {
  const local = mcpWebhookPolicy('http://127.0.0.1:3000', {});
  const aws = mcpWebhookPolicy('https://api.example.com', {});

  test('missing: a message saying what to set', async () => {
    await expect(checkMcpWebhookUrl(undefined, local)).rejects.toThrow(/Set MCP_WEBHOOK_URL/);
  });

  test('against the local stack a loopback receiver is allowed, and nothing resolves beyond the twin’s table', async () => {
    await expect(checkMcpWebhookUrl('http://127.0.0.1:9999/hook', local)).resolves.toBe('http://127.0.0.1:9999/hook');
    await expect(checkMcpWebhookUrl('http://localhost:9999/hook', local)).resolves.toBe('http://localhost:9999/hook');
    await expect(checkMcpWebhookUrl('https://hooks.example.com/', local)).rejects.toThrow(/MCP_WEBHOOK_URL is refused: the URL host does not resolve/);
    await expect(checkMcpWebhookUrl('http://127.0.0.1:9999/hook', mcpWebhookPolicy('http://localhost:3000', { WEBHOOK_ALLOW_LOOPBACK: '0' }))).rejects.toThrow(/must use https/);
    const mapped = mcpWebhookPolicy('http://localhost:3000', { WEBHOOK_HOSTS: JSON.stringify({ 'hooks.test': ['127.0.0.1'] }) });
    await expect(checkMcpWebhookUrl('https://hooks.test/x', mapped)).resolves.toBe('https://hooks.test/x');
  });

  test('against a deployed API: https, a public address, port 443 or 8443 (literals only here: no DNS leaves the machine)', async () => {
    await expect(checkMcpWebhookUrl('http://127.0.0.1:9999/hook', aws)).rejects.toThrow(/must use https/);
    await expect(checkMcpWebhookUrl('https://127.0.0.1/hook', aws)).rejects.toThrow(/public addresses/);
    await expect(checkMcpWebhookUrl('https://10.0.0.7/hook', aws)).rejects.toThrow(/public addresses/);
    await expect(checkMcpWebhookUrl('https://93.184.215.14:8080/hook', aws)).rejects.toThrow(/port must be 443 or 8443/);
    await expect(checkMcpWebhookUrl('https://user:pw@93.184.215.14/hook', aws)).rejects.toThrow(/user name or password/);
    await expect(checkMcpWebhookUrl('https://93.184.215.14/hook', aws)).resolves.toBe('https://93.184.215.14/hook');
  });
});
