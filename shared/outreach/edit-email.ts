import type * as z from '../core/zod.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { awsScheduler, type Scheduler } from '../adapters/scheduler.js';
import { messages } from '../catalog/messages.js';
import { transitionOrCurrent } from './emails.repository.js';
import { htmlToPlain, sanitizeEmailHtml } from '../core/html.js';
import { plainToHtml } from './plain-html.js';
import { REVIEW_WINDOW_MS, type EmailRecord } from './model.js';
import type { PatchEmailSchema } from './schemas.js';
import { conflict, requireEmail, stillThere } from './review.js';
import { reviewScheduleName } from './schedule-send.js';
import { extendEnrollmentWindow } from '../sequences/review-window.js';

/** Edit an email in review or queued (docs/decisions.md#outreach-emails): a new body is sanitised server-side. */
export async function editEmail(accountId: string, id: string, patch: z.output<typeof PatchEmailSchema>, deps: { clock?: Clock; scheduler?: Scheduler } = {}, known?: EmailRecord): Promise<EmailRecord> {
  const clock = deps.clock ?? serviceClock;
  const email = known ?? (await requireEmail(accountId, id));
  if (email.status !== 'pending_review' && email.status !== 'queued') throw conflict('edit', email.status);
  const now = clock.now();
  const set: Record<string, unknown> = { updated_at: now.toISOString() };
  if (patch.subject !== undefined) set.subject = patch.subject;
  if (patch.body_html !== undefined) {
    // Sanitised server-side; the plain alternative is regenerated from what was kept.
    set.body_html = await sanitizeEmailHtml(patch.body_html);
    set.body_plain = await htmlToPlain(set.body_html as string);
  } else if (patch.body_plain !== undefined) {
    set.body_plain = patch.body_plain;
    set.body_html = plainToHtml(patch.body_plain);
  }
  // An edit in review extends the window (for a sequence step, its enrollment's: every waiting step's).
  const inReview = email.status === 'pending_review';
  if (inReview) set.review_expires_at = new Date(now.getTime() + REVIEW_WINDOW_MS).toISOString();
  // An edit in review moves the window's end, and with it the time the sweeper would expire it.
  const due = inReview ? { due: new Date(set.review_expires_at as string) } : {};
  const r = await transitionOrCurrent(accountId, id, [email.status], set, [], due);
  if (!r.moved) return editEmail(accountId, id, patch, deps, stillThere(r)); // the state moved under us: judge again
  const updated = r.email;
  if (inReview && updated.sequence_id) await extendEnrollmentWindow(updated, new Date(updated.review_expires_at!), deps.scheduler ?? awsScheduler);
  else if (inReview) {
    await (deps.scheduler ?? awsScheduler).scheduleAt(reviewScheduleName(id), new Date(updated.review_expires_at!), messages.reviewExpired(accountId, id));
  }
  return updated;
}
