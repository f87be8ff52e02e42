/** The host name rule and TLS modes of SMTP settings: a leaf both the settings and their request schemas import. */
/**
 * `tls`: `starttls` (submission, usually 587: the connection must upgrade, a server that does not offer
 * STARTTLS is refused) or `implicit` (SMTPS, usually 465: TLS from the first byte). There is no clear-text
 * mode: a password is never sent unencrypted outside the local twin.
 */
export const SMTP_TLS_MODES = ['starttls', 'implicit'] as const;
export type SmtpTlsMode = (typeof SMTP_TLS_MODES)[number];

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A DNS host name (RFC 1123 labels, a dot-separated name with an alphabetic top-level label), or `localhost`.
 * IP literals are refused: a certificate is issued to a name, so TLS could not verify a literal anyway, and
 * it closes the shortest way to point the sender at an internal address.
 */
export function isSmtpHostName(value: string): boolean {
  const host = value.toLowerCase();
  if (host === 'localhost') return true;
  if (host.length > 253) return false;
  const labels = host.split('.');
  if (labels.length < 2) return false;
  if (!labels.every((l) => LABEL.test(l))) return false;
  return /^[a-z]{2,63}$/.test(labels[labels.length - 1]!);
}
