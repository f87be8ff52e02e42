/**
 * `npx tsx bin/bench-sequences.ts [--contacts 100] [--steps 3]`: one sequence of 100 contacts × 3 steps on the
 * local stack, all on loopback — drafting (accept → enrollments → chained drafts → pass settled) and sending
 * (approve → every step of every enrollment sent, the service clock moved a day at a time) in emails/s, beside
 * the physical reference of the same run: sequential raw GetItem and PutItem on the same DynamoDB Local.
 * Writes bench-results/sequences.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../shared/adapters/aws.js';
import { startLocalStack } from '../shared/local/stack.js';
import { startServices } from '../shared/local/services.js';
import { publicApiClient } from '../shared/contract/client.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { contacts: { type: 'string', default: '100' }, steps: { type: 'string', default: '3' } } });
const CONTACTS = Number(values.contacts);
const STEPS = Number(values.steps);
const EMAILS = CONTACTS * STEPS;
const REFERENCE_OPS = 500;
const results: Record<string, unknown> = { at: new Date().toISOString(), machine: { cores: cpus().length, load_before: loadavg().map((l) => Number(l.toFixed(2))) } };

const dir = mkdtempSync(join(tmpdir(), 'bench-sequences-'));
const stack = await startLocalStack({ root, dataDir: null, port: 0, adminToken: 'bench', throttleMultiplier: 100_000 });
try {
  await startServices({ root, stack, dataDir: null, directory: { file: join(dir, 'directory.jsonl'), people: 200, seed: 7 } });
  const admin = { 'x-admin-token': 'bench', 'content-type': 'application/json' };
  const consoleCall = async (method: string, path: string, body?: unknown) => (await fetch(`${stack.consoleUrl}${path}`, { method, headers: admin, body: body === undefined ? undefined : JSON.stringify(body) })).json() as Promise<any>;
  const account = await consoleCall('POST', 'accounts/', { name: 'bench sequences', credits: 1_000_000 });
  const key = (await consoleCall('POST', `accounts/${account.id}/api-keys/`)).key as string;
  await consoleCall('POST', `accounts/${account.id}/sending-accounts/`, { email: 'bench@seller.test', type: 'google', daily_limit: 10_000 });
  const api = publicApiClient(new URL(stack.baseUrl).origin, key);
  const settle = () => consoleCall('POST', 'dev/settle/');

  // The physical reference: what this DynamoDB Local does, sequentially, in this run.
  const table = process.env.OUTREACH_TABLE_NAME!;
  let t = performance.now();
  for (let i = 0; i < REFERENCE_OPS; i++) await documentClient().send(new PutCommand({ TableName: table, Item: { pk: 'BENCH#reference', sk: String(i), payload: 'x'.repeat(200) } }));
  const putMs = performance.now() - t;
  t = performance.now();
  for (let i = 0; i < REFERENCE_OPS; i++) await documentClient().send(new GetCommand({ TableName: table, Key: { pk: 'BENCH#reference', sk: String(i) }, ConsistentRead: true }));
  const getMs = performance.now() - t;
  results.reference = { put_item_per_s: Math.round(REFERENCE_OPS / (putMs / 1000)), get_item_per_s: Math.round(REFERENCE_OPS / (getMs / 1000)) };
  console.log(`reference: ${JSON.stringify(results.reference)}`);

  const contacts = Array.from({ length: CONTACTS }, (_, i) => ({ email: `seqbench.${i}@prospect.test`, first_name: 'Alex', company_name: 'Acme' }));
  t = performance.now();
  const created = await api.POST('/api/public/v1/sequences/', { body: { contacts, steps: STEPS, instructions: 'Short: introduce our analytics platform and ask for a 15-minute call.' } });
  if (created.response.status !== 202 || created.data?.contacts_accepted !== CONTACTS) throw new Error(`create: ${created.response.status} ${JSON.stringify(created.data ?? created.error)}`);
  const acceptMs = performance.now() - t;
  const id = created.data.id;
  const read = async () => (await api.GET('/api/public/v1/sequences/{id}/', { params: { path: { id } } })).data!;
  for (let i = 0; i < 60 && (await read()).status === 'drafting'; i++) await settle();
  const draftMs = performance.now() - t;
  const drafted = await read();
  if (drafted.status !== 'pending_review' || drafted.drafted !== EMAILS) throw new Error(`drafting ended ${drafted.status} with ${drafted.drafted} drafts`);
  results.drafting = { contacts: CONTACTS, steps: STEPS, emails: EMAILS, accept_ms: Math.round(acceptMs), ms: Math.round(draftMs), emails_per_s: Number((EMAILS / (draftMs / 1000)).toFixed(1)) };
  console.log(`drafting: ${JSON.stringify(results.drafting)}`);

  // Sending: wall time spent settling (the workers sending what came due), the clock moved a day between.
  t = performance.now();
  const approved = await api.POST('/api/public/v1/sequences/{id}/approve/', { params: { path: { id } } });
  if (approved.response.status !== 200) throw new Error(`approve: ${approved.response.status}`);
  let sendMs = performance.now() - t;
  const sentCount = (s: any) => s.enrollments.reduce((n: number, e: any) => n + e.emails.filter((m: any) => m.status === 'sent').length, 0);
  let days = 0;
  for (; days < 40 && sentCount(await read()) < EMAILS; days++) {
    await consoleCall('POST', 'dev/clock/', { advance_seconds: 86_400 });
    t = performance.now();
    await settle();
    sendMs += performance.now() - t;
  }
  const final = await read();
  if (sentCount(final) !== EMAILS || final.status !== 'completed') throw new Error(`sending ended ${final.status} with ${sentCount(final)} of ${EMAILS} sent`);
  results.sending = { emails: EMAILS, service_days: days, ms: Math.round(sendMs), emails_per_s: Number((EMAILS / (sendMs / 1000)).toFixed(1)) };
  console.log(`sending: ${JSON.stringify(results.sending)}`);
  (results.machine as Record<string, unknown>).load_after = loadavg().map((l) => Number(l.toFixed(2)));
} finally {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}
mkdirSync(join(root, 'bench-results'), { recursive: true });
writeFileSync(join(root, 'bench-results/sequences.json'), JSON.stringify(results, null, 2));
console.log(JSON.stringify(results));
