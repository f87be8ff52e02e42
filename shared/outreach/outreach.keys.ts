/**
 * Every key of the outreach table, and nothing else builds one. Only repositories import this.
 *   ACCOUNT#<id> / EMAIL#<em_id>       an outreach email
 *   ACCOUNT#<id> / LEAD#<email>        a lead of the workspace
 *   ACCOUNT#<id> / SUPPRESS#<email>    the workspace's suppression list
 *   ACCOUNT#<id> / REPLY#<ulid>        a received reply, bounce or auto-reply
 *   ACCOUNT#<id> / SEQ#<sq_id>         a sequence
 *   ACCOUNT#<id> / ENROLL#<email>#<sq_id>  a contact's enrollment in a sequence (by contact first, so every
 *                                      enrollment of one address is one query: already_in_automation)
 *   ACCOUNT#<id> / AUTOMATION#<nn>     enrollment locks: one attribute per address in a running enrollment,
 *                                      holding its sequence id (64 buckets by address hash)
 *   TRACK#<token> / PTR                tracking token → email (open pixel, unsubscribe)
 *   MSGID#<message-id> / PTR           Message-ID → email (reply matching)
 *   MAILEVENT#<event-id> / PTR         an SES bounce or complaint event already applied
 *   SENTTO#<mailbox>#<recipient> / PTR the latest email a mailbox sent to a recipient (bounce matching when
 *                                      a report carries no Message-ID of ours)
 *   INBOUNDISSUE#<YYYY-MM-DD> / <received_at>#<key>  an inbound message that could not be handled, or was
 *                                      handled after repairs (operators' list, console)
 *   INBOUNDTRY#<key> / PTR             failed attempts at one inbound message (after 3 it is unprocessable)
 *   LISTCURSOR / KEY                   the HMAC key of list cursors (next_cursor), one for the service
 *   SLOTS#<ea_id> / <YYYY-MM-DD>       send slots booked on a sending account's local day
 *   DELIV#<ea_id> / <YYYY-MM-DD>       a sending account's deliverability counters of one UTC day
 *   DELIVEVT#<em_id> / <counter>       an email's event already counted there (each counts once per email)
 *   ACCOUNT#<id> / TEST#<uuid>         a pilot test email (apart from outreach history)
 *   ACCOUNT#<id> / TESTKEY#<key>       a test email's Idempotency-Key (account-wide)
 *   ACCOUNT#<id> / TESTPART#<uuid>#<i>#<n>  chunk n of attachment i of a test email (bytes)
 *   ACCOUNT#<id> / TESTQUOTA#<w>#<n>   quota slot n of the rolling window w (hour, day) for test emails
 *   ACCOUNT#<id> / LOOKUPS#<YYYY-MM-DD>  the account's DNS lookups of one UTC day (contact checks, sequence
 *                                      eligibility); built in email-status/lookup-budget.repository.ts, a room below
 * List index (catalog/tables.ts LIST_INDEX), on the email or sequence item itself:
 *   EMAILS#<id> / <created_at>#<em_id>  an API-created email (GET /emails/)
 *   SEQS#<id> / <created_at>#<sq_id>    a sequence (GET /sequences/)
 * Await index (catalog/tables.ts outreach `await`), on the email item while it waits for sending capacity:
 *   AWAIT#<id>#<ea_id> / <created_at>#<em_id>  a queued email whose sending account had no daily limit
 */
const accountPk = (accountId: string) => `ACCOUNT#${accountId}`;
const POINTER = 'PTR';

export const outreachKeys = {
  accountPk,
  email: (accountId: string, emailId: string) => ({ pk: accountPk(accountId), sk: `EMAIL#${emailId}` }),
  emailPrefix: 'EMAIL#',
  /** The account and email id of an email item's key, or null for any other item. */
  emailOf: (key: { pk: string; sk: string }) =>
    key.pk.startsWith('ACCOUNT#') && key.sk.startsWith('EMAIL#') ? { accountId: key.pk.slice('ACCOUNT#'.length), emailId: key.sk.slice('EMAIL#'.length) } : null,
  lead: (accountId: string, email: string) => ({ pk: accountPk(accountId), sk: `LEAD#${email.toLowerCase()}` }),
  suppression: (accountId: string, email: string) => ({ pk: accountPk(accountId), sk: `SUPPRESS#${email.toLowerCase()}` }),
  reply: (accountId: string, replyId: string) => ({ pk: accountPk(accountId), sk: `REPLY#${replyId}` }),
  replyPrefix: 'REPLY#',
  sequence: (accountId: string, sequenceId: string) => ({ pk: accountPk(accountId), sk: `SEQ#${sequenceId}` }),
  sequencePrefix: 'SEQ#',
  /** The account and sequence id of a sequence item's key, or null for any other item. */
  sequenceOf: (key: { pk: string; sk: string }) =>
    key.pk.startsWith('ACCOUNT#') && key.sk.startsWith('SEQ#') ? { accountId: key.pk.slice('ACCOUNT#'.length), sequenceId: key.sk.slice('SEQ#'.length) } : null,
  enrollment: (accountId: string, email: string, sequenceId: string) => ({ pk: accountPk(accountId), sk: `ENROLL#${email.toLowerCase()}#${sequenceId}` }),
  enrollmentsOfPrefix: (email: string) => `ENROLL#${email.toLowerCase()}#`,
  listCursorKey: { pk: 'LISTCURSOR', sk: 'KEY' },
  automationLocks: (accountId: string, bucket: number) => ({ pk: accountPk(accountId), sk: `AUTOMATION#${String(bucket).padStart(2, '0')}` }),
  /** The list-index attributes of an API-created email, and of a sequence. */
  emailListEntry: (accountId: string, createdAt: string, emailId: string) => ({ list_pk: `EMAILS#${accountId}`, list_sk: `${createdAt}#${emailId}` }),
  emailListPk: (accountId: string) => `EMAILS#${accountId}`,
  sequenceListEntry: (accountId: string, createdAt: string, sequenceId: string) => ({ list_pk: `SEQS#${accountId}`, list_sk: `${createdAt}#${sequenceId}` }),
  sequenceListPk: (accountId: string) => `SEQS#${accountId}`,
  /** The await-index attributes of an email waiting for capacity on sending account `eaId`, and their partition. */
  awaitEntry: (accountId: string, eaId: string, createdAt: string, emailId: string) => ({ await_pk: `AWAIT#${accountId}#${eaId}`, await_sk: `${createdAt}#${emailId}` }),
  awaitPk: (accountId: string, eaId: string) => `AWAIT#${accountId}#${eaId}`,
  /** The id a list key ends with. */
  idOfListSk: (listSk: string) => listSk.slice(listSk.lastIndexOf('#') + 1),
  trackPointer: (token: string) => ({ pk: `TRACK#${token}`, sk: POINTER }),
  messageIdPointer: (messageId: string) => ({ pk: `MSGID#${messageId.toLowerCase()}`, sk: POINTER }),
  mailEvent: (eventId: string) => ({ pk: `MAILEVENT#${eventId}`, sk: POINTER }),
  sentTo: (mailbox: string, recipient: string) => ({ pk: `SENTTO#${mailbox.toLowerCase()}#${recipient.toLowerCase()}`, sk: POINTER }),
  inboundIssuePk: (day: string) => `INBOUNDISSUE#${day}`,
  inboundIssue: (receivedAt: string, key: string) => ({ pk: `INBOUNDISSUE#${receivedAt.slice(0, 10)}`, sk: `${receivedAt}#${key}` }),
  inboundAttempts: (key: string) => ({ pk: `INBOUNDTRY#${key}`, sk: POINTER }),
  slotsPk: (eaId: string) => `SLOTS#${eaId}`,
  slots: (eaId: string, day: string) => ({ pk: `SLOTS#${eaId}`, sk: day }),
  deliverabilityPk: (eaId: string) => `DELIV#${eaId}`,
  deliverability: (eaId: string, day: string) => ({ pk: `DELIV#${eaId}`, sk: day }),
  deliverabilityEvent: (emailId: string, counter: string) => ({ pk: `DELIVEVT#${emailId}`, sk: counter }),
  testEmail: (accountId: string, id: string) => ({ pk: accountPk(accountId), sk: `TEST#${id}` }),
  /** The account and id of a test email item's key, or null for any other item. */
  testEmailOf: (key: { pk: string; sk: string }) =>
    key.pk.startsWith('ACCOUNT#') && key.sk.startsWith('TEST#') ? { accountId: key.pk.slice('ACCOUNT#'.length), testEmailId: key.sk.slice('TEST#'.length) } : null,
  testEmailKey: (accountId: string, idempotencyKey: string) => ({ pk: accountPk(accountId), sk: `TESTKEY#${idempotencyKey}` }),
  testEmailPart: (accountId: string, id: string, attachment: number, chunk: number) => ({ pk: accountPk(accountId), sk: `TESTPART#${id}#${attachment}#${chunk}` }),
  testEmailPartsPrefix: (id: string) => `TESTPART#${id}#`,
  testQuotaSlot: (accountId: string, window: string, n: number) => ({ pk: accountPk(accountId), sk: `TESTQUOTA#${window}#${n}` }),
  testQuotaPrefix: 'TESTQUOTA#',
};
