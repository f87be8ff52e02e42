/**
 * `tsx bin/bench-mail-corpus.ts`: the mail reader (shared/outreach/mail-reading.ts) over the real-mail corpus
 * (test/fixtures/mail-corpus): bounces recognised with the right failed recipient, hard/soft agreement with
 * the go-sisimai labels, human replies misread as bounces, complaint and auto-reply recall, the misses per
 * mail system, and the reading time per message beside a physical reference measured in the same run:
 * mailparser's simpleParser alone on the same messages. Prints a readable report, then one JSON line last.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simpleParser } from 'mailparser';
import { readParsedMail, type MailReading } from '../shared/outreach/mail-reading.js';

interface Entry {
  file: string;
  kind: 'bounce' | 'complaint' | 'auto_reply' | 'reply';
  module?: string;
  recipient: string | null;
  hard: boolean | null;
  delayed?: boolean;
  original_message_id?: string;
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'test/fixtures/mail-corpus');
const manifest: Entry[] = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
const raws = manifest.map((e) => readFileSync(join(dir, e.file)));
const ROUNDS = 5;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number(s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(3));
};
const ratio = (a: number, b: number) => (b === 0 ? null : Number(((100 * a) / b).toFixed(1)));

// Warm up both paths once (JIT, lazy requires), then time each message ROUNDS times, interleaved.
const parsed = await Promise.all(raws.map((raw) => simpleParser(raw)));
const readings: MailReading[] = parsed.map((p, i) => readParsedMail(p, raws[i]));
const parseMs: number[] = [];
const readMs: number[] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  for (let i = 0; i < raws.length; i += 1) {
    let t = performance.now();
    const p = await simpleParser(raws[i]!);
    parseMs.push(performance.now() - t);
    t = performance.now();
    readParsedMail(p, raws[i]);
    readMs.push(performance.now() - t);
  }
}

const bounces = manifest.map((e, i) => ({ e, r: readings[i]! })).filter(({ e }) => e.kind === 'bounce');
const right = bounces.filter(({ e, r }) => r.kind === 'bounce' && r.failed.some((f) => f.address === e.recipient));
const hardPairs = right.map(({ e, r }) => ({ e, f: r.failed.find((f) => f.address === e.recipient)! })).filter(({ e }) => e.hard !== null);
const hardAgree = hardPairs.filter(({ e, f }) => f.hard === e.hard);
const replies = manifest.map((e, i) => ({ e, r: readings[i]! })).filter(({ e }) => e.kind === 'reply');
const complaints = manifest.map((e, i) => ({ e, r: readings[i]! })).filter(({ e }) => e.kind === 'complaint');
const autos = manifest.map((e, i) => ({ e, r: readings[i]! })).filter(({ e }) => e.kind === 'auto_reply');
const withId = manifest.map((e, i) => ({ e, r: readings[i]! })).filter(({ e }) => e.original_message_id && (e.kind === 'bounce' || e.kind === 'complaint'));

const misses: Record<string, string[]> = {};
for (const { e, r } of bounces) {
  if (right.some((x) => x.e === e)) continue;
  const system = e.module ?? 'unknown';
  (misses[system] ??= []).push(`${e.file.split('/').pop()}: ${r.kind === 'bounce' ? `named ${JSON.stringify(r.failed.map((f) => f.address))}, label ${e.recipient}` : `read as ${r.kind}`}`);
}
const hardMisses: Record<string, number> = {};
for (const { e, f } of hardPairs) if (f.hard !== e.hard) hardMisses[e.module ?? 'unknown'] = (hardMisses[e.module ?? 'unknown'] ?? 0) + 1;

const summary = {
  at: new Date().toISOString(),
  messages: manifest.length,
  bounces: bounces.length,
  bounce_right_recipient_pct: ratio(right.length, bounces.length),
  hard_soft_agreement_pct: ratio(hardAgree.length, hardPairs.length),
  replies: replies.length,
  replies_read_as_bounce: replies.filter(({ r }) => r.kind === 'bounce').length,
  replies_read_as_reply_pct: ratio(replies.filter(({ r }) => r.kind === 'reply').length, replies.length),
  complaint_recall_pct: ratio(complaints.filter(({ r }) => r.kind === 'complaint').length, complaints.length),
  auto_reply_recall_pct: ratio(autos.filter(({ e, r }) => r.kind === 'auto_reply' && r.delayed === (e.delayed === true)).length, autos.length),
  original_message_id_pct: ratio(withId.filter(({ e, r }) => r.original_message_ids.includes(e.original_message_id!)).length, withId.length),
  read_ms: { median: pct(readMs, 0.5), p95: pct(readMs, 0.95) },
  reference_simpleParser_ms: { median: pct(parseMs, 0.5), p95: pct(parseMs, 0.95) },
  samples_per_path: readMs.length,
  recipient_misses: misses,
  hard_soft_disagreements_by_system: hardMisses,
};

console.log(`mail corpus: ${summary.messages} messages (${summary.bounces} bounces, ${summary.replies} replies, ${complaints.length} complaints, ${autos.length} auto-replies)`);
console.log(`  bounces recognised with the right failed recipient: ${summary.bounce_right_recipient_pct}%`);
console.log(`  hard/soft agreement with go-sisimai: ${summary.hard_soft_agreement_pct}% of ${hardPairs.length}`);
console.log(`  human replies read as bounces: ${summary.replies_read_as_bounce} (read as replies: ${summary.replies_read_as_reply_pct}%)`);
console.log(`  complaint recall: ${summary.complaint_recall_pct}%  auto-reply recall: ${summary.auto_reply_recall_pct}%  original Message-ID found: ${summary.original_message_id_pct}%`);
console.log(`  reading per message: median ${summary.read_ms.median} ms, p95 ${summary.read_ms.p95} ms`);
console.log(`  reference (mailparser simpleParser alone, same messages): median ${summary.reference_simpleParser_ms.median} ms, p95 ${summary.reference_simpleParser_ms.p95} ms`);
for (const [system, list] of Object.entries(misses)) for (const m of list) console.log(`  miss [${system}] ${m}`);
console.log(`  hard/soft disagreements by system: ${JSON.stringify(hardMisses)}`);
console.log(JSON.stringify(summary));
