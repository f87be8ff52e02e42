/**
 * The API-key authorizer, read by the CDK stack (a REQUEST Lambda authorizer on every `api_key` route of
 * the route table, API key source AUTHORIZER) and by the local gateway (the same module run before the
 * handler, its answers cached the same way).
 *
 * Result TTL 300 s (API Gateway's default): the authorizer is then invoked at most 12 times an hour per
 * active key instead of on every request. The cache never decides a revocation: the handler confirms the
 * key in the strongly consistent read it makes anyway, so a revoked key is refused at the next request
 * (at the price of that request reaching the handler while an Allow is cached), and revoking also deletes
 * the key's API Gateway usage identifier, which makes the edge refuse it too once that propagates.
 */
export const API_KEY_AUTHORIZER = {
  module: 'functions/authorizer/api-key.ts',
  /** Header the key arrives in; API Gateway caches the authorizer's answer per value of it. */
  identityHeader: 'x-api-key',
  resultTtlSeconds: 300,
} as const;
