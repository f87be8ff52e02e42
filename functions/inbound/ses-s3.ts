import type { S3Event } from 'aws-lambda';
import { readObjectBytes } from '../../shared/adapters/object-store.js';
import { handleInbound, type InboundOutcome } from '../../shared/outreach/inbound-mail.js';
import { logger } from '../../shared/core/logger.js';
import { countMetric, flushMetrics } from '../../shared/core/metrics.js';

/**
 * The Inbox port in AWS: SES receiving writes each inbound message to the inbound bucket; this worker
 * reads it and hands it to the same reading and matching as the mailbox poll (`handleInbound`). The receiving
 * mailbox is read from the message itself (the `Received: … for <recipient>` line SES puts on top, then
 * Delivered-To and the To/Cc headers); the object's key names the message, so a retried invocation records it once.
 * A message that cannot be handled is recorded as unprocessable and does not fail the invocation; a failure of
 * the service itself is counted (`inbound_failed`) and thrown, so Lambda retries it (twice, then the
 * asynchronous-failure queue, alarmed), and the third failed attempt at the same message is unprocessable.
 * Lambda ignores what an S3-invoked function returns; the twin's SES-receiving stand-in
 * (shared/local/ses-receiving.ts) answers with the outcomes.
 */
export const handler = async (event: S3Event): Promise<{ outcomes: InboundOutcome[] }> => {
  const outcomes: InboundOutcome[] = [];
  try {
    for (const r of event.Records) {
      const key = decodeURIComponent(r.s3.object.key.replace(/\+/g, ' '));
      const outcome = await handleInbound(await readObjectBytes(r.s3.bucket.name, key), { source: 'ses', addresses: [], key: `ses:${key}` });
      logger.info('inbound message', { key, matched: outcome.matched, classification: outcome.classification, unprocessable: outcome.unprocessable });
      outcomes.push(outcome);
    }
    return { outcomes };
  } catch (e) {
    countMetric('inbound_failed');
    throw e;
  } finally {
    await flushMetrics();
  }
};
