import { createHash } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';

/**
 * How a log line names an email address: the first 12 hex characters of the SHA-256 of the lower-cased
 * address. The same address always gives the same reference, so lines about one contact can still be
 * found together, and a reader of the logs learns no address.
 */
export function addressRef(address: string): string {
  return createHash('sha256').update(address.trim().toLowerCase()).digest('hex').slice(0, 12);
}

/** Anything shaped like an email address (a key such as `ENROLL#<address>#…`, an error message, a DynamoDB item). */
const ADDRESS = /[A-Za-z0-9.!#$%&'*+=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+/g;

/** `text` with every email address in it replaced by `<address:` + its addressRef + `>`. */
export function redactAddresses(text: string): string {
  return text.includes('@') ? text.replace(ADDRESS, (a) => `<address:${addressRef(a)}>`) : text;
}

/**
 * One structured logger per process. Secrets are never passed to it: keys and secrets are hashed or sealed
 * first. No email address reaches the logs: call sites log ids (or `addressRef`), and as a backstop every
 * string of every line (messages, attributes, keys, errors with their messages, stacks, causes and the
 * attributes SDK errors carry) goes through `redactAddresses` as the line is serialised.
 */
export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'people-outreach',
  jsonReplacerFn: (_key: string, value: unknown) => (typeof value === 'string' ? redactAddresses(value) : value),
});
