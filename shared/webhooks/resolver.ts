import { flag, isLocalMode, optionalEnv } from '../core/env.js';
import { systemResolver, type Resolver } from './target.js';

/**
 * Which resolver checks webhook hosts. In AWS, the system resolver. On the one-machine twin nothing may
 * leave loopback — not even a DNS question — so hosts resolve only through a static table:
 * `localhost` plus whatever `WEBHOOK_HOSTS` (JSON `{"host": ["ip", …]}`) maps; any other host does not
 * resolve and is refused as invalid.
 */
export function staticResolver(table: Record<string, string[]>): Resolver {
  return async (host) => table[host.toLowerCase()] ?? [];
}

let cached: { source: string | undefined; resolver: Resolver } | undefined;

export function webhookResolver(): Resolver {
  if (!isLocalMode()) return systemResolver;
  const source = optionalEnv('WEBHOOK_HOSTS');
  if (cached?.source !== source || !cached) {
    const table: Record<string, string[]> = { localhost: ['127.0.0.1'], ...(source ? (JSON.parse(source) as Record<string, string[]>) : {}) };
    cached = { source, resolver: staticResolver(table) };
  }
  return cached.resolver;
}

/** Plain-HTTP loopback targets: only on the local twin with WEBHOOK_ALLOW_LOOPBACK=1, never in AWS. */
export function webhookAllowLoopback(): boolean {
  return isLocalMode() && flag('WEBHOOK_ALLOW_LOOPBACK');
}
