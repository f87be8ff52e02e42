import { FUNCTIONS } from '../../shared/catalog/functions.js';
import { TABLE_LIST } from '../../shared/catalog/tables.js';
import { QUEUE_LIST } from '../../shared/catalog/queues.js';
import { bundleUses, ungranted, usesOf, type BundleUses } from '../support/bundle-uses.js';

// Every function's bundle (the deployed esbuild settings, not minified, so tree shaking leaves what the handler
// can reach and names stay readable) against its catalogue grants: a table, queue, secret, Scheduler group, user
// pool or usage plan the code reaches without a grant would be refused by IAM after `cdk deploy`.
let uses: Map<string, BundleUses>;
beforeAll(async () => {
  uses = await bundleUses([...new Set(FUNCTIONS.map((f) => f.module))]);
}, 240_000);

test('every function the stacks deploy uses only what its catalogue entry grants', () => {
  const missing = FUNCTIONS.map((f) => [f.name, ungranted(uses.get(f.module)!, f.bindings)] as const).filter(([, m]) => m.length > 0);
  expect(missing).toEqual([]);
});

test('the check reads real uses: the sending worker reaches its tables, queue, Scheduler, SES and both secrets', () => {
  const sending = uses.get('functions/workers/sending.worker.ts')!;
  // privacy: the opt-outs it checks before a send and the "emailed" record it writes after one (docs/privacy.md).
  expect(sending.tables).toEqual({ accounts: 'readwrite', outreach: 'readwrite', privacy: 'readwrite' });
  expect(sending.queues).toContain('sending');
  expect([sending.scheduler, sending.mail, sending.secrets, sending.mailboxProviders]).toEqual([true, true, true, true]);
  // And it would catch a missing grant: the catalogue's bindings without the mailbox providers' secret.
  const { mailboxProviders: _, ...without } = FUNCTIONS.find((f) => f.name === 'sending-worker')!.bindings;
  expect(ungranted(sending, without)).toEqual(['mailboxProviders']);
});

test('the language model is reached by the search worker alone, and its binding is what grants it', () => {
  expect(FUNCTIONS.filter((f) => uses.get(f.module)!.languageModel).map((f) => f.name)).toEqual(['search-worker']);
  const { languageModel: _, ...without } = FUNCTIONS.find((f) => f.name === 'search-worker')!.bindings;
  expect(ungranted(uses.get('functions/workers/search.worker.ts')!, without)).toEqual(['languageModel']);
});

test('names a table through a variable only where the twin checks the callers at run time', () => {
  const dynamic = new Set([...uses.values()].flatMap((u) => u.dynamicTables));
  expect([...dynamic].sort()).toEqual(['shared/accounts/caller.repository.ts', 'shared/workers/due.repository.ts']);
});

test('a module writing what it names is read as a write; one reading is read as a read', () => {
  const code = ['// shared/a.repository.ts', 'send(new PutCommand({ TableName: tableName("jobs") }));', '// shared/b.repository.ts', 'get(tableName("accounts")); sendMessage("search", m);'].join('\n');
  expect(usesOf(code)).toMatchObject({ tables: { jobs: 'readwrite', accounts: 'read' }, queues: ['search'] });
  expect(ungranted(usesOf(code), { tables: { jobs: 'read', accounts: 'read' } })).toEqual(['table jobs (write)', 'queue search']);
});

test('every catalogue table and queue key is read from a bundle, mail_evidence (an underscore) included', () => {
  // The pattern once read `[a-z-]+`: tableName("mail_evidence") went unseen, and with it the dead-letter consumer's
  // missing grant on mail_evidence.
  for (const t of TABLE_LIST) expect(usesOf(`// shared/x.repository.ts\nget(tableName("${t.key}"));`).tables).toEqual({ [t.key]: 'read' });
  for (const q of QUEUE_LIST) expect(usesOf(`// shared/x.ts\nsendMessage("${q.key}", m);`).queues).toEqual([q.key]);
  expect(uses.get('functions/workers/dead-letters.worker.ts')!.tables.mail_evidence).toBe('readwrite');
});
