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

/**
 * How long, in all, one call waits out 429 answers that say when to come back (`Retry-After`: the user's or the
 * account's budget, shared/catalog/app-limits.ts) before it gives up with the 429. Such a refusal did nothing,
 * so any call may be sent again.
 */
const MOST_RETRY_WAIT_MS = 5 * 60_000;

export interface ApiOptions {
  /** Told before each wait for a budget to refill (seconds), so a long job can say why it paused. */
  onWait?: (seconds: number) => void;
}

/**
 * A call to the web app's API (`/api/app/v1/…`) with the user's token; a 401 signs the user out. A 429 with
 * `Retry-After` is waited out and the call sent again (MOST_RETRY_WAIT_MS in all), so a CSV import or a big
 * page that finds its budget spent slows down instead of failing.
 */
export async function api<T = unknown>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, extraHeaders: Record<string, string> = {}, opts: ApiOptions = {}): Promise<T> {
  const { apiBase } = await loadConfig();
  let waited = 0;
  let res: Response;
  for (;;) {
    const token = idToken();
    if (!token) {
      window.dispatchEvent(new Event('app:signed-out'));
      throw new ApiError(401, 'Signed out.');
    }
    res = await fetch(`${apiBase}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...extraHeaders },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const retryAfter = res.status === 429 ? Number(res.headers.get('retry-after')) : NaN;
    if (!(retryAfter > 0) || waited + retryAfter * 1000 > MOST_RETRY_WAIT_MS) break;
    await res.text().catch(() => '');
    opts.onWait?.(retryAfter);
    // A little jitter, so the tabs of one account that were refused together do not all come back at once.
    const pause = retryAfter * 1000 + Math.random() * 500;
    await new Promise((r) => setTimeout(r, pause));
    waited += pause;
  }
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
