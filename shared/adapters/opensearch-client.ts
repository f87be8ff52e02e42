import { Client } from '@opensearch-project/opensearch';
import { AwsSigv4Signer } from '@opensearch-project/opensearch/aws-v3';
import { optionalEnv, requireEnv } from '../core/env.js';

/**
 * The OpenSearch client (`OPENSEARCH_URL`), created on first use. With `OPENSEARCH_SIGV4_SERVICE` (`aoss` for
 * OpenSearch Serverless, `es` for a managed domain) every request is signed with the function's role
 * (SigV4, the client's own signer); without it, as against a local engine, requests go unsigned.
 */
export function createOpenSearchClient(node: string, sigv4Service?: 'aoss' | 'es'): Client {
  if (!sigv4Service) return new Client({ node });
  return new Client({ node, ...AwsSigv4Signer({ region: requireEnv('AWS_REGION'), service: sigv4Service }) });
}

let client: Client | undefined;

export function openSearchClient(): Client {
  const service = optionalEnv('OPENSEARCH_SIGV4_SERVICE');
  if (service !== undefined && service !== 'aoss' && service !== 'es') throw new Error(`OPENSEARCH_SIGV4_SERVICE ${service} is neither aoss nor es`);
  client ??= createOpenSearchClient(requireEnv('OPENSEARCH_URL'), service);
  return client;
}
