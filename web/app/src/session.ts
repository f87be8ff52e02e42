/**
 * The signed-in session: the app's configuration (GET config.json) and the user's Cognito ID token. The token
 * is kept in sessionStorage (this tab only, gone when it closes), never in localStorage or a cookie.
 */
export interface AppConfig {
  apiBase: string;
  cognito: { endpoint: string; region: string; userPoolId: string; clientId: string };
}

const TOKEN_KEY = 'app.idToken';

let config: AppConfig | null = null;

export async function loadConfig(): Promise<AppConfig> {
  if (config) return config;
  const res = await fetch('config.json', { cache: 'no-store' });
  if (!res.ok) throw new Error(`config.json: ${res.status}`);
  config = (await res.json()) as AppConfig;
  return config;
}

export function idToken(): string | null {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) return null;
  // An expired token is dropped here rather than sent and refused.
  const exp = Number(JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))).exp);
  if (!exp || exp * 1000 < Date.now()) {
    sessionStorage.removeItem(TOKEN_KEY);
    return null;
  }
  return token;
}

export function signedInEmail(): string | null {
  const token = idToken();
  return token ? (JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))).email as string) : null;
}

/** Cognito's InitiateAuth with USER_PASSWORD_AUTH, over its JSON protocol: no SDK in the page. */
export async function signIn(email: string, password: string): Promise<void> {
  const { cognito } = await loadConfig();
  const res = await fetch(cognito.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth' },
    body: JSON.stringify({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: cognito.clientId, AuthParameters: { USERNAME: email, PASSWORD: password } }),
  });
  const body = (await res.json().catch(() => ({}))) as { AuthenticationResult?: { IdToken?: string }; message?: string };
  const token = body.AuthenticationResult?.IdToken;
  if (!res.ok || !token) throw new Error(body.message ?? 'Sign-in failed.');
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function signOut(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A call to the web app's API (`/api/app/v1/…`) with the user's token; a 401 signs the user out. */
export async function api<T = unknown>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> {
  const { apiBase } = await loadConfig();
  const token = idToken();
  if (!token) {
    window.dispatchEvent(new Event('app:signed-out'));
    throw new ApiError(401, 'Signed out.');
  }
  const res = await fetch(`${apiBase}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...extraHeaders },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status === 401) {
    signOut();
    window.dispatchEvent(new Event('app:signed-out'));
    throw new ApiError(401, 'Your session has ended; sign in again.');
  }
  if (res.status === 204) return undefined as T;
  const parsed = (await res.json().catch(() => null)) as { error?: { message?: string; details?: { path: string; message: string }[] } } | null;
  if (!res.ok) {
    const details = parsed?.error?.details?.map((d) => `${d.path}: ${d.message}`).join('; ');
    throw new ApiError(res.status, [parsed?.error?.message ?? `Request failed (${res.status}).`, details].filter(Boolean).join(' '));
  }
  return parsed as T;
}
