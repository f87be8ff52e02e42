import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServices } from '../../shared/local/services.js';
import { Client, ROOT, newTenant, startTestStack } from '../support/local.js';

/**
 * A restart mid-cadence: the stack stops after step 0 of a running sequence was sent and its follow-up's
 * schedule created; the second life (same data directory) sends the follow-up once, at its time, and the
 * sequence completes. Nothing is lost and nothing is sent twice.
 */
test('a sequence stopped mid-cadence resumes after a restart: the follow-up goes out once and the sequence completes', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sequence-restart-'));
  const directory = { file: join(dataDir, 'directory.jsonl'), people: 100, seed: 9 };
  const who = 'restart.contact@prospect.test';
  let stack = await startTestStack({ dataDir, throttleMultiplier: 100 });
  let admin = new Client(stack);
  const step = async () => {
    await admin.console('POST', 'dev/clock/', { advance_seconds: 12 * 3600 });
    expect((await admin.console('POST', 'dev/settle/')).status).toBe(200);
  };
  try {
    await startServices({ root: ROOT, stack, dataDir, directory });
    const t = await newTenant(stack, {}, { sender: { email: 'rep@seller.test', type: 'google' } });
    const created = await t.client.api('POST', 'sequences/', { contacts: [{ email: who, first_name: 'Rae', company_name: 'Acme' }], steps: 2, review: 'none', instructions: 'Introduce our platform and ask for a call.' });
    expect(created.status).toBe(202);
    // Drafting finishes before the clock moves (a jump past the draft deadline would fail unfinished drafts).
    expect((await admin.console('POST', 'dev/settle/')).status).toBe(200);
    const read = async (c: Client) => (await c.api('GET', `sequences/${created.body.id}/`)).body;
    for (let i = 0; i < 20 && (await read(t.client)).enrollments[0].emails[0].status !== 'sent'; i++) await step();
    const before = (await read(t.client)).enrollments[0].emails;
    expect(before.map((e: any) => e.status)).toEqual(['sent', 'queued']);
    expect(before[1].scheduled_for).not.toBeNull();
    expect(stack.scheduler.pending().map((s) => s.Name)).toContain(`send.${before[1].id}`);
    await stack.stop();

    stack = await startTestStack({ dataDir, throttleMultiplier: 100 });
    admin = new Client(stack);
    await startServices({ root: ROOT, stack, dataDir, directory });
    const client = new Client(stack, t.apiKey);
    expect(stack.scheduler.pending().map((s) => s.Name)).toContain(`send.${before[1].id}`);
    for (let i = 0; i < 20 && (await read(client)).status !== 'completed'; i++) await step();
    const after = await read(client);
    expect(after.status).toBe('completed');
    expect(after.enrollments[0].status).toBe('completed');
    expect(after.enrollments[0].emails.map((e: any) => e.status)).toEqual(['sent', 'sent']);
    expect(after.enrollments[0].emails[0].sent_at).toBe(before[0].sent_at);
    expect(new Date(after.enrollments[0].emails[1].sent_at).getTime()).toBeGreaterThanOrEqual(new Date(before[0].sent_at).getTime() + 3 * 86400_000 - 60_000);
    const sentHere = ((await admin.console('GET', 'dev/mailbox/')).body.messages as any[]).filter((m) => m.to.includes(who));
    expect(sentHere.map((m) => m.subject)).toEqual([after.enrollments[0].emails[1].subject]);
    expect(((await admin.console('GET', `accounts/${t.accountId}/charges/`)).body.results as any[]).find((c) => c.reference === created.body.id)).toMatchObject({ reserved: 4, charged: 4, charge_status: 'charged' });
  } finally {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 300_000);
