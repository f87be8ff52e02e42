import { NotFoundError } from '../core/errors.js';
import { findByTrackToken } from './emails.repository.js';
import { unsubscribe } from './tracking.js';

/**
 * The unsubscribe link (docs/decisions.md#decisions-the-contract-leaves-open): a GET only shows a confirmation page, because link scanners and
 * mail-security gateways fetch links without a person clicking; the page's button, and an RFC 8058
 * one-click POST from the mail client, suppress the address at once. An unknown token is a 404 either way.
 */
export async function confirmUnsubscribeLink(token: string): Promise<void> {
  if (!(await findByTrackToken(token))) throw new NotFoundError('Unknown unsubscribe link.');
}

export async function followUnsubscribeLink(token: string): Promise<void> {
  if (!(await unsubscribe(token))) throw new NotFoundError('Unknown unsubscribe link.');
}
