/**
 * The web app's user pool, as the stack builds it (lib/stateful-stack.ts) and the local stack creates it in
 * cognito-local (shared/local/cognito-local.ts): one custom attribute naming the user's account, and the
 * password policy the console route checks before it asks Cognito.
 */
export const USER_POOL = {
  /** The custom attribute; in tokens and attribute lists it is `custom:account_id`. */
  accountAttribute: 'account_id',
  accountClaim: 'custom:account_id',
  password: { minLength: 12, lowercase: true, uppercase: true, digits: true, symbols: true },
} as const;
