import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './public-api.js';

/** The typed client of the public API, generated from the published document (openapi-typescript + openapi-fetch). */
export type PublicApiClient = Client<paths>;

/**
 * `origin` is the service host (`http://localhost:3000`); the document's paths carry `/api/public/v1/`. An empty
 * key sends no `x-api-key` header at all, as a caller without a key would.
 */
export function publicApiClient(origin: string, apiKey: string, fetchImpl?: typeof fetch): PublicApiClient {
  return createClient<paths>({ baseUrl: origin.replace(/\/+$/, ''), headers: apiKey ? { 'x-api-key': apiKey } : {}, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
}
