/**
 * What a failed webhook attempt records in the delivery log: a class, never the
 * socket's message. Node's messages name the address and port tried (`connect ECONNREFUSED
 * 10.0.0.1:8080`); stored and served back, they would let anyone with a webhook_url probe which ports
 * answer behind it. The class says what the customer needs to fix; the HTTP status stays in `status`.
 */
export const DELIVERY_ERROR_CLASSES = [
  'timeout',
  'refused',
  'dns',
  'tls',
  'reset',
  'http_3xx',
  'http_4xx',
  'http_5xx',
  'blocked_address',
  'no_signing_secret',
  'other',
] as const;

export type DeliveryErrorClass = (typeof DELIVERY_ERROR_CLASSES)[number];

const KNOWN = new Set<string>(DELIVERY_ERROR_CLASSES);

export function isDeliveryErrorClass(value: unknown): value is DeliveryErrorClass {
  return typeof value === 'string' && KNOWN.has(value);
}

/** Our own marker for "no status line within the attempt's time limit". */
export class DeliveryTimeoutError extends Error {
  readonly code = 'WEBHOOK_TIMEOUT';
  constructor() {
    super('no response within the delivery time limit');
    this.name = 'DeliveryTimeoutError';
  }
}

const TIMEOUT_CODES = new Set(['WEBHOOK_TIMEOUT', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT']);
const REFUSED_CODES = new Set(['ECONNREFUSED']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA', 'ENODATA', 'ESERVFAIL', 'ENOTIMP', 'EREFUSED']);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET']);
const TLS_CODES = new Set([
  'EPROTO',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'HOSTNAME_MISMATCH',
]);

/** The class of an HTTP status that is not a success, or null for 2xx. */
export function classifyStatus(status: number): DeliveryErrorClass | null {
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) return 'http_3xx';
  if (status >= 400 && status < 500) return 'http_4xx';
  if (status >= 500 && status < 600) return 'http_5xx';
  return 'other';
}

/**
 * The class of a failed attempt: from the response status when there was one, else from the error's
 * `code` (Node's errno / TLS codes). Only codes are looked at, never the message, so nothing of the
 * address or port can pass through. Unknown errors are `other`.
 */
export function classifyDeliveryError(input: { status?: number | null; error?: unknown }): DeliveryErrorClass | null {
  if (typeof input.status === 'number') return classifyStatus(input.status);
  const err = input.error;
  if (err === undefined || err === null) return null;
  const code = typeof err === 'object' && typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : '';
  if (TIMEOUT_CODES.has(code)) return 'timeout';
  if (REFUSED_CODES.has(code)) return 'refused';
  if (DNS_CODES.has(code)) return 'dns';
  if (RESET_CODES.has(code)) return 'reset';
  if (TLS_CODES.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || code.startsWith('ERR_OSSL_')) return 'tls';
  return 'other';
}
