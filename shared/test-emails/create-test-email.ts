import { createHash } from 'node:crypto';
import { serviceClock, type Clock } from '../core/clock.js';
import { ConflictError, ContentionError, PermissionDeniedError, ValidationError, AppError } from '../core/errors.js';
import { newUuid } from '../core/ids.js';
import { logger } from '../core/logger.js';
import { getSendingAccount } from '../accounts/sending-accounts.repository.js';
import type { Account } from '../accounts/model.js';
import { sendMessage } from '../adapters/queue.js';
import { messages } from '../catalog/messages.js';
import { DEADLINES, after } from '../catalog/deadlines.js';
import { canonicalJson, parseIdempotencyKey } from '../jobs/accept-job.js';
import { htmlToPlain, sanitizeEmailHtml } from '../core/html.js';
import { plainToHtml } from '../outreach/plain-html.js';
import { decodeAttachments } from './attachments.js';
import { testInboxAddress } from './config.js';
import { replayStatus, testEmailView, type TestEmailRecord } from './model.js';
import type { CreateTestEmailRequest } from './test-email.schema.js';
import { chunkCount, freeQuotaSlots, getTestEmail, getTestEmailKey, insertTestEmail } from './test-emails.repository.js';

/** Over a rolling quota (docs/decisions.md#decisions-the-contract-leaves-open): 429 `rate_limited`. */
export class TestEmailQuotaError extends AppError {
  constructor(window: string) {
    super(429, 'rate_limited', `Test-email quota reached: too many new tests in the last ${window}. Replays do not count; try again later.`);
  }
}

/** `Idempotency-Key` is required on POST /test-emails/, in the format every idempotent route takes. */
export function requireIdempotencyKey(headers: Record<string, string>): string {
  const key = parseIdempotencyKey(headers);
  if (key === undefined) {
    throw new ValidationError('Idempotency-Key is required: 1 to 128 characters of letters, digits, period, underscore, colon or hyphen.', [{ path: 'Idempotency-Key', message: 'required' }]);
  }
  return key;
}

export interface CreateTestEmailInput {
  account: Account;
  idempotencyKey: string;
  request: CreateTestEmailRequest;
}

export interface CreateTestEmailResult {
  status: 200 | 202;
  body: ReturnType<typeof testEmailView>;
}

/** Picks stay below this many tries; beyond it the account's slots are too contended to judge fairly. */
const MAX_SLOT_TRIES = 25;
const pick = (free: number[]) => free[Math.floor(Math.random() * free.length)]!;

/**
 * POST /test-emails/.
 *
 * Input: a pilot account, its validated request, its Idempotency-Key. Output: the record, 202 when new.
 *
 * 1. A known key with the same normalized content is a replay: the original record (202 while `queued` or
 *    `sending`, else 200); a `queued` one is put on the queue again (its message may have been lost), which
 *    starts nothing once the worker has claimed it.
 * 2. Attachments need the account's console flag (403), then pass the byte rules (400). Only content that
 *    passes them is compared with a known key's: other content under a used key is 409.
 * 3. The sender must be the caller's (400) and usable now (409); it is snapshotted on the record.
 * 4. One transaction writes the record, its key, its attachment bytes and one free slot of each rolling
 *    quota window (429 when a window has none); losing a slot to a concurrent request, or colliding with
 *    one, picks again (a collision on the key is then read back as a replay).
 * 5. One message to the sending queue. The record is due within the dispatch grace, so a lost message is
 *    sent again by the sweeper (or by repeating the POST).
 */
export async function createTestEmail(input: CreateTestEmailInput, clock: Clock = serviceClock): Promise<CreateTestEmailResult> {
  const { account, idempotencyKey, request } = input;
  const bodyHash = createHash('sha256').update(canonicalJson(request)).digest('hex');

  const known = await getTestEmailKey(account.id, idempotencyKey);
  if (known?.body_hash === bodyHash) {
    const replayed = await replay(account.id, idempotencyKey, bodyHash, true);
    if (replayed) return replayed;
  }

  if (request.attachments.length && !account.attachments_enabled) throw new PermissionDeniedError('Attachments are not enabled for this account.');
  const attachments = await decodeAttachments(request.attachments);
  if (known) throw new ConflictError('Idempotency-Key was already used with different content.');

  const sender = await getSendingAccount(account.id, request.from_account, clock);
  if (!sender) throw new ValidationError('Invalid request body.', [{ path: 'from_account', message: 'not a sending account of this account' }]);
  if (!sender.connected || !sender.sending_enabled) throw new ConflictError('The sending account is not connected or not enabled for sending.');

  const bodyHtml = request.body_html !== undefined ? await sanitizeEmailHtml(request.body_html) : plainToHtml(request.body_plain!);
  if (bodyHtml === '') throw new ValidationError('Invalid request body.', [{ path: request.body_html !== undefined ? 'body_html' : 'body_plain', message: 'nothing is left to send after sanitising' }]);

  const now = clock.now();
  const record: TestEmailRecord = {
    id: newUuid(),
    account_id: account.id,
    status: 'queued',
    to: testInboxAddress(),
    from_account: sender.id,
    from_email: sender.email,
    from_type: sender.type,
    subject: request.subject,
    body_html: bodyHtml,
    body_text: request.body_plain ?? (await htmlToPlain(bodyHtml)),
    signature_html: sender.signature_html,
    attachments: attachments.map(({ filename, content_type, size_bytes }) => ({ filename, content_type, size_bytes })),
    attachment_chunks: attachments.map((a) => chunkCount(a.size_bytes)),
    idempotency_key: idempotencyKey,
    body_hash: bodyHash,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    sent_at: null,
    message_id: null,
    internet_message_id: null,
    error: null,
  };

  for (let tries = 0; ; tries++) {
    const nowMs = clock.now().getTime();
    const free = await freeQuotaSlots(account.id, nowMs);
    if (!free.hour.length) throw new TestEmailQuotaError('hour');
    if (!free.day.length) throw new TestEmailQuotaError('day');
    if (tries >= MAX_SLOT_TRIES) throw new ContentionError('Test emails of this account are being created concurrently; retry shortly with the same key.');
    const outcome = await insertTestEmail(
      record,
      attachments.map((a) => a.bytes),
      { hour: pick(free.hour), day: pick(free.day) },
      nowMs,
      after(now, DEADLINES.DISPATCH_GRACE_MS),
    );
    if (outcome === 'created') break;
    if (outcome === 'key_taken') {
      const again = await replay(account.id, idempotencyKey, bodyHash, false);
      if (again) return again;
    }
  }

  try {
    await sendMessage('sending', messages.sendTestEmail(account.id, record.id));
  } catch (error) {
    logger.error('test email recorded but its message was not sent; the sweeper sends it', { testEmailId: record.id, error: error as Error });
  }
  return { status: 202, body: testEmailView(record) };
}

/** The original record for a known key and the same content (republished while `queued`); 409 for other content. */
async function replay(accountId: string, idempotencyKey: string, bodyHash: string, republish: boolean): Promise<CreateTestEmailResult | null> {
  const key = await getTestEmailKey(accountId, idempotencyKey);
  if (!key) return null;
  if (key.body_hash !== bodyHash) throw new ConflictError('Idempotency-Key was already used with different content.');
  const record = await getTestEmail(accountId, key.test_email_id);
  if (!record) return null;
  if (republish && record.status === 'queued') await sendMessage('sending', messages.sendTestEmail(accountId, record.id));
  return { status: replayStatus(record.status), body: testEmailView(record) };
}
