import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalStack } from './stack.js';
import { startupPhase } from './startup-trace.js';
import { runAsFunction } from './function-context.js';
import { directoryStoreName } from '../directory/directory-store.js';
import type { DirectoryRecord, Person } from '../directory/types.js';
import { loadDirectoryFile, useLoadedDirectory, type LoadedDirectory } from '../search-engine/index-source.js';

/**
 * What the running service adds on top of the bare stack: the people directory (generated on first run,
 * imported into the directory table, indexed for search), the demo account, and each capability's local
 * start-up hooks.
 */
export interface LocalServices {
  directoryFile: string;
  createDemoAccount(): Promise<DemoAccount>;
  /** A new webhook signing secret for the demo account (for a data directory from before the banner showed it). */
  addDemoWebhookSecret(accountId: string): Promise<string>;
  stop(): Promise<void>;
}

/** What the banner shows of the demo account; kept in DATA_DIR/demo-account.json (mode 0600). */
export interface DemoAccount {
  account_id: string;
  api_key: string;
  /** The account's webhook signing secret (`whsec_…`), so the first deliveries can be verified. */
  webhook_secret: string;
}

export interface DirectoryOptions {
  /** Use this JSONL file (generated there if missing). */
  file?: string;
  people?: number;
  seed?: number;
}

async function consoleCall(stack: LocalStack, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${stack.consoleUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-admin-token': stack.adminToken },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`console ${method} ${path} → ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/**
 * The demo account's `google` sender connects as a browser would: the console starts the connection (its
 * answer sets the browser-binding cookie), the emulated Google consent redirects to the public callback, and
 * the callback, given back that cookie and nothing else, stores the tokens and redirects to the app's page.
 */
async function connectThroughEmulator(stack: LocalStack, accountId: string, email: string): Promise<void> {
  const start = await fetch(`${stack.consoleUrl}accounts/${accountId}/sending-accounts/connect/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-admin-token': stack.adminToken },
    body: JSON.stringify({ type: 'google', email }),
  });
  if (start.status !== 201) throw new Error(`connect start → ${start.status} ${await start.text()}`);
  // What a browser keeps of Set-Cookie and sends back: the name=value pairs, never the attributes.
  const cookie = start.headers.getSetCookie().map((c) => c.split(';', 1)[0]!).join('; ');
  const started = (await start.json()) as { authorization_url: string };
  const consent = await fetch(started.authorization_url, { redirect: 'manual' });
  await consent.body?.cancel();
  const callback = consent.headers.get('location');
  if (consent.status !== 302 || !callback) throw new Error(`emulated consent → ${consent.status}`);
  const done = await fetch(callback, { redirect: 'manual', headers: { cookie } });
  await done.body?.cancel();
  const landing = new URL(done.headers.get('location') ?? 'http://invalid/');
  if (done.status !== 302 || !landing.searchParams.get('sending_account')) throw new Error(`oauth callback → ${done.status} ${landing.search}`);
}

/** Where the directory file is and what to generate there when it is missing. */
export interface DirectoryPlan {
  file: string;
  people: number;
  seed: number;
  log?: (m: string) => void;
}

/**
 * The directory's file generated (first run) and its index loaded, for the in-memory store: nothing of it
 * needs the stack, so `npm start` runs it while the stack starts.
 */
export async function loadDirectory(opts: DirectoryPlan): Promise<LoadedDirectory> {
  const log = opts.log ?? (() => undefined);
  let generated: DirectoryRecord[] | undefined;
  const { isStaleSample } = await import('../directory/file.js');
  const stale = isStaleSample(opts.file, { people: opts.people, seed: opts.seed });
  if (stale) log(`the sample directory ${opts.file} was made by another generator version or options: regenerating it`);
  if (!existsSync(opts.file) || stale) {
    log(`generating a sample directory of ${opts.people.toLocaleString('en-US')} people (seed ${opts.seed}) → ${opts.file}`);
    generated = [];
    const { writeDirectoryFile } = await import('../directory/file.js');
    const r = await writeDirectoryFile(opts.file, { people: opts.people, seed: opts.seed }, { progress: process.stdout.isTTY === true && !process.env.CI, into: generated });
    log(`  ${r.people.toLocaleString('en-US')} people, ${r.companies.toLocaleString('en-US')} companies in ${(r.ms / 1000).toFixed(1)} s`);
  }
  process.env.DIRECTORY_FILE = opts.file;
  process.env.DIRECTORY_STORE ||= 'memory';
  const directory = await loadDirectoryFile(opts.file, generated);
  generated = undefined;
  useLoadedDirectory(directory);
  log(`search index ${directory.fromSnapshot ? 'loaded' : 'built'}: ${directory.index.size.toLocaleString('en-US')} people in ${(directory.ms / 1000).toFixed(1)} s (directory ${directory.version!.slice(0, 12)}, store ${directoryStoreName()})`);
  return directory;
}

/**
 * Generate (first run) the directory, then load its index: from the snapshot persisted beside the file
 * when one matches the file's sha256, else built and persisted. Lookups are served from that index
 * (`DIRECTORY_STORE=memory`, the local default); with `DIRECTORY_STORE=dynamodb` the file is also
 * imported into the directory table when the table's import marker names another version.
 */
export async function prepareDirectory(opts: DirectoryPlan & { loading?: Promise<LoadedDirectory> }): Promise<void> {
  const log = opts.log ?? (() => undefined);
  const directory = await (opts.loading ?? loadDirectory(opts));
  // The erasure list (docs/privacy.md): a person erased before is not imported again from the same file.
  const erased = await applyErasureList(directory, log);
  if (process.env.SEARCH_ENGINE === 'opensearch') await publishToOpenSearch(directory, erased, log);
  if (directoryStoreName() !== 'dynamodb') return;
  const [{ getImportMarker, importDirectory, recordImport }, { readDirectoryFile }, { deletePeopleOfVersion }] = await Promise.all([
    import('../directory/directory.repository.js'),
    import('../directory/file.js'),
    import('../directory/directory-dynamodb.repository.js'),
  ]);
  const marker = await getImportMarker();
  if (marker?.version !== directory.version) {
    const t0 = Date.now();
    log('importing the directory into the directory table…');
    const drop = new Set(erased.map((p) => p.id));
    const r = await importDirectory(readDirectoryFile(opts.file), { version: directory.version!, concurrency: 8, drop: (p) => drop.has(p.id) });
    await recordImport({ version: directory.version!, people: r.people, imported_at: new Date().toISOString() });
    log(`  imported ${r.people.toLocaleString('en-US')} people in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } else if (erased.length) {
    // Imported before the erasure while another store served it: its items go now (already gone is fine).
    await deletePeopleOfVersion(directory.version!, erased);
  }
}

/**
 * Takes the people on the erasure list (by work email) out of the loaded index and its lookups, before anything
 * serves it; returns them. Reads the privacy table once; an empty list changes nothing.
 */
async function applyErasureList(directory: LoadedDirectory, log: (m: string) => void): Promise<Person[]> {
  const [{ addressHash, erasureSuppressionList }, { removeErased }] = await Promise.all([import('../privacy/opt-outs.repository.js'), import('../search-engine/index-source.js')]);
  const list = await erasureSuppressionList();
  if (!list.size) return [];
  const removed = removeErased(directory, (email) => list.has(addressHash(email)));
  if (removed.length) log(`erasure list applied: ${removed.length} erased ${removed.length === 1 ? 'person' : 'people'} left out of the directory`);
  return removed.map((i) => directory.index.entryAt(i).person);
}

/**
 * With `SEARCH_ENGINE=opensearch`, the loaded directory's version published to the node at `OPENSEARCH_URL`
 * (bin/local.ts starts it) unless the `people` alias already names that version's index: a restart on the
 * same DATA_DIR searches at once.
 */
async function publishToOpenSearch(directory: LoadedDirectory, erased: Person[], log: (m: string) => void): Promise<void> {
  const [{ openSearchClient }, { deletePeopleDocuments, publishDirectoryVersion }, { versionIndexName, PEOPLE_ALIAS }] = await Promise.all([
    import('../adapters/opensearch-client.js'),
    import('../search-engine/opensearch-engine.js'),
    import('../search-engine/opensearch-query.js'),
  ]);
  const client = openSearchClient();
  const index = versionIndexName(directory.version!);
  const held = await client.indices.getAlias({ name: PEOPLE_ALIAS }, { ignore: [404] });
  if (held.statusCode === 200 && Object.keys(held.body as object).includes(index)) {
    // Published before an erasure made while another engine served: its documents go now (already gone is fine).
    if (erased.length) await deletePeopleDocuments(client, erased.map((p) => p.id));
    return;
  }
  const t0 = Date.now();
  log(`loading the directory into OpenSearch (${index})…`);
  const entries = Array.from({ length: directory.index.size }, (_, i) => i)
    .filter((i) => !directory.index.isRemoved(i))
    .map((i) => directory.index.entryAt(i));
  const r = await publishDirectoryVersion(client, directory.version!, entries);
  log(`  ${r.people.toLocaleString('en-US')} people searchable in OpenSearch in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/** The directory in this file, with the generation defaults of `npm start` unless the options name others. */
export function directoryPlan(file: string, directory?: DirectoryOptions): Omit<DirectoryPlan, 'log'> {
  return {
    file,
    people: directory?.people ?? Number(process.env.DIRECTORY_PEOPLE ?? 100_000),
    seed: directory?.seed ?? Number(process.env.DIRECTORY_SEED ?? 42),
  };
}

export async function startServices(opts: {
  root: string;
  stack: LocalStack;
  dataDir: string | null;
  directory?: DirectoryOptions;
  /** The directory's load, begun by the caller (`loadDirectory`) while the stack started. */
  loading?: Promise<LoadedDirectory>;
  log?: (m: string) => void;
}): Promise<LocalServices> {
  const { stack } = opts;
  const file = opts.directory?.file ?? (opts.dataDir ? join(opts.dataDir, 'directory.jsonl') : null);
  if (!file) throw new Error('a directory file (or DATA_DIR) is required');
  await prepareDirectory({ ...directoryPlan(file, opts.directory), log: opts.log, loading: opts.loading });
  stack.setReady();
  startupPhase('ready (directory loaded)');
  // Loaded once the service is ready: resuming and sweeping load most of its modules.
  const [{ resumeInFlight }, { sweep }] = await Promise.all([import('./resume.js'), import('../workers/sweep.js')]);
  const resumed = await resumeInFlight();
  // Emails and sequences from before the list index get their entries (a no-op once they have them).
  const listed = await (await import('../outreach/list-entries.repository.js')).backfillListEntries();
  // Sequence replies from before replies were paged get theirs too.
  const replyEntries = await (await import('../sequences/sequences.repository.js')).backfillSequenceReplyEntries();
  if (listed.emails + listed.sequences + replyEntries > 0) opts.log?.(`list index entries added: ${JSON.stringify({ ...listed, sequence_replies: replyEntries })}`);
  // Emails parked awaiting capacity before the await index get their entries too.
  const awaiting = await (await import('../outreach/emails.repository.js')).backfillAwaitEntries();
  if (awaiting > 0) opts.log?.(`await index entries added: ${awaiting}`);
  if (resumed.jobs + resumed.webhooks + resumed.drafts + resumed.sends > 0) opts.log?.(`resumed in-flight work: ${JSON.stringify(resumed)}`);
  // The sweeper runs at start; the stack runs it on its schedule's period, and dev clock moves run it too.
  const swept = await runAsFunction('sweeper', () => sweep());
  if (swept.examined > 0) opts.log?.(`swept overdue work: ${JSON.stringify(swept)}`);
  return {
    directoryFile: file,
    async createDemoAccount() {
      const account = await consoleCall(stack, 'POST', 'accounts/', { name: 'Demo workspace', agentic_search: true, pilot: true });
      const key = await consoleCall(stack, 'POST', `accounts/${account.id}/api-keys/`);
      const secret = await consoleCall(stack, 'POST', `accounts/${account.id}/webhook-secrets/`);
      await connectThroughEmulator(stack, account.id as string, 'demo.sender@demo-workspace.test');
      return { account_id: account.id as string, api_key: key.key as string, webhook_secret: secret.secret as string };
    },
    async addDemoWebhookSecret(accountId: string) {
      const secret = await consoleCall(stack, 'POST', `accounts/${accountId}/webhook-secrets/`);
      return secret.secret as string;
    },
    async stop() {},
  };
}
