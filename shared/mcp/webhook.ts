import { staticResolver } from '../adapters/webhook-targets.js';
import { isLoopbackAddress, systemResolver, validateWebhookUrl, type Resolver } from '../adapters/web-target.js';
import { AppError } from '../core/errors.js';

/**
 * The webhook target of the MCP server (`MCP_WEBHOOK_URL`), configured once: the async tools (people, deep
 * and agentic search, phone enrichment) send it as `webhook_url` on every call, so a model never has to
 * invent one. The tools wait for the job themselves; the webhook is only the API's required delivery.
 *
 * It is checked once at start by the service's own rules (shared/adapters/web-target.ts): https, port 443 or
 * 8443, every address public. Against the local stack (a loopback `PEOPLE_API_URL`) the twin's rules apply
 * instead: hosts resolve only through `localhost` and `WEBHOOK_HOSTS` (no DNS question leaves the machine),
 * and a plain-HTTP loopback receiver is allowed unless `WEBHOOK_ALLOW_LOOPBACK=0` (the local stack's default
 * is on). The service checks the URL again on every call; this check only fails early and clearly.
 */
export interface McpWebhookPolicy {
  resolver: Resolver;
  allowLoopback: boolean;
}

function isLoopbackOrigin(origin: string): boolean {
  const host = new URL(origin).hostname.replace(/^\[|\]$/g, '');
  return host.toLowerCase() === 'localhost' || isLoopbackAddress(host);
}

/** The rules a target is checked by for this API origin: the local twin's for a loopback origin, AWS's otherwise. */
export function mcpWebhookPolicy(apiOrigin: string, env: NodeJS.ProcessEnv = process.env): McpWebhookPolicy {
  if (!isLoopbackOrigin(apiOrigin)) return { resolver: systemResolver, allowLoopback: false };
  const table = { localhost: ['127.0.0.1'], ...(env.WEBHOOK_HOSTS ? (JSON.parse(env.WEBHOOK_HOSTS) as Record<string, string[]>) : {}) };
  return { resolver: staticResolver(table), allowLoopback: env.WEBHOOK_ALLOW_LOOPBACK !== '0' && env.WEBHOOK_ALLOW_LOOPBACK !== 'false' };
}

/** The configured target, normalized; throws an Error naming `MCP_WEBHOOK_URL` and the rule it breaks. */
export async function checkMcpWebhookUrl(url: string | undefined, policy: McpWebhookPolicy): Promise<string> {
  if (!url) throw new Error('Set MCP_WEBHOOK_URL to an HTTPS endpoint of yours that accepts POSTs (the async tools send it as webhook_url).');
  try {
    return (await validateWebhookUrl(url, policy)).url;
  } catch (e) {
    if (e instanceof AppError) throw new Error(`MCP_WEBHOOK_URL is refused: ${e.message.replace(/^webhook_url/, 'the URL')}`);
    throw e;
  }
}
