import { createHash } from 'node:crypto';

/**
 * The headers of every HTML page the API serves (the reference page at /docs/, the unsubscribe pages): a
 * Content-Security-Policy that allows what the page needs and nothing else, never framed by another site
 * (`frame-ancestors 'none'`, clickjacking of the unsubscribe button), and `nosniff` so no answer is read as
 * another type than it says.
 */
export const NOSNIFF = { 'X-Content-Type-Options': 'nosniff' } as const;

/** A CSP source for an inline script: its SHA-256, so that exact script runs and no injected one does. */
export const inlineScriptSource = (script: string) => `'sha256-${createHash('sha256').update(script, 'utf8').digest('base64')}'`;

export function htmlPageHeaders(csp: readonly string[]): Record<string, string> {
  return { 'Content-Security-Policy': csp.join('; '), ...NOSNIFF };
}

/** A page of plain markup whose forms post back to the page's own URL: no script, style, image or frame. */
export const FORM_PAGE_CSP = ["default-src 'none'", "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'"] as const;
