import type { LocalStack } from '../../shared/local/stack.js';

/**
 * A mailbox connection over HTTP as a browser makes it: the start's answer sets the binding cookie, the
 * emulated provider's consent redirects to the public callback, and the callback gets back that cookie and
 * no other header. Nothing here adds a credential to the callback.
 */
export interface Started {
  status: number;
  body: any;
  /** The `Set-Cookie` values of the start's answer, as sent. */
  setCookies: string[];
  /** What a browser sends back of them (name=value pairs). */
  cookie: string;
}

async function started(res: Response): Promise<Started> {
  const setCookies = res.headers.getSetCookie();
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, setCookies, cookie: setCookies.map((c) => c.split(';', 1)[0]!).join('; ') };
}

/** The operator's start (console route, admin token: the start, not the callback). */
export async function startFromConsole(stack: LocalStack, accountId: string, body: Record<string, unknown>): Promise<Started> {
  return started(
    await fetch(`${stack.consoleUrl}accounts/${accountId}/sending-accounts/connect/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-admin-token': stack.adminToken },
      body: JSON.stringify(body),
    }),
  );
}

/** The web app's start, with the signed-in user's ID token. */
export async function startFromApp(stack: LocalStack, token: string | null, body: unknown): Promise<Started> {
  return started(
    await fetch(`http://localhost:${stack.port}/api/app/v1/sending-accounts/connect/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    }),
  );
}

/** The emulated provider's consent: a 302 to the callback with `code` and `state`. */
export async function consent(authorizationUrl: string): Promise<URL> {
  const res = await fetch(authorizationUrl, { redirect: 'manual' });
  await res.body?.cancel();
  if (res.status !== 302) throw new Error(`consent answered ${res.status}`);
  return new URL(res.headers.get('location')!);
}

export interface Landing {
  status: number;
  /** Where the callback sends the browser. */
  location: URL | null;
  setCookies: string[];
  contentType: string | null;
}

/** The browser arriving at the callback, with `cookie` (or none). */
export async function arrive(callback: URL | string, cookie: string | null): Promise<Landing> {
  const res = await fetch(callback, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  await res.body?.cancel();
  const location = res.headers.get('location');
  return { status: res.status, location: location ? new URL(location) : null, setCookies: res.headers.getSetCookie(), contentType: res.headers.get('content-type') };
}
