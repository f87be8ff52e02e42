/**
 * A mailer's `send` throws this when the provider answered with a refusal, so nothing was accepted and nothing
 * can reach a recipient. Any other error from `send` (a timeout, a reset connection, a server fault) leaves open
 * whether the message went out, and a caller must not treat it as "not sent".
 */
export class MailRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MailRefusedError';
  }
}
