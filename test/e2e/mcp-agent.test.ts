import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { LocalStack } from '../../shared/local/stack.js';
import { startServices } from '../../shared/local/services.js';
import { startMcpHttpServer, type McpHttpServer } from '../../shared/mcp/http.js';
import { ROOT, newTenant, startTestStack } from '../support/local.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Issue 35: an agent using only the tool schemas can run every tool. Through the official MCP client over the
 * server's Streamable HTTP transport, every listed tool is called with arguments built from its inputSchema
 * alone: its `examples` (the operation's documented example), then each required field from its `const`,
 * `enum`, format or type, and ids (`^dj_`, `^em_` patterns) from earlier tools' results. Every call must
 * succeed, or end in the flat `{code, message}` shape with 404 `not_found` where, without prior state, that
 * is the only possible outcome (an example person the directory does not hold). That each schema requires
 * what the published document requires is test/unit/mcp/tool-schemas.test.ts.
 */
let stack: LocalStack;
let receiver: WebhookReceiver;
let mcpServer: McpHttpServer;
let mcp: McpClient;
const dir = mkdtempSync(join(tmpdir(), 'mcp-agent-'));

beforeAll(async () => {
  stack = await startTestStack({ throttleMultiplier: 1000 });
  await startServices({ root: ROOT, stack, dataDir: null, directory: { file: join(dir, 'directory.jsonl'), people: 200, seed: 3 } });
  receiver = await new WebhookReceiver([]).start();
  const t = await newTenant(stack, { credits: 100_000, agentic_search: true }, { webhookSecret: true, sender: { email: 'agent-owner@seller.test', type: 'google' } });
  // MCP_WEBHOOK_URL: a loopback receiver.
  mcpServer = await startMcpHttpServer({ mcp: { origin: new URL(stack.baseUrl).origin, apiKey: t.apiKey, webhookUrl: receiver.url, waitSeconds: 8, pollIntervalMs: 200 } });
  mcp = new McpClient({ name: 'schema-only-agent', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(mcpServer.url), { requestInit: { headers: { Authorization: `Bearer ${mcpServer.token}` } } }));
}, 120_000);
afterAll(async () => {
  await mcp?.close();
  await mcpServer?.close();
  await receiver?.stop();
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

type Schema = Record<string, any>;
/** Ids seen in tools' results: which tool gave it, and the id. */
const seen: { tool: string; id: string }[] = [];
const ID_PREFIX = /^\^([a-z]+)_/;

/** An id for a field whose pattern names its prefix: from the tool the field's tool (or a sibling `kind`) names, else the latest. */
function idFor(prefix: string, tool: string, args: Record<string, unknown>): string | undefined {
  const ofPrefix = seen.filter((s) => s.id.startsWith(`${prefix}_`));
  const named = ofPrefix.filter((s) => tool.includes(s.tool) || args.kind === s.tool);
  return (named.at(-1) ?? ofPrefix.at(-1))?.id;
}

function valueFor(schema: Schema, tool: string, args: Record<string, unknown>): unknown {
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum.find((v: unknown) => seen.some((s) => s.tool === v)) ?? schema.enum[0];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return valueFor(alternatives.find((a: Schema) => a.type !== 'null') ?? alternatives[0], tool, args);
  switch (schema.type) {
    case 'string': {
      const prefix = typeof schema.pattern === 'string' ? ID_PREFIX.exec(schema.pattern)?.[1] : undefined;
      if (prefix) return idFor(prefix, tool, args);
      if (schema.format === 'email') return 'agent@example.com';
      return 'example'.padEnd(schema.minLength ?? 0, 'x');
    }
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => valueFor(schema.items ?? {}, tool, args));
    case 'object':
      return argsFrom(schema, tool);
    default:
      return null;
  }
}

/** The schema's example, then every required field it lacks (enums first, so an id can follow the `kind` chosen). */
function argsFrom(schema: Schema, tool: string): Record<string, unknown> {
  const args: Record<string, unknown> = structuredClone(schema.examples?.[0] ?? {});
  const required: string[] = [...(schema.required ?? [])].sort((a, b) => Number(!schema.properties[a]?.enum) - Number(!schema.properties[b]?.enum));
  for (const field of required) if (args[field] === undefined) args[field] = valueFor(schema.properties[field] ?? {}, tool, args);
  return args;
}

/** Ids a result names (`id`, `job_id`), remembered as the tool's. */
function harvest(tool: string, result: any) {
  for (const key of ['id', 'job_id']) {
    const v = result?.structuredContent?.[key];
    if (typeof v === 'string' && /^[a-z]+_[0-9a-z]{26}$/.test(v)) seen.push({ tool, id: v });
  }
}

const needsId = (schema: Schema) => (schema.required ?? []).some((f: string) => ID_PREFIX.test(schema.properties?.[f]?.pattern ?? ''));

test('every tool runs with arguments built from its input schema alone', async () => {
  const { tools } = await mcp.listTools();
  expect(tools.length).toBeGreaterThanOrEqual(17);
  // Tools that make things first, then the ones that take an id, each group in the listed order.
  const order = [...tools.filter((t) => !needsId(t.inputSchema)), ...tools.filter((t) => needsId(t.inputSchema))];
  const outcomes: Record<string, { ok: boolean; code?: string; status?: number }> = {};
  for (const tool of order) {
    const args = argsFrom(tool.inputSchema, tool.name);
    const r: any = await mcp.callTool({ name: tool.name, arguments: args });
    harvest(tool.name, r);
    if (!r.isError) {
      outcomes[tool.name] = { ok: true };
      continue;
    }
    // The flat error shape, never the API's nested envelope.
    expect(r.structuredContent).toEqual(expect.objectContaining({ code: expect.any(String), message: expect.any(String) }));
    expect(r.structuredContent.error).toBeUndefined();
    outcomes[tool.name] = { ok: false, code: r.structuredContent.code, status: r.structuredContent.http_status };
  }
  expect(Object.keys(outcomes).sort()).toEqual(tools.map((t) => t.name).sort());
  // A failure is only the no-match of an example person (charged, as a completed lookup is).
  const failures = Object.entries(outcomes).filter(([, o]) => !o.ok);
  for (const [name, o] of failures) expect({ name, code: o.code, status: o.status }).toEqual({ name, code: 'not_found', status: 404 });
  expect(failures.map(([name]) => name).every((n) => n.startsWith('enrich_'))).toBe(true);
  // The tools that take an id ran on ids earlier tools gave them.
  for (const name of ['people_search_next_page', 'cancel_agentic_search', 'job_status', 'get_email', 'edit_email', 'cancel_email']) expect(outcomes[name]).toEqual({ ok: true });
}, 180_000);
