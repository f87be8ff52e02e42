import type { S3Event } from 'aws-lambda';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { receiveRawInbound } from '../../shared/outreach/inbound-mail.js';
import { logger } from '../../shared/core/logger.js';
import { s3Client } from '../../shared/adapters/s3-client.js';

/**
 * The Inbox port in AWS: SES receiving writes each inbound message to the inbound bucket; this worker
 * reads it and hands it to the same matching and classification as `dev/inbound` locally.
 */
export const handler = async (event: S3Event): Promise<void> => {
  for (const r of event.Records) {
    const key = decodeURIComponent(r.s3.object.key.replace(/\+/g, ' '));
    const out = await s3Client().send(new GetObjectCommand({ Bucket: r.s3.bucket.name, Key: key }));
    const raw = Buffer.from(await out.Body!.transformToByteArray());
    const outcome = await receiveRawInbound(raw);
    logger.info('inbound message', { key, matched: outcome.matched, classification: outcome.classification });
  }
};
