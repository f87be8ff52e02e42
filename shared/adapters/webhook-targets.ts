import { flag, isLocalMode, optionalEnv } from '../core/env.js';
import { isLoopbackAddress, systemResolver, type Resolver } from './web-target.js';

/**
 * The webhook-target adapter: how hosts resolve and which checked addresses may be connected to.
 * In AWS: the system resolver, public addresses only (the rules of target.ts). On the one-machine twin
 * nothing may leave loopback — not even a DNS question — so hosts resolve only through a static table
 * (`localhost` plus whatever `WEBHOOK_HOSTS`, JSON `{"host": ["ip", …]}`, maps; any other host does not
 * resolve and is refused as invalid), plain-HTTP loopback targets are allowed with
 * WEBHOOK_ALLOW_LOOPBACK=1, and a delivery connects to loopback addresses only.
 */
export interface WebhookTargetPolicy {
  resolver: Resolver;
  /** Plain-HTTP loopback targets accepted (never in AWS). */
  allowLoopback: boolean;
  /** Why a connection to this checked address may not be made here, or null when it may. */
  refuseConnection(address: string): string | null;
}

export function staticResolver(table: Record<string, string[]>): Resolver {
  return async (host) => table[host.toLowerCase()] ?? [];
}

const aws: WebhookTargetPolicy = { resolver: systemResolver, allowLoopback: false, refuseConnection: () => null };

let cached: { source: string | undefined; allowLoopback: boolean; policy: WebhookTargetPolicy } | undefined;

function localPolicy(): WebhookTargetPolicy {
  const source = optionalEnv('WEBHOOK_HOSTS');
  const allowLoopback = flag('WEBHOOK_ALLOW_LOOPBACK');
  if (!cached || cached.source !== source || cached.allowLoopback !== allowLoopback) {
    const table: Record<string, string[]> = { localhost: ['127.0.0.1'], ...(source ? (JSON.parse(source) as Record<string, string[]>) : {}) };
    cached = {
      source,
      allowLoopback,
      policy: {
        resolver: staticResolver(table),
        allowLoopback,
        refuseConnection: (address) => (isLoopbackAddress(address) ? null : 'the local stack delivers webhooks to loopback addresses only'),
      },
    };
  }
  return cached.policy;
}

export function webhookTargetPolicy(): WebhookTargetPolicy {
  return isLocalMode() ? localPolicy() : aws;
}
