/**
 * `npx tsx bin/bench-test-emails.ts [--runs 20]`: test-email timings on the local stack, all on loopback —
 * POST latency without and with 1 MiB of attachments (validation, file-type detection, the chunked
 * transaction), the worker's send of a 1 MiB test (chunks read back, MIME built, SES stand-in), and the
 * wall time of 20 parallel creates racing for 8 quota slots. Writes bench-results/test-emails.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { startLocalStack } from '../shared/local/stack.js';
import { advanceServiceClock } from '../shared/core/clock.js';
import { parseMessage } from '../shared/catalog/messages.js';
import { sendTestEmail } from '../shared/test-emails/send-test-email.js';
import { publicApiClient, type PublicApiClient } from '../shared/contract/client.js';
import type { paths } from '../shared/contract/public-api.js';

type TestEmailBody = paths['/api/public/v1/test-emails/']['post']['requestBody']['content']['application/json'];

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '20' } } });
const runs = Number(values.runs);
const pct = (xs: number[], p: number) => Number([...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!.toFixed(1));
const summary = (xs: number[]) => ({ n: xs.length, p50_ms: pct(xs, 0.5), p95_ms: pct(xs, 0.95), max_ms: pct(xs, 1) });

const stack = await startLocalStack({ root, dataDir: null, port: 0, adminToken: 'bench', workers: false, throttleMultiplier: 100_000, env: { PILOT_ACCOUNT_LIMIT: '1000' } });
const results: Record<string, unknown> = { at: new Date().toISOString(), runs };
try {
  const call = async (method: string, url: string, body: unknown, headers: Record<string, string>) => {
    const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const admin = (method: string, path: string, body?: unknown) => call(method, `${stack.consoleUrl}${path}`, body, { 'x-admin-token': stack.adminToken });
  const pilot = async () => {
    const account = (await admin('POST', 'accounts/', { name: 'Bench pilot', pilot: true })).body;
    await admin('PATCH', `accounts/${account.id}/`, { attachments_enabled: true });
    const key = (await admin('POST', `accounts/${account.id}/api-keys/`)).body.key as string;
    const sender = (await admin('POST', `accounts/${account.id}/sending-accounts/`, { email: `bench-${account.id.slice(-6)}@seller.test`, type: 'google' })).body;
    return { api: publicApiClient(new URL(stack.baseUrl).origin, key), sender: sender.id as string };
  };
  const post = async (p: { api: PublicApiClient }, body: TestEmailBody) => {
    const r = await p.api.POST('/api/public/v1/test-emails/', { body, params: { header: { 'Idempotency-Key': randomUUID() } } });
    return { status: r.response.status, body: r.data ?? r.error };
  };
  const drain = async () => {
    for (;;) {
      const r = await stack.sqs.send(new ReceiveMessageCommand({ QueueUrl: stack.queueUrls.sending, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
      if (!r.Messages?.length) return;
      for (const m of r.Messages) await stack.sqs.send(new DeleteMessageCommand({ QueueUrl: stack.queueUrls.sending, ReceiptHandle: m.ReceiptHandle! }));
    }
  };
  const takeOne = async () => {
    const r = await stack.sqs.send(new ReceiveMessageCommand({ QueueUrl: stack.queueUrls.sending, MaxNumberOfMessages: 1, WaitTimeSeconds: 1 }));
    const m = r.Messages![0]!;
    await stack.sqs.send(new DeleteMessageCommand({ QueueUrl: stack.queueUrls.sending, ReceiptHandle: m.ReceiptHandle! }));
    return parseMessage('sending', m.Body!);
  };
  const big = Buffer.alloc(1_048_576 - 100, 0x61);
  const plainBody = (p: { sender: string }): TestEmailBody => ({ from_account: p.sender, subject: 'Bench', body_plain: 'Hello from the bench.' });
  const bigBody = (p: { sender: string }): TestEmailBody => ({ ...plainBody(p), attachments: [{ filename: 'big.csv', content_type: 'text/csv', content_base64: big.toString('base64') }] });

  const timed = async (fn: () => Promise<unknown>) => {
    const t = performance.now();
    await fn();
    return performance.now() - t;
  };
  const measure = async (label: string, body: (p: { sender: string }) => TestEmailBody, send: boolean) => {
    const p = await pilot();
    const create: number[] = [];
    const worker: number[] = [];
    for (let i = 0; i < runs; i++) {
      // Each create takes quota slots: move past the hour every ten, and past the day every fifty.
      if (i > 0 && i % 10 === 0) advanceServiceClock(i % 50 === 0 ? 86_401 : 3601);
      create.push(await timed(async () => {
        const r = await post(p, body(p));
        if (r.status !== 202) throw new Error(`${label}: ${r.status} ${JSON.stringify(r.body)}`);
      }));
      const m = await takeOne();
      if (send && m.kind === 'send_test_email') worker.push(await timed(() => sendTestEmail(m.account_id, m.test_email_id)));
    }
    results[label] = { create: summary(create), ...(send ? { send: summary(worker) } : {}) };
    console.log(`${label}: ${JSON.stringify(results[label])}`);
  };
  await measure('no_attachments', plainBody, true);
  await measure('attachments_1mib', bigBody, true);

  const race: number[] = [];
  for (let i = 0; i < 5; i++) {
    const p = await pilot();
    for (let j = 0; j < 2; j++) await post(p, plainBody(p));
    let created = 0;
    race.push(await timed(async () => {
      const answers = await Promise.all(Array.from({ length: 20 }, () => post(p, plainBody(p))));
      created = answers.filter((a) => a.status === 202).length;
    }));
    if (created !== 8) throw new Error(`quota race created ${created}, not 8`);
    await drain();
  }
  results.quota_race_20_at_8 = { ...summary(race), created_each_time: 8 };
  console.log(`quota_race_20_at_8: ${JSON.stringify(results.quota_race_20_at_8)}`);
} finally {
  await stack.stop();
}
mkdirSync(join(root, 'bench-results'), { recursive: true });
writeFileSync(join(root, 'bench-results/test-emails.json'), JSON.stringify(results, null, 2));
process.exit(0);
