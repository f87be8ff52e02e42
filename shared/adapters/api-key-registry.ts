import { APIGatewayClient, CreateApiKeyCommand, CreateUsagePlanKeyCommand, DeleteApiKeyCommand, GetUsagePlansCommand } from '@aws-sdk/client-api-gateway';
import { isLocalMode, requireEnv } from '../core/env.js';
import { lazyClient } from './aws-client.js';

/**
 * API Gateway only throttles and admits keys it knows, so a key created in the console is also registered
 * with the usage plan. Our own table keeps only the hash and stays the source of truth for revocation (the
 * handler re-checks every request, so revocation is immediate even while API Gateway's cache catches up).
 * Locally the gateway reads the accounts table directly and this is a no-op.
 */
export interface ApiKeyRegistry {
  register(keyId: string, rawKey: string): Promise<string | null>;
  unregister(gatewayKeyId: string | null): Promise<void>;
}

const noop: ApiKeyRegistry = { register: async () => null, unregister: async () => undefined };

const client = lazyClient(() => new APIGatewayClient({}));
let usagePlanId: Promise<string> | undefined;

const apiGateway: ApiKeyRegistry = {
  async register(keyId, rawKey) {
    usagePlanId ??= (async () => {
      const name = requireEnv('USAGE_PLAN_NAME');
      const out = await client().send(new GetUsagePlansCommand({ limit: 500 }));
      const plan = out.items?.find((p) => p.name === name);
      if (!plan?.id) throw new Error(`usage plan ${name} not found`);
      return plan.id;
    })();
    const key = await client().send(new CreateApiKeyCommand({ name: keyId, value: rawKey, enabled: true }));
    await client().send(new CreateUsagePlanKeyCommand({ usagePlanId: await usagePlanId, keyId: key.id, keyType: 'API_KEY' }));
    return key.id ?? null;
  },
  async unregister(gatewayKeyId) {
    if (!gatewayKeyId) return;
    await client().send(new DeleteApiKeyCommand({ apiKey: gatewayKeyId }));
  },
};

export function apiKeyRegistry(): ApiKeyRegistry {
  return isLocalMode() ? noop : apiGateway;
}
