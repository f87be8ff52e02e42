import type { S3Event } from 'aws-lambda';
import { readObjectBytes } from '../../shared/adapters/object-store.js';
import { receiveRawInbound } from '../../shared/outreach/inbound-mail.js';
import { logger } from '../../shared/core/logger.js';

/**
 * The Inbox port in AWS: SES receiving writes each inbound message to the inbound bucket; this worker
 * reads it and hands it to the same matching and classification as `dev/inbound` locally.
 */
export const handler = async (event: S3Event): Promise<void> => {
  for (const r of event.Records) {
    const key = decodeURIComponent(r.s3.object.key.replace(/\+/g, ' '));
    const outcome = await receiveRawInbound(await readObjectBytes(r.s3.bucket.name, key));
    logger.info('inbound message', { key, matched: outcome.matched, classification: outcome.classification });
  }
};
