/**
 * Every key of the accounts table, and nothing else builds one. Only repositories import this.
 *   ACCOUNT#<id> / META             the account and its balance
 *   ACCOUNT#<id> / KEY#<key_id>     an API key's metadata (hash only)
 *   APIKEY#<sha256> / APIKEY        lookup from a presented key to its account, with the account's public_api
 *   RATE#<sha256> / <route>         a key's token bucket on a route the gateway cannot throttle per key
 *   ACCOUNT#<id> / WHSEC#<id>       a webhook signing secret, sealed by the secret box
 *   ACCOUNT#<id> / CHARGE#<id>      charge audit records
 *   ACCOUNT#<id> / LEDGER#<id>      top-ups and auto-recharge purchases
 *   ACCOUNT#<id> / EA#<ea_id>       a sending account;  EA#<ea_id> / EA  its owner, by id alone
 *   PILOTS / COUNTER                how many accounts hold the pilot flag
 *   MAILBOXES / EA#<ea_id>          a Google or Microsoft mailbox connected through OAuth (tokens, cursor)
 *   OAUTHSTATE#<state> / STATE      a mailbox connection being started (PKCE verifier; TTL)
 */
export interface Key {
  pk: string;
  sk: string;
}

/** The partition-key prefix of per-key token buckets; the IAM grant of the functions that keep them names it. */
export const KEY_THROTTLE_PREFIX = 'RATE#';

/**
 * A key's hourly "last used" time, on its lookup item (`APIKEY#…`) and its metadata item (`ACCOUNT#…`): the one
 * attribute, and the partitions, the IAM grant of routes that only read this table lets them update.
 */
export const KEY_USE_ATTRIBUTE = 'last_used_at';
export const KEY_USE_PARTITIONS = ['APIKEY#*', 'ACCOUNT#*'];

const accountPk = (accountId: string) => `ACCOUNT#${accountId}`;

export const accountsKeys = {
  accountPk,
  account: (accountId: string): Key => ({ pk: accountPk(accountId), sk: 'META' }),
  apiKeyMeta: (accountId: string, keyId: string): Key => ({ pk: accountPk(accountId), sk: `KEY#${keyId}` }),
  apiKeyMetaPrefix: 'KEY#',
  /** The account and key id of an API key's metadata key, or null for any other item. */
  apiKeyMetaOf: (key: Key) => (key.pk.startsWith('ACCOUNT#') && key.sk.startsWith('KEY#') ? { accountId: key.pk.slice('ACCOUNT#'.length), keyId: key.sk.slice('KEY#'.length) } : null),
  apiKeyLookup: (hash: string): Key => ({ pk: `APIKEY#${hash}`, sk: 'APIKEY' }),
  apiKeyThrottle: (hash: string, route: string): Key => ({ pk: `${KEY_THROTTLE_PREFIX}${hash}`, sk: route }),
  webhookSecret: (accountId: string, secretId: string): Key => ({ pk: accountPk(accountId), sk: `WHSEC#${secretId}` }),
  webhookSecretPrefix: 'WHSEC#',
  charge: (accountId: string, chargeId: string): Key => ({ pk: accountPk(accountId), sk: `CHARGE#${chargeId}` }),
  chargePrefix: 'CHARGE#',
  /** The account and charge id of a charge record's key, or null for any other item. */
  chargeOf: (key: Key) => (key.pk.startsWith('ACCOUNT#') && key.sk.startsWith('CHARGE#') ? { accountId: key.pk.slice('ACCOUNT#'.length), chargeId: key.sk.slice('CHARGE#'.length) } : null),
  ledgerEntry: (accountId: string, entryId: string): Key => ({ pk: accountPk(accountId), sk: `LEDGER#${entryId}` }),
  sendingAccount: (accountId: string, eaId: string): Key => ({ pk: accountPk(accountId), sk: `EA#${eaId}` }),
  sendingAccountPrefix: 'EA#',
  sendingAccountOwner: (eaId: string): Key => ({ pk: `EA#${eaId}`, sk: 'EA' }),
  pilots: (): Key => ({ pk: 'PILOTS', sk: 'COUNTER' }),
  mailboxesPk: 'MAILBOXES',
  mailboxConnection: (eaId: string): Key => ({ pk: 'MAILBOXES', sk: `EA#${eaId}` }),
  oauthFlow: (state: string): Key => ({ pk: `OAUTHSTATE#${state}`, sk: 'STATE' }),
};
