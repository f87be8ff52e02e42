/**
 * The privacy page's calls: the public API's privacy requests, without a key or a sign-in, on the page's own
 * origin (the web app's host sends `/api/public/v1/privacy-requests/*` to the public API). Where the API is
 * comes from the host's one configuration, `/app/config.json` (`publicApiBase`).
 */
export type RequestKind = 'access' | 'opt_out' | 'erase';

/** A directory record held for the address, in the shape of an enrichment's professional profile. */
export interface Profile {
  first_name?: string | null;
  last_name?: string | null;
  full_name?: string | null;
  headline?: string | null;
  location?: { city?: string | null; country?: string | null; country_code?: string | null } | null;
  current_position?: { title?: string | null; company_name?: string | null; company_industry?: string | null } | null;
  experience?: { title?: string | null; company_name?: string | null; start?: string | null; end?: string | null }[];
  education?: { school_name?: string | null; degree?: string | null; field_of_study?: string | null; start?: string | null; end?: string | null }[];
  [field: string]: unknown;
}

export interface Held {
  email: string;
  request: RequestKind;
  status: string;
  directory: Profile[];
  outreach: { accounts_that_emailed: number; last_emailed_at: string | null };
  completed_at?: string | null;
}

export interface Completed {
  status: 'completed';
  completed_at: string;
}

/** An answer other than the one the page waits for; `status` 0 when the network failed. */
export class PrivacyApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let base: Promise<string> | null = null;

function publicApiBase(): Promise<string> {
  base ??= fetch('/app/config.json', { cache: 'no-store' })
    .then(async (res) => {
      if (!res.ok) throw new Error(`config.json: ${res.status}`);
      const config = (await res.json()) as { publicApiBase?: unknown };
      if (typeof config.publicApiBase !== 'string') throw new Error('config.json names no publicApiBase');
      return config.publicApiBase;
    })
    .catch((e: Error) => {
      base = null;
      throw new PrivacyApiError(0, `The page could not start (${e.message}); reload to try again.`);
    });
  return base;
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const root = await publicApiBase();
  let res: Response;
  try {
    res = await fetch(`${root}privacy-requests/${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    throw new PrivacyApiError(0, 'The service could not be reached; check your connection and try again.');
  }
  const parsed = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  if (res.ok) return parsed as T;
  if (res.status === 429) throw new PrivacyApiError(429, 'Too many requests from here just now; wait a few minutes and try again.');
  throw new PrivacyApiError(res.status, parsed?.error?.message ?? `The request failed (${res.status}); try again.`);
}

/** Ask for a link: 202 whatever the address (the answer never says whether it is known). */
export const ask = (email: string, request: RequestKind) => call<{ status: string }>('POST', '', { email, request });

/** What is held for the link's address; 404 when the link is unknown, expired or used. */
export const held = (token: string) => call<Held>('GET', `${encodeURIComponent(token)}/`);

/** Carry the request out (a repeat answers the same). */
export const confirm = (token: string) => call<Completed>('POST', `${encodeURIComponent(token)}/confirm/`);
