/**
 * Ids and tokens in paths are checked by shape before anything is read (docs/decisions.md#ids-in-paths): a
 * prefix plus a 26-character lowercase ULID, a test email's UUID v4, a tracking token's 32 base64url
 * characters (192 bits), a privacy request's link token's 43 (256 bits). Anything else cannot name an
 * object, so it is a 404 — and never reaches DynamoDB, which would refuse an over-long key with an error.
 */
const ULID = '[0-9a-hjkmnp-tv-z]{26}';
const prefixed = (prefix: string) => new RegExp(`^${prefix}_${ULID}$`);
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Parameters whose name says what they hold. */
const BY_NAME: Record<string, RegExp> = {
  job_id: prefixed('dj'),
  key_id: prefixed('key'),
  secret_id: prefixed('whsec'),
  ea_id: prefixed('ea'),
  email_id: prefixed('em'),
  sequence_id: prefixed('sq'),
  token: /^[A-Za-z0-9_-]{32}$/,
};

/** `{id}` takes the shape of the collection it follows. */
const ID_IN: Record<string, RegExp> = {
  emails: prefixed('em'),
  accounts: prefixed('acct'),
  sequences: prefixed('sq'),
  'test-emails': UUID_V4,
};

/** `{token}` under a collection with tokens of its own: a privacy request's link is 32 random bytes. */
const TOKEN_IN: Record<string, RegExp> = {
  'privacy-requests': /^[A-Za-z0-9_-]{43}$/,
};

/** The shape of parameter `name` at index `i` of the resource's segments. */
function shapeAt(segments: string[], i: number, name: string): RegExp | undefined {
  if (name === 'id') return ID_IN[segments[i - 1] ?? ''];
  if (name === 'token') return TOKEN_IN[segments[i - 1] ?? ''] ?? BY_NAME.token;
  return BY_NAME[name];
}

/** The shape of path parameter `name` of `resource`, when it has one (for the published contract). */
export function pathParameterShape(resource: string, name: string): RegExp | undefined {
  const segments = resource.split('/');
  return shapeAt(segments, segments.indexOf(`{${name}}`), name);
}

/** True when every path parameter of `resource` (a route path with `{param}` segments) has its shape. */
export function pathIdsWellFormed(resource: string, params: Record<string, string | undefined>): boolean {
  const segments = resource.split('/');
  for (let i = 0; i < segments.length; i++) {
    const m = /^\{(\w+)\}$/.exec(segments[i]!);
    if (!m) continue;
    const name = m[1]!;
    const shape = shapeAt(segments, i, name);
    const value = params[name];
    if (value === undefined) return false;
    if (shape && !shape.test(value)) return false;
  }
  return true;
}
