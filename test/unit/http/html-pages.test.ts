import { createHash } from 'node:crypto';
import { jest } from '@jest/globals';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

/**
 * Every HTML page the API serves carries a Content-Security-Policy (never framed, nothing beyond what the page
 * needs) and `X-Content-Type-Options: nosniff`: the reference page at /docs/ and the unsubscribe pages.
 */
jest.unstable_mockModule('../../../shared/outreach/unsubscribe-link.js', () => ({
  confirmUnsubscribeLink: async (token: string) => ({ choices: token.startsWith('S') ? ['lead@prospect.example', 'cc@prospect.example'] : ['lead@prospect.example'] }),
  followUnsubscribeLink: async (token: string, chosen: string | null) =>
    token.startsWith('S') ? { unsubscribed: chosen, choices: ['lead@prospect.example', 'cc@prospect.example'] } : { unsubscribed: 'lead@prospect.example', choices: ['lead@prospect.example'] },
}));

const context = { functionName: 'fn', awsRequestId: 'r', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
const event = (o: Partial<APIGatewayProxyEvent>): APIGatewayProxyEvent =>
  ({ headers: {}, multiValueHeaders: {}, queryStringParameters: null, multiValueQueryStringParameters: null, pathParameters: null, stageVariables: null, body: null, isBase64Encoded: false, requestContext: { requestId: 'req-1' }, ...o }) as APIGatewayProxyEvent;

/** The CSP's directives by name. */
function directives(res: APIGatewayProxyResult): Map<string, string[]> {
  const csp = String(res.headers?.['Content-Security-Policy'] ?? '');
  return new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([name, ...values]) => [name!, values]));
}

function expectHtmlPageHeaders(res: APIGatewayProxyResult): Map<string, string[]> {
  expect(res.headers?.['Content-Type']).toMatch(/^text\/html/);
  expect(res.headers?.['X-Content-Type-Options']).toBe('nosniff');
  const d = directives(res);
  expect(d.get('frame-ancestors')).toEqual(["'none'"]);
  expect(d.get('default-src')).toEqual(["'none'"]);
  expect(d.get('base-uri')).toEqual(["'none'"]);
  return d;
}

test('/docs/: only its own origin and its one inline script (by hash); scalar.js is nosniff', async () => {
  const { handler } = await import('../../../functions/openapi/docs.js');
  const page = await handler(event({ resource: '/docs/', path: '/docs/', httpMethod: 'GET' }));
  const d = expectHtmlPageHeaders(page);
  const inline = [...page.body.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
  expect(inline).toHaveLength(1);
  const hash = `'sha256-${createHash('sha256').update(inline[0]!, 'utf8').digest('base64')}'`;
  expect(d.get('script-src')).toEqual(["'self'", hash]);
  expect(page.body).toContain('<script src="scalar.js"></script>');
  expect(d.get('connect-src')).toEqual(["'self'"]);
  for (const values of d.values()) for (const v of values) expect(v).not.toMatch(/^(https?:|\*|'unsafe-eval')/);
  const script = await handler(event({ resource: '/docs/scalar.js', path: '/docs/scalar.js', httpMethod: 'GET' }));
  expect(script.headers?.['Content-Type']).toMatch(/^text\/javascript/);
  expect(script.headers?.['X-Content-Type-Options']).toBe('nosniff');
});

test('the unsubscribe pages: no script, forms post to their own origin, never framed', async () => {
  const { handler } = await import('../../../functions/tracking/unsubscribe.js');
  const token = (first: string) => `${first}${'a'.repeat(31)}`;
  const call = (t: string, method: string, body: string | null = null) =>
    handler(event({ resource: '/api/public/v1/u/{token}/', path: `/api/public/v1/u/${t}/`, httpMethod: method, pathParameters: { token: t }, body, headers: { 'content-type': 'application/x-www-form-urlencoded' } }), context) as Promise<APIGatewayProxyResult>;
  const pages = [
    await call(token('L'), 'GET'), // the confirmation page
    await call(token('S'), 'GET'), // a shared link's choices
    await call(token('L'), 'POST', 'confirm=yes'), // done
    await call(token('S'), 'POST', 'confirm=yes&recipient=cc%40prospect.example'), // done for one recipient
    await call(token('S'), 'POST', 'confirm=yes'), // no choice: the choices again
  ];
  for (const page of pages) {
    expect(page.statusCode).toBe(200);
    const d = expectHtmlPageHeaders(page);
    expect(d.get('form-action')).toEqual(["'self'"]);
    expect(d.has('script-src')).toBe(false);
  }
  const oneClick = await call(token('L'), 'POST', 'List-Unsubscribe=One-Click');
  expect(oneClick.headers?.['Content-Type']).toMatch(/^application\/json/);
  expect(oneClick.headers?.['X-Content-Type-Options']).toBe('nosniff');
});
