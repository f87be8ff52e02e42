import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { startServices } from '../../shared/local/services.js';
import { readDirectoryFile } from '../../shared/directory/file.js';
import type { Person } from '../../shared/directory/types.js';
import { Client, ROOT, newTenant, startTestStack } from '../support/local.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/** The published contract from outside: the document over HTTP, the reference page in Chromium, the MCP server over stdio and Streamable HTTP. */
let stack: LocalStack;
let receiver: WebhookReceiver;
let origin: string;
const people: Person[] = [];
const dir = mkdtempSync(join(tmpdir(), 'contract-'));

beforeAll(async () => {
  stack = await startTestStack({ throttleMultiplier: 1000 });
  const file = join(dir, 'directory.jsonl');
  await startServices({ root: ROOT, stack, dataDir: null, directory: { file, people: 1000, seed: 11 } });
  for await (const r of readDirectoryFile(file)) if (r.type === 'person') people.push(r);
  receiver = await new WebhookReceiver([]).start();
  origin = new URL(stack.baseUrl).origin;
}, 120_000);
afterAll(async () => {
  await receiver?.stop();
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('GET /api/public/v1/openapi.json needs no key and is the OpenAPI 3.1 document', async () => {
  const r = await new Client(stack).typed.GET('/api/public/v1/openapi.json');
  expect(r.response.status).toBe(200);
  expect(r.response.headers.get('content-type')).toContain('application/json');
  expect(r.data).toMatchObject({ openapi: '3.1.0', components: { securitySchemes: { ApiKey: { name: 'x-api-key' } } } });
});

describe('/docs/ in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 60_000);
  afterAll(async () => browser?.close());

  test('renders every route of the document, loading nothing from outside loopback', async () => {
    const doc = (await new Client(stack).typed.GET('/api/public/v1/openapi.json')).data as unknown as { info: { title: string }; paths: Record<string, Record<string, { summary: string }>> };
    const summaries = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.summary));
    // A tall window: Scalar renders operations as they scroll into view, so fewer scrolls reach them all.
    const page = await browser.newPage({ viewport: { width: 1280, height: 6000 } });
    const outside: string[] = [];
    await page.route('**/*', (route) => {
      const host = new URL(route.request().url()).hostname;
      if (host === 'localhost' || host === '127.0.0.1' || host === '[::1]') return route.continue();
      outside.push(route.request().url());
      return route.abort();
    });
    await page.goto(`${origin}/docs/`);
    await page.getByRole('heading', { name: doc.info.title, exact: true }).first().waitFor({ timeout: 60_000 });
    const headings = new Set<string>();
    for (let still = 0, lastY = -1; still < 5 && !summaries.every((s) => headings.has(s)); ) {
      for (const h of await page.getByRole('heading').allInnerTexts()) headings.add(h.trim());
      const y = await page.evaluate(() => {
        const w = globalThis as unknown as { scrollBy(x: number, y: number): void; innerHeight: number; scrollY: number };
        w.scrollBy(0, w.innerHeight);
        return w.scrollY;
      });
      still = y === lastY ? still + 1 : 0;
      lastY = y;
      await page.waitForTimeout(150);
    }
    expect({ missing: summaries.filter((s) => !headings.has(s)), outside }).toEqual({ missing: [], outside: [] });
    expect(summaries.length).toBeGreaterThan(25);
    // The examples name this host and the registered (trailing-slash) paths, so a copied command works as written.
    const text = await page.locator('body').innerText();
    expect(text).toContain(`${origin}/api/public/v1/search/`);
    expect(text).not.toMatch(/curl[^\n]*--url '?\/api\//);
    // No button of Scalar's hosted services.
    const names = /\b(ask ai|deploy|share|open in (api )?client|developer tools|mcp|generate sdk)\b/i;
    const hosted = page.getByRole('button', { name: names }).or(page.getByRole('link', { name: names }));
    expect(await hosted.allInnerTexts()).toEqual([]);
  }, 120_000);
});

describe('the MCP server over stdio', () => {
  let mcp: McpClient;
  let tenant: Awaited<ReturnType<typeof newTenant>>;
  beforeAll(async () => {
    tenant = await newTenant(stack, {}, { webhookSecret: true });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', join(ROOT, 'bin/mcp.ts')],
      cwd: ROOT,
      env: { ...(process.env as Record<string, string>), PEOPLE_API_URL: origin, PEOPLE_API_KEY: tenant.apiKey, MCP_WEBHOOK_URL: receiver.url, MCP_WAIT_SECONDS: '90', MCP_POLL_MS: '500' },
      stderr: 'pipe',
    });
    mcp = new McpClient({ name: 'contract-test', version: '1.0.0' });
    await mcp.connect(transport);
  }, 120_000);
  afterAll(async () => mcp?.close());

  const balance = async () => (await tenant.admin.console('GET', `accounts/${tenant.accountId}/`)).body.balance as number;

  test('lists the tools, with the price in each paid tool and a confirmation on the costly ones', async () => {
    const { tools } = await mcp.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()]).toEqual(
      expect.arrayContaining(['people_search', 'deep_search', 'agentic_search', 'cancel_agentic_search', 'enrich_email', 'enrich_phone', 'enrich_professional_url', 'enrich_professional_profile', 'job_status', 'list_sending_accounts', 'create_email', 'get_email', 'edit_email', 'cancel_email', 'create_sequence']),
    );
    expect(byName.get('enrich_email')!.description).toContain('5 credits');
    expect(byName.get('deep_search')!.inputSchema.required).toEqual(expect.arrayContaining(['confirm', 'query']));
    // The server sends its MCP_WEBHOOK_URL: no tool asks the model for one.
    for (const t of tools) expect(Object.keys(t.inputSchema.properties ?? {})).not.toContain('webhook_url');
    expect(byName.get('people_search')!.inputSchema.required).toEqual(expect.arrayContaining(['query', 'max_results']));
    expect(byName.get('agentic_search')!.inputSchema.required).toContain('max_credits');
  }, 60_000);

  test('runs a people search to completion and an email enrichment, and reports what each charged', async () => {
    const before = await balance();
    const progress: unknown[] = [];
    const search = await mcp.callTool(
      { name: 'people_search', arguments: { query: 'software engineers', max_results: 25 } },
      undefined,
      { onprogress: (p) => progress.push(p), timeout: 110_000 },
    );
    const found = search.structuredContent as { status: string; result: { total_returned: number }; credits_charged: number };
    expect(search.isError).toBeFalsy();
    expect(found.status).toBe('completed');
    expect(found.credits_charged).toBe(found.result.total_returned);
    expect(found.credits_charged).toBeGreaterThan(0);

    // A person the directory has a work email for (about 15% have none).
    const person = people.find((p) => p.professional_url && p.work_email)!;
    const enriched = await mcp.callTool({ name: 'enrich_email', arguments: { professional_url: person.professional_url } });
    expect(enriched.isError).toBeFalsy();
    expect(enriched.structuredContent).toMatchObject({ http_status: 200, email: expect.stringContaining('@'), credits_charged: 5 });

    expect(await balance()).toBe(before - found.credits_charged - 5);
    // The job's webhook went to MCP_WEBHOOK_URL.
    const jobId = (search.structuredContent as { id: string }).id;
    for (let i = 0; i < 100 && receiver.for(jobId).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(receiver.for(jobId)[0]!.body).toMatchObject({ id: jobId, event_type: 'search.completed' });
  }, 120_000);

  test('a no-match enrichment is one flat error {code, message} at full price', async () => {
    const before = await balance();
    const r = await mcp.callTool({ name: 'enrich_professional_profile', arguments: { professional_url: 'https://www.linkedin.com/in/no-such-person-anywhere-0' } });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toEqual({ code: 'not_found', message: expect.any(String), http_status: 404, credits_charged: 2 });
    expect(await balance()).toBe(before - 2);
  }, 60_000);

  test('a costly tool without confirm: true is refused before any call', async () => {
    const before = await balance();
    const r = await mcp.callTool({ name: 'deep_search', arguments: { query: 'VP of Sales' } });
    expect(r.isError).toBe(true);
    expect(await balance()).toBe(before);
  }, 60_000);
});

describe('the MCP server over Streamable HTTP', () => {
  let server: ChildProcess;
  let mcp: McpClient;
  let tenant: Awaited<ReturnType<typeof newTenant>>;
  beforeAll(async () => {
    tenant = await newTenant(stack);
    server = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bin/mcp.ts'), '--http'], {
      cwd: ROOT,
      env: { ...process.env, PEOPLE_API_URL: origin, PEOPLE_API_KEY: tenant.apiKey, MCP_WEBHOOK_URL: receiver.url, MCP_HTTP_PORT: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let said = '';
    const [url, token] = await new Promise<[string, string]>((resolveUrl, reject) => {
      server.stderr!.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        const found = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(said);
        const bearer = /Bearer token: ([A-Za-z0-9_-]{43})/.exec(said);
        if (found && bearer) resolveUrl([found[0], bearer[1]!]);
      });
      server.once('exit', (code) => reject(new Error(`the MCP server exited (${code}): ${said}`)));
    });
    mcp = new McpClient({ name: 'contract-test-http', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  }, 60_000);
  afterAll(async () => {
    await mcp?.close();
    if (server && server.exitCode === null) {
      server.kill();
      await once(server, 'exit');
    }
  });

  test('lists the tools and runs a paid one, reporting the charge the ledger took', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['people_search', 'enrich_email', 'job_status']));
    const balance = async () => (await tenant.admin.console('GET', `accounts/${tenant.accountId}/`)).body.balance as number;
    const before = await balance();
    const person = people.find((p) => p.professional_url && p.work_email)!;
    const enriched = await mcp.callTool({ name: 'enrich_email', arguments: { professional_url: person.professional_url } });
    expect(enriched.isError).toBeFalsy();
    expect(enriched.structuredContent).toEqual({ http_status: 200, email: person.work_email, email_status: 'unknown', email_status_reason: 'unverified', credits_charged: 5 });
    expect(await balance()).toBe(before - 5);
  }, 60_000);
});

test('the MCP server will not start with an MCP_WEBHOOK_URL the service would refuse', async () => {
  const run = (webhook: string | undefined) =>
    new Promise<{ code: number | null; said: string }>((resolveRun) => {
      const env: NodeJS.ProcessEnv = { ...process.env, PEOPLE_API_URL: origin, PEOPLE_API_KEY: 'k', MCP_HTTP_PORT: '0' };
      if (webhook === undefined) delete env.MCP_WEBHOOK_URL;
      else env.MCP_WEBHOOK_URL = webhook;
      const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bin/mcp.ts')], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
      let said = '';
      child.stderr!.on('data', (c: Buffer) => (said += c.toString()));
      child.once('exit', (code) => resolveRun({ code, said }));
    });
  expect(await run(undefined)).toEqual({ code: 1, said: expect.stringContaining('Set MCP_WEBHOOK_URL') });
  // An invented public host does not resolve on the twin (nothing leaves loopback), so it is refused.
  expect(await run('https://hooks.example.com/people')).toEqual({ code: 1, said: expect.stringContaining('MCP_WEBHOOK_URL is refused: the URL host does not resolve') });
}, 60_000);
