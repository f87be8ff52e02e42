import { InboundSchema, receiveInbound } from '../outreach/inbound-mail.js';
import { errorEnvelope, parseWith } from '../http/handler.js';
import { AppError } from '../core/errors.js';

/**
 * `POST /api/console/v1/dev/inbound/`: hands a received message to the outreach inbox the way a mailbox
 * provider would (DESIGN.md §2). The dev controls take this function as an argument.
 */
export type InboundDelivery = (body: unknown) => Promise<{ status: number; body: unknown }>;

export const deliverDevInbound: InboundDelivery = async (body) => {
  try {
    return { status: 202, body: await receiveInbound(parseWith(InboundSchema, body)) };
  } catch (e) {
    if (e instanceof AppError) return { status: e.statusCode, body: errorEnvelope(e) };
    throw e;
  }
};
