import {
  DELIVERY_ERROR_CLASSES,
  DeliveryTimeoutError,
  classifyDeliveryError,
  classifyStatus,
  isDeliveryErrorClass,
} from '../../../shared/webhooks/delivery-errors.js';

/** An error as Node's socket layer makes it: the message names the address and port, the code does not. */
const sysError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('classifyDeliveryError', () => {
  it.each([
    [sysError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:8080'), 'refused'],
    [sysError('ECONNREFUSED', 'connect ECONNREFUSED ::1:22'), 'refused'],
    [new DeliveryTimeoutError(), 'timeout'],
    [sysError('ETIMEDOUT', 'connect ETIMEDOUT 93.184.216.34:443'), 'timeout'],
    [sysError('ENOTFOUND', 'getaddrinfo ENOTFOUND hooks.example.com'), 'dns'],
    [sysError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN hooks.example.com'), 'dns'],
    [sysError('ECONNRESET', 'socket hang up'), 'reset'],
    [sysError('ECONNRESET', 'read ECONNRESET'), 'reset'],
    [sysError('EPIPE', 'write EPIPE'), 'reset'],
    [sysError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'), 'tls'],
    [sysError('CERT_HAS_EXPIRED', 'certificate has expired'), 'tls'],
    [sysError('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames: IP: 10.0.0.1"), 'tls'],
    [sysError('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate'), 'tls'],
    [sysError('ERR_SSL_WRONG_VERSION_NUMBER', 'wrong version number'), 'tls'],
    [sysError('EPROTO', 'write EPROTO 10.0.0.1:8443'), 'tls'],
    [sysError('EHOSTUNREACH', 'connect EHOSTUNREACH 10.0.0.1:8080'), 'other'],
    [new TypeError('Invalid URL'), 'other'],
    [new Error('connect ECONNREFUSED 10.0.0.1:8080'), 'other'], // no code: the message is never read
    ['a string', 'other'],
  ])('%s → %s', (error, expected) => {
    expect(classifyDeliveryError({ error })).toBe(expected);
  });

  it.each([
    [200, null],
    [204, null],
    [299, null],
    [301, 'http_3xx'],
    [307, 'http_3xx'],
    [400, 'http_4xx'],
    [404, 'http_4xx'],
    [429, 'http_4xx'],
    [500, 'http_5xx'],
    [503, 'http_5xx'],
    [199, 'other'],
    [600, 'other'],
  ])('status %i → %s', (status, expected) => {
    expect(classifyStatus(status)).toBe(expected);
    expect(classifyDeliveryError({ status, error: sysError('ECONNRESET', 'after the status line') })).toBe(expected);
  });

  it('is null when nothing failed', () => {
    expect(classifyDeliveryError({})).toBeNull();
    expect(classifyDeliveryError({ status: null, error: null })).toBeNull();
  });

  it('only ever yields a known class, with no address, port or socket text in it', () => {
    for (const c of DELIVERY_ERROR_CLASSES) {
      expect(isDeliveryErrorClass(c)).toBe(true);
      expect(c).toMatch(/^[a-z_0-9]+$/);
    }
    expect(isDeliveryErrorClass('connect ECONNREFUSED 10.0.0.1:8080')).toBe(false);
    expect(isDeliveryErrorClass(null)).toBe(false);
  });
});
