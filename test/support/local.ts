import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLocalStack, type LocalStack, type LocalStackOptions } from '../../shared/local/stack.js';
import { startServices } from '../../shared/local/services.js';
import { readDirectoryFile, writeDirectoryFile } from '../../shared/directory/file.js';
import type { Company, Person } from '../../shared/directory/types.js';
import { resetPeopleIndex } from '../../shared/search-engine/index-source.js';
import { assertResponseMatchesContract } from './contract.js';
import { publicApiClient, type PublicApiClient } from '../../shared/contract/client.js';
import type { operations } from '../../shared/contract/public-api.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { SHARED_DYNAMODB_ENV } from './shared-dynamodb.js';
import { WebhookReceiver } from './webhook-receiver.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

let stacksStarted = 0;

/**
 * The real local stack (in memory, random ports) for integration and end-to-end tests. In memory, it uses the
 * test run's one DynamoDB Local (jest's global setup) under an access key of its own, so no file pays for a JVM.
 */
export async function startTestStack(opts: Partial<LocalStackOptions> = {}): Promise<LocalStack> {
  const endpoint = process.env[SHARED_DYNAMODB_ENV];
  const dynamodb = endpoint && !opts.dataDir ? { endpoint, accessKeyId: `test${process.pid}x${++stacksStarted}` } : undefined;
  return startLocalStack({ root: ROOT, dataDir: null, port: 0, adminToken: 'test-admin-token', visibilityTimeoutSeconds: 10, dynamodb, ...opts });
}

/** The people directory a test stack searches: `people` generated from `seed`, unless `write` writes the file. */
export interface TestDirectory {
  people: number;
  seed: number;
  /**
   * `services` (default): the running service's start-up on top of the stack (`startServices`: the file imported
   * into the directory table and indexed, as `npm start` does). `process`: the file only, this process's search
   * pointed at it (DIRECTORY_FILE), for tests that play the workers by hand (`workers: false`).
   */
  load?: 'services' | 'process';
  write?: (file: string) => void;
}

export type TestServicesOptions = Partial<LocalStackOptions> & { directory: TestDirectory; webhookReceiver?: boolean };

export interface TestServices {
  stack: LocalStack;
  /** A client of the console API (no API key). */
  admin: Client;
  /** A temporary folder of this test file's (its directory file is in it); `stop` removes it. */
  dir: string;
  directoryFile: string;
  /** The people and companies of the directory file. */
  readDirectory(): Promise<{ people: Person[]; companies: Map<string, Company> }>;
  /** Stops the webhook receiver (if any) and the stack, then removes `dir`. */
  stop(): Promise<void>;
}

/**
 * `startTestStack` with a people directory: the set-up of a test file that searches (start once, in beforeAll).
 * With `webhookReceiver`, also a loopback WebhookReceiver with no secrets yet (see `newTenant`'s `webhookReceiver`).
 */
export async function startTestServices(opts: TestServicesOptions & { webhookReceiver: true }): Promise<TestServices & { receiver: WebhookReceiver }>;
export async function startTestServices(opts: TestServicesOptions): Promise<TestServices>;
export async function startTestServices(opts: TestServicesOptions): Promise<TestServices & { receiver?: WebhookReceiver }> {
  const { directory, webhookReceiver, ...stackOpts } = opts;
  const dir = mkdtempSync(join(tmpdir(), 'test-stack-'));
  const directoryFile = join(dir, 'directory.jsonl');
  let stack: LocalStack | undefined;
  let receiver: WebhookReceiver | undefined;
  const stop = async () => {
    await receiver?.stop();
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  const readDirectory = async () => {
    const people: Person[] = [];
    const companies = new Map<string, Company>();
    for await (const r of readDirectoryFile(directoryFile)) {
      if (r.type === 'person') people.push(r);
      else companies.set(r.id, r);
    }
    return { people, companies };
  };
  try {
    stack = await startTestStack(stackOpts);
    directory.write?.(directoryFile);
    if (directory.load === 'process') {
      if (!directory.write) await writeDirectoryFile(directoryFile, { people: directory.people, seed: directory.seed });
      process.env.DIRECTORY_FILE = directoryFile;
      resetPeopleIndex();
    } else {
      await startServices({ root: ROOT, stack, dataDir: null, directory: { file: directoryFile, people: directory.people, seed: directory.seed } });
    }
    if (webhookReceiver) receiver = await new WebhookReceiver([]).start();
  } catch (e) {
    await stop();
    throw e;
  }
  return { stack, admin: new Client(stack), dir, directoryFile, readDirectory, stop, receiver };
}

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** One keep-alive connection pool per loopback source address (Linux routes all of 127.0.0.0/8 to loopback). */
const sourceAgents = new Map<string, Agent>();

/**
 * `fetch` from a given loopback source address, so a test can play callers on different networks: the
 * gateway counts per source address as AWS WAF counts per source IP ("Per-source limits at the edge").
 */
export function fetchFrom(source: string): typeof fetch {
  let agent = sourceAgents.get(source);
  if (!agent) sourceAgents.set(source, (agent = new Agent({ localAddress: source })));
  const dispatcher = agent;
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const body = request.body ? await request.arrayBuffer() : undefined;
    return (await undiciFetch(request.url, { method: request.method, headers: [...request.headers], body, dispatcher })) as unknown as Response;
  }) as typeof fetch;
}

export class Client {
  private readonly fetch: typeof fetch;

  /** `source`: the loopback address this caller's requests come from (default: the system's choice, 127.0.0.1). */
  constructor(
    readonly stack: LocalStack,
    readonly apiKey?: string,
    readonly source?: string,
  ) {
    this.fetch = source ? fetchFrom(source) : fetch;
  }

  async call<T = any>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> {
    const res = await this.fetch(url, {
      method,
      headers: { 'content-type': 'application/json', ...(this.apiKey ? { 'x-api-key': this.apiKey } : {}), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON: keep text */
    }
    // Every answer the e2e suites receive from a documented route is checked against the published contract.
    assertResponseMatchesContract(method, new URL(url).pathname, res.status, res.headers.get('content-type'), parsed);
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  /** The generated typed client (openapi-fetch) with this client's key; its answers are contract-checked too. */
  get typed(): PublicApiClient {
    const checked: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const res = await this.fetch(request);
      const text = await res.clone().text();
      const contentType = res.headers.get('content-type');
      assertResponseMatchesContract(request.method, new URL(request.url).pathname, res.status, contentType, text && contentType?.includes('json') ? JSON.parse(text) : text);
      return res;
    };
    return publicApiClient(new URL(this.stack.baseUrl).origin, this.apiKey ?? '', checked);
  }

  /** Untyped path and body: only for what the typed client refuses to express (invalid bodies, unknown paths, hostile input). */
  api<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
    return this.call<T>(method, `${this.stack.baseUrl}${path}`, body, headers);
  }

  console<T = any>(method: string, path: string, body?: unknown) {
    return this.call<T>(method, `${this.stack.consoleUrl}${path}`, body, { 'x-admin-token': this.stack.adminToken });
  }
}

/**
 * The typed client's answer in the `Reply` shape the suites assert on: `tsc` checks the request's path,
 * parameters and body; the answer's body was checked against the document by `Client.typed` at run time.
 */
export async function reply(request: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<Reply> {
  const { data, error, response } = await request;
  return { status: response.status, headers: response.headers, body: data ?? error ?? null };
}

/** The JSON body the published document gives an operation, for test helpers that build request bodies. */
export type RequestBody<O extends keyof operations> = operations[O] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

/**
 * Make an account through the console API and return a client holding one of its keys; with `webhookSecret`,
 * the account's webhook signing secret too, and with `webhookReceiver`, that secret also given to the receiver.
 */
export async function newTenant(
  stack: LocalStack,
  account: Record<string, unknown> = {},
  opts: { webhookSecret?: boolean; webhookReceiver?: { addSecret(secret: string): void }; sender?: Record<string, unknown> | null } = {},
): Promise<{ client: Client; accountId: string; keyId: string; apiKey: string; admin: Client; webhookSecret?: string }> {
  const admin = new Client(stack);
  const a = await admin.console('POST', 'accounts/', { name: 'Tenant', ...account });
  if (a.status !== 201) throw new Error(`account: ${a.status} ${JSON.stringify(a.body)}`);
  const k = await admin.console('POST', `accounts/${a.body.id}/api-keys/`);
  const secret = opts.webhookSecret || opts.webhookReceiver ? await admin.console('POST', `accounts/${a.body.id}/webhook-secrets/`) : undefined;
  if (secret) opts.webhookReceiver?.addSecret(secret.body.secret);
  if (opts.sender !== null && opts.sender !== undefined) await admin.console('POST', `accounts/${a.body.id}/sending-accounts/`, opts.sender);
  return { client: new Client(stack, k.body.key), accountId: a.body.id, keyId: k.body.id, apiKey: k.body.key, admin, webhookSecret: secret?.body.secret };
}

/** Runs the stack's queues, timers and sweeps until nothing is left to do (the console's `dev/settle/`). */
export async function settleStack(admin: Client): Promise<void> {
  const r = await admin.console('POST', 'dev/settle/');
  if (r.body?.idle !== true) throw new Error(`dev/settle/ did not reach idle: ${JSON.stringify(r.body)}`);
}

/** The service clock now (advanced by one second, the smallest step `dev/clock/` takes). */
export async function serviceClockNow(admin: Client): Promise<Date> {
  return new Date((await admin.console('POST', 'dev/clock/', { advance_seconds: 1 })).body.now as string);
}

/** The service clock to 12:00 UTC of the next day, past every morning send slot, then settled; that day (YYYY-MM-DD). */
export async function toNextNoonUtc(admin: Client): Promise<string> {
  const now = await serviceClockNow(admin);
  const noon = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, 12);
  await admin.console('POST', 'dev/clock/', { advance_seconds: Math.ceil((noon - now.getTime()) / 1000) });
  await settleStack(admin);
  return new Date(noon).toISOString().slice(0, 10);
}
