import { NotFoundError } from '../core/errors.js';
import { unsubscribe } from './tracking.js';

/** Follow a one-click unsubscribe link: the recipient joins the sender's suppression list; an unknown token is a 404. */
export async function followUnsubscribeLink(token: string): Promise<void> {
  if (!(await unsubscribe(token))) throw new NotFoundError('Unknown unsubscribe link.');
}
