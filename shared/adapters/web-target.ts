/**
 * Webhook target validation (docs/decisions.md#webhook-targets, docs/decisions.md#webhooks-to-loopback).
 *
 * A `webhook_url` is accepted only when it is `https` and every address its host resolves to is
 * public. The first checked address is returned so the delivery connects to exactly that address and
 * never asks DNS again: a second lookup could answer differently (DNS rebinding) and reach an internal
 * service. Resolution is a port (`Resolver`) so tests hand in a fake and never touch real DNS.
 *
 * The URL's port must be 443 or 8443 (`WEBHOOK_PORTS`); only a loopback target in local mode
 * (`allowLoopback`) may name any port. Together with the delivery log recording error classes rather
 * than socket messages (delivery-errors.ts), webhooks cannot be used to scan ports.
 */
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { ValidationError } from '../core/errors.js';

/** Every A and AAAA address of a host name. */
export type Resolver = (hostname: string) => Promise<string[]>;

/** Production resolver (the OS resolver, as a connection would use). Tests never call it. */
export const systemResolver: Resolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => a.address);
};

export interface ValidatedTarget {
  /** The normalized URL. */
  url: string;
  /** Host name as written in the URL (IPv6 literals without brackets); used for Host and TLS SNI. */
  hostname: string;
  port: number;
  protocol: 'https:' | 'http:';
  /** The checked address the connection must go to. */
  address: string;
  family: 4 | 6;
}

export interface ValidateWebhookUrlOptions {
  resolver: Resolver;
  /** Local mode only (`WEBHOOK_ALLOW_LOOPBACK=1`): accept loopback targets, over plain HTTP too. */
  allowLoopback?: boolean;
  maxLength?: number;
  /**
   * Skip the webhook port rule (any port 1–65535). Only for callers that borrow these address rules for
   * something other than a webhook (the page reader); never for a `webhook_url`.
   */
  anyPort?: boolean;
}

const DEFAULT_MAX_LENGTH = 2048;

/** The only ports a webhook target may name (https); loopback targets in local mode may name any. */
export const WEBHOOK_PORTS: readonly number[] = Object.freeze([443, 8443]);

export const WEBHOOK_PORT_MESSAGE = `webhook_url port must be ${WEBHOOK_PORTS.join(' or ')}`;
export const WEBHOOK_HOST_DOES_NOT_RESOLVE = 'webhook_url host does not resolve';

type Parsed = ipaddr.IPv4 | ipaddr.IPv6;

// 2000::/3 is the only IPv6 block allocated for global unicast; anything else ipaddr.js calls
// 'unicast' (e.g. 4000::/3, IPv4-compatible ::a.b.c.d) is unallocated or deprecated.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
// The well-known NAT64 prefix embeds the IPv4 address in the last 32 bits. The local-use prefix
// 64:ff9b:1::/48 (RFC 8215) is operator-defined, so it is refused outright.
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

function parseAddress(ip: string): Parsed | null {
  if (typeof ip !== 'string' || ip.length === 0) return null;
  // Only the standard textual forms: dotted-quad IPv4 or IPv6. Odd IPv4 spellings (octal, hex,
  // fewer parts) are refused rather than interpreted, so nothing here depends on who parses them.
  if (ipaddr.IPv4.isValidFourPartDecimal(ip)) return ipaddr.IPv4.parse(ip);
  if (ipaddr.IPv6.isValid(ip)) {
    const v6 = ipaddr.IPv6.parse(ip);
    // A zone id only makes sense for link-local scopes, which are never public.
    if (v6.zoneId) return null;
    return v6;
  }
  return null;
}

function v4FromParts(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

function isPublicV4(v4: ipaddr.IPv4): boolean {
  return v4.range() === 'unicast';
}

function isPublicV6(v6: ipaddr.IPv6): boolean {
  const p = v6.parts;
  switch (v6.range()) {
    case 'unicast':
      return v6.match(GLOBAL_UNICAST_V6);
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return isPublicV4(v4FromParts(p[6]!, p[7]!));
    case 'rfc6052':
      return v6.match(NAT64_WELL_KNOWN) && isPublicV4(v4FromParts(p[6]!, p[7]!));
    case '6to4': // 2002:AABB:CCDD::/48
      return isPublicV4(v4FromParts(p[1]!, p[2]!));
    case 'teredo': // 2001:0:server(32):flags:port:client(32, bits inverted)
      return isPublicV4(v4FromParts(p[2]!, p[3]!)) && isPublicV4(v4FromParts(p[6]! ^ 0xffff, p[7]! ^ 0xffff));
    default:
      return false;
  }
}

/**
 * True only for a globally routable unicast address. Refuses loopback, private, link-local (incl.
 * the 169.254.169.254 metadata endpoint), CGNAT, multicast, broadcast, reserved, documentation,
 * benchmarking, unspecified, ULA, and IPv6 forms embedding a non-public IPv4 address (IPv4-mapped,
 * NAT64, 6to4, Teredo). Anything that is not a plain IP address is not public.
 */
export function isPublicAddress(ip: string): boolean {
  const addr = parseAddress(ip);
  if (!addr) return false;
  return addr.kind() === 'ipv4' ? isPublicV4(addr as ipaddr.IPv4) : isPublicV6(addr as ipaddr.IPv6);
}

/** 127.0.0.0/8 or ::1. */
export function isLoopbackAddress(ip: string): boolean {
  const addr = parseAddress(ip);
  return addr !== null && addr.range() === 'loopback';
}

function isLocalhostName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return h === 'localhost';
}

function refuse(message: string): never {
  throw new ValidationError(message, [{ path: 'webhook_url', message }]);
}

/**
 * The address to connect to, in the form the socket layer expects. An IPv4-mapped IPv6 address is
 * reduced to its IPv4 address: that is what was judged and what the packet reaches.
 */
function pinned(addr: Parsed): { address: string; family: 4 | 6 } {
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return { address: v6.toIPv4Address().toString(), family: 4 };
    return { address: v6.toString(), family: 6 };
  }
  return { address: addr.toString(), family: 4 };
}

/**
 * Validates a `webhook_url` and resolves its host once.
 *
 * 1. A string of at most `maxLength` characters that parses as an absolute URL.
 * 2. `https:`; `http:` only with `allowLoopback` and a loopback host (127.0.0.0/8, ::1, localhost).
 * 3. No user name or password.
 * 4. An IP literal is judged as is; a name goes through `resolver` and must yield an address.
 * 5. Every address must be public (with `allowLoopback`, loopback too; over `http:` loopback only).
 * 6. The port is 443 or 8443, unless `allowLoopback` and every address is loopback (then any port).
 *    Without `allowLoopback` another port is refused before the host is resolved.
 *
 * Output: the target pinned to the first checked address. Throws `ValidationError` otherwise.
 */
export async function validateWebhookUrl(raw: unknown, opts: ValidateWebhookUrlOptions): Promise<ValidatedTarget> {
  const maxLength = opts.maxLength ?? DEFAULT_MAX_LENGTH;
  const allowLoopback = opts.allowLoopback === true;

  if (typeof raw !== 'string') refuse('webhook_url must be a string');
  if (raw.length === 0) refuse('webhook_url must not be empty');
  if (raw.length > maxLength) refuse(`webhook_url must be at most ${maxLength} characters`);

  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    refuse('webhook_url is not a valid URL');
  }

  if (url.protocol !== 'https:' && url.protocol !== 'http:') refuse('webhook_url must use https');
  if (url.username !== '' || url.password !== '') refuse('webhook_url must not contain a user name or password');

  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (hostname === '') refuse('webhook_url has no host');
  const literal = parseAddress(hostname);
  if (url.hostname.startsWith('[') && !literal) refuse('webhook_url has an invalid IPv6 host');

  const loopbackHost = literal ? literal.range() === 'loopback' : isLocalhostName(hostname);
  let protocol: 'https:' | 'http:';
  if (url.protocol === 'https:') {
    protocol = 'https:';
  } else if (url.protocol === 'http:' && allowLoopback && loopbackHost) {
    protocol = 'http:';
  } else {
    refuse('webhook_url must use https');
  }

  const port = url.port === '' ? (protocol === 'https:' ? 443 : 80) : Number(url.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) refuse('webhook_url has an invalid port');
  const webhookPort = opts.anyPort === true || WEBHOOK_PORTS.includes(port);
  if (!webhookPort && !allowLoopback) refuse(WEBHOOK_PORT_MESSAGE);

  let candidates: string[];
  if (literal) {
    candidates = [hostname];
  } else {
    try {
      candidates = await opts.resolver(hostname);
    } catch {
      refuse(WEBHOOK_HOST_DOES_NOT_RESOLVE);
    }
    if (!Array.isArray(candidates) || candidates.length === 0) refuse(WEBHOOK_HOST_DOES_NOT_RESOLVE);
  }

  const checked: Parsed[] = [];
  for (const candidate of candidates) {
    const addr = parseAddress(candidate);
    const loopback = addr !== null && addr.range() === 'loopback';
    const acceptable =
      addr !== null &&
      (protocol === 'http:' ? loopback : isPublicAddress(candidate) || (allowLoopback && loopback));
    if (!acceptable) refuse('webhook_url must resolve only to public addresses');
    checked.push(addr);
  }
  if (!webhookPort && !checked.every((a) => a.range() === 'loopback')) refuse(WEBHOOK_PORT_MESSAGE);

  const first = pinned(checked[0]!);
  return { url: url.href, hostname, port, protocol, address: first.address, family: first.family };
}
