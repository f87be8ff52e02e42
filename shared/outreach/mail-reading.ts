/**
 * Reading inbound mail the way a dedicated bounce parser (sisimai) would: is it a person's reply, a
 * bounce (and who failed, why, hard or soft), an auto-reply (out of office, delay-only DSN) or a
 * complaint (ARF feedback report)? Pure: no AWS SDK, no storage. See docs/mail-recognition.md.
 *
 * Every scan is bounded (at most ~200 KB of each text part, a bounded MIME walk over at most 10 MB) and
 * no pattern has nested quantifiers over unbounded input, so hostile input reads in linear time.
 */
import { simpleParser, type ParsedMail } from 'mailparser';
import { recognise } from './mail-reading/recognise.js';
import { viewOfParsed, viewOfRaw } from './mail-reading/view.js';

export type { MailKind, FailedRecipient, MailReading } from './mail-reading/recognise.js';
export type { FailureReason } from './mail-reading/status.js';
import type { MailReading } from './mail-reading/recognise.js';

/** Parses a raw message with mailparser and reads it (from the raw MIME, which keeps every part). */
export async function readRawMail(raw: Buffer | string): Promise<{ parsed: ParsedMail; reading: MailReading }> {
  const parsed = await simpleParser(raw);
  return { parsed, reading: readParsedMail(parsed, raw) };
}

/**
 * Reads a message already parsed by mailparser. With `raw`, the MIME structure is walked from the raw
 * bytes (delivery-status and returned-message parts as sent); without it, from mailparser's text and
 * attachments.
 */
export function readParsedMail(parsed: ParsedMail, raw?: Buffer | string): MailReading {
  return recognise(raw !== undefined ? viewOfRaw(raw) : viewOfParsed(parsed));
}
