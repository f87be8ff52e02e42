import { SesEventSchema } from '../catalog/ses-event-schema.js';
import { messages } from '../catalog/messages.js';
import { sendMessage } from '../adapters/queue.js';
import { errorEnvelope, parseWith } from '../http/handler.js';
import { AppError } from '../core/errors.js';

/**
 * `POST /api/console/v1/dev/ses-events/`: an SES event in the shape EventBridge delivers it (the SES stand-in
 * publishes none). It becomes the very queue message the AWS rule's input transformer makes and goes through
 * the mail-events queue to the same worker, so the twin cannot hide a failure of that path.
 */
export async function injectSesEvent(body: unknown): Promise<{ status: number; body: unknown }> {
  try {
    const event = parseWith(SesEventSchema, body);
    await sendMessage('mail-events', messages.sesEvent(event));
    return { status: 202, body: { queued: true, event_id: event.id } };
  } catch (e) {
    if (e instanceof AppError) return { status: e.statusCode, body: errorEnvelope(e) };
    throw e;
  }
}
