import { APIGatewayClient, CreateApiKeyCommand, CreateUsagePlanKeyCommand, DeleteApiKeyCommand, GetApiKeysCommand, GetUsagePlansCommand, NotFoundException } from '@aws-sdk/client-api-gateway';
import { isLocalMode, requireEnv } from '../core/env.js';
import type { UsageIdentifier } from '../core/api-key-values.js';
import { lazyClient } from './aws-client.js';

/**
 * API Gateway throttles a key by the usage identifier the authorizer returns for it (API key source
 * AUTHORIZER), so each key created in the console registers its usage identifier — never the customer's
 * secret, which is stored nowhere but as a hash — as an API key of the usage plan. Our table stays the
 * source of truth for revocation (the authorizer and the handler read it). Locally the gateway throttles by
 * the usage identifier itself and this is a no-op.
 */
export interface ApiKeyRegistry {
  /** The API Gateway key id registered for this usage identifier, or null when nothing is registered. */
  register(keyId: string, usageIdentifier: UsageIdentifier): Promise<string | null>;
  unregister(gatewayKeyId: string | null): Promise<void>;
  /**
   * Undo a `register` that may have happened (a create that died before activating its key): delete the API
   * Gateway key `gatewayKeyId`, or, when its id was never recorded, every API Gateway key named `keyId`.
   */
  release(keyId: string, gatewayKeyId: string | null): Promise<void>;
}

const noop: ApiKeyRegistry = { register: async () => null, unregister: async () => undefined, release: async () => undefined };

const client = /* @__PURE__ */ lazyClient(() => new APIGatewayClient({}));

/** The registry of API Gateway itself (exported so tests can point it at a loopback stand-in). */
export function apiGatewayKeyRegistry(): ApiKeyRegistry {
  let usagePlanId: Promise<string> | undefined;
  const findUsagePlan = async () => {
    const name = requireEnv('USAGE_PLAN_NAME');
    const out = await client().send(new GetUsagePlansCommand({ limit: 500 }));
    const plan = out.items?.find((p) => p.name === name);
    if (!plan?.id) throw new Error(`usage plan ${name} not found`);
    return plan.id;
  };
  return {
    async register(keyId, usageIdentifier) {
      // A failed lookup is not remembered: the next key creation asks again. The plan is found before the
      // API key is made, so a failed lookup leaves no API Gateway key behind.
      usagePlanId ??= findUsagePlan().catch((e: unknown) => {
        usagePlanId = undefined;
        throw e;
      });
      const planId = await usagePlanId;
      const key = await client().send(new CreateApiKeyCommand({ name: keyId, value: usageIdentifier, enabled: true }));
      await client().send(new CreateUsagePlanKeyCommand({ usagePlanId: planId, keyId: key.id, keyType: 'API_KEY' }));
      return key.id ?? null;
    },
    async unregister(gatewayKeyId) {
      if (!gatewayKeyId) return;
      await client().send(new DeleteApiKeyCommand({ apiKey: gatewayKeyId }));
    },
    async release(keyId, gatewayKeyId) {
      const ids = gatewayKeyId ? [gatewayKeyId] : ((await client().send(new GetApiKeysCommand({ nameQuery: keyId, limit: 500 }))).items ?? []).filter((k) => k.name === keyId && k.id).map((k) => k.id!);
      for (const id of ids) {
        await client()
          .send(new DeleteApiKeyCommand({ apiKey: id }))
          .catch((e: unknown) => {
            if (!(e instanceof NotFoundException)) throw e;
          });
      }
    },
  };
}

let registry: ApiKeyRegistry | undefined;

export function apiKeyRegistry(): ApiKeyRegistry {
  if (isLocalMode()) return noop;
  registry ??= apiGatewayKeyRegistry();
  return registry;
}
