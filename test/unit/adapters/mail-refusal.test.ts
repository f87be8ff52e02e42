import { InternalServiceErrorException, MessageRejected, TooManyRequestsException } from '@aws-sdk/client-sesv2';
import { MailRefusedError } from '../../../shared/adapters/mail-refused.js';
import { sesRefusal, smtpRefusal } from '../../../shared/adapters/mailer.js';

/**
 * Which send errors say "nothing was accepted" (a test email may then be `failed`) and which leave it open
 * (`unknown`): the errors are built as nodemailer and the SES client build them.
 */
const smtpError = (code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(code), { code, ...extra });

test('an SMTP reply of 4xx or 5xx, a refused connection or a failed DNS lookup is a refusal', () => {
  for (const e of [
    smtpError('EMESSAGE', { responseCode: 554, command: 'DATA' }),
    smtpError('EENVELOPE', { responseCode: 550, command: 'RCPT TO' }),
    smtpError('EAUTH', { responseCode: 535, command: 'AUTH PLAIN' }),
    smtpError('ECONNECTION', { responseCode: 421, command: 'CONN' }),
    smtpError('ESOCKET', { originalCode: 'ECONNREFUSED', command: 'CONN' }),
    smtpError('EDNS', { command: 'CONN' }),
  ]) {
    expect(smtpRefusal(e)).toBeInstanceOf(MailRefusedError);
  }
});

test('an SMTP reset, timeout or close without a reply is not a refusal', () => {
  for (const e of [
    smtpError('ESOCKET', { originalCode: 'ECONNRESET', command: 'CONN' }),
    smtpError('ETIMEDOUT', { command: 'CONN' }),
    smtpError('ECONNECTION', { command: 'CONN' }),
    new Error('anything else'),
  ]) {
    expect(smtpRefusal(e)).toBeNull();
  }
});

test('an SES client fault is a refusal; a server fault or a network error is not', () => {
  expect(sesRefusal(new MessageRejected({ message: 'Email address is not verified.', $metadata: {} }))).toBeInstanceOf(MailRefusedError);
  expect(sesRefusal(new TooManyRequestsException({ message: 'Rate exceeded', $metadata: {} }))).toBeInstanceOf(MailRefusedError);
  expect(sesRefusal(new InternalServiceErrorException({ message: 'internal', $metadata: {} }))).toBeNull();
  expect(sesRefusal(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBeNull();
  expect(sesRefusal(Object.assign(new Error('timed out'), { name: 'TimeoutError' }))).toBeNull();
});
