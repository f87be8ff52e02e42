import type { LocalStack } from './stack.js';

/**
 * What the running service adds on top of the bare stack: the demo account, and each capability's
 * local start-up (directory import, inbound mail hook, resuming work that was in flight).
 */
export interface LocalServices {
  createDemoAccount(): Promise<{ account_id: string; api_key: string }>;
  stop(): Promise<void>;
}

async function consoleCall(stack: LocalStack, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${stack.consoleUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-admin-token': stack.adminToken },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`console ${method} ${path} → ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

export async function startServices(opts: { root: string; stack: LocalStack; dataDir: string | null; log?: (m: string) => void }): Promise<LocalServices> {
  const { stack } = opts;
  return {
    async createDemoAccount() {
      const account = await consoleCall(stack, 'POST', 'accounts/', { name: 'Demo workspace', agentic_search: true, pilot: true });
      const key = await consoleCall(stack, 'POST', `accounts/${account.id}/api-keys/`);
      await consoleCall(stack, 'POST', `accounts/${account.id}/webhook-secrets/`);
      await consoleCall(stack, 'POST', `accounts/${account.id}/sending-accounts/`, { email: 'demo.sender@demo-workspace.test', type: 'google' });
      return { account_id: account.id as string, api_key: key.key as string };
    },
    async stop() {},
  };
}
