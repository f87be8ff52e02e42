import type { LocalStack } from '../../shared/local/stack.js';
import { Client, newTenant } from './local.js';

/** A password the user pool's policy accepts. */
export const USER_PASSWORD = 'Correct-horse-9-battery';

/** Cognito's InitiateAuth (USER_PASSWORD_AUTH) against the local pool, as the web app calls it: the ID token. */
export async function idTokenFor(stack: LocalStack, email: string, password = USER_PASSWORD): Promise<string> {
  const pool = stack.userPool!;
  const res = await fetch(pool.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth' },
    body: JSON.stringify({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: pool.clientId, AuthParameters: { USERNAME: email, PASSWORD: password } }),
  });
  const body = (await res.json()) as { AuthenticationResult?: { IdToken?: string } };
  if (!res.ok || !body.AuthenticationResult?.IdToken) throw new Error(`sign-in of ${email}: ${res.status} ${JSON.stringify(body)}`);
  return body.AuthenticationResult.IdToken;
}

/** An account with an API key, and a web-app user of it added through the console route. */
export async function newAppTenant(stack: LocalStack, email: string, account: Record<string, unknown> = {}, opts: Parameters<typeof newTenant>[2] = {}) {
  const tenant = await newTenant(stack, account, opts);
  const added = await tenant.admin.console('POST', `accounts/${tenant.accountId}/users/`, { email, password: USER_PASSWORD });
  if (added.status !== 201) throw new Error(`user: ${added.status} ${JSON.stringify(added.body)}`);
  const token = await idTokenFor(stack, email);
  return { ...tenant, email, token, app: new AppClient(stack, token) };
}

/** Calls to the web app's API (`/api/app/v1/`) with a user's ID token. */
export class AppClient extends Client {
  constructor(
    stack: LocalStack,
    readonly token: string | null,
  ) {
    super(stack);
  }

  route<T = any>(method: string, path: string, body?: unknown) {
    return this.call<T>(method, `http://localhost:${this.stack.port}/api/app/v1/${path}`, body, this.token ? { authorization: `Bearer ${this.token}` } : {});
  }
}
