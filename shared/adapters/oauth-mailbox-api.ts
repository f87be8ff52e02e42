import type { MailboxApiFactory } from '../ports/mailbox-provider.js';
import { gmailMailbox } from './gmail-mailbox.js';
import { graphMailbox } from './graph-mailbox.js';

/** The MailboxProvider adapter for a connected mailbox's provider. */
export const providerMailboxApi: MailboxApiFactory = (kind, apiBase, accessToken) => (kind === 'google' ? gmailMailbox(apiBase, accessToken) : graphMailbox(apiBase, accessToken));
