import * as z from 'zod';
import { PUBLIC_BASE, ROUTES, type RouteDef } from '../catalog/routes.js';
import { pathParameterShape } from '../http/path-ids.js';
import { IDEMPOTENCY_KEY } from '../jobs/accept-job.js';
import {
  agenticSearchCompletedSchema,
  agenticSearchFailedSchema,
  deepSearchCompletedSchema,
  deepSearchFailedSchema,
  phoneEnrichCompletedSchema,
  phoneEnrichFailedSchema,
  bulkEnrichCompletedSchema,
  searchCompletedSchema,
  searchFailedSchema,
} from '../webhooks/events.js';
import { ContactSchema } from '../outreach/schemas.js';
import { ContactItemSchema } from '../sequences/schemas.js';
import { BULK_KINDS, BulkItemSchema } from '../enrichment/bulk.schema.js';
import { OPERATIONS, type Answer, type Operation } from './operations.js';
import { ErrorEnvelope, GatewayMessage } from './responses.js';

/**
 * The published contract (docs/decisions.md#published-contract): an OpenAPI 3.1 document built from the route
 * table, the zod schemas the handlers validate requests with, and the response schemas of responses.ts.
 * Only the public API is described: routes under `/api/public/v1/` whose auth is a key or none.
 */
type Json = Record<string, unknown>;

const COMPONENT = (id: string) => `#/components/schemas/${id}`;

const WEBHOOK_EVENTS: [string, z.core.$ZodObject, string][] = [
  ['search.completed', searchCompletedSchema, 'People search finished; zero results is a completion with `total_returned` 0.'],
  ['search.failed', searchFailedSchema, 'People search failed; not charged.'],
  ['deep_search.completed', deepSearchCompletedSchema, 'Deep search finished.'],
  ['deep_search.failed', deepSearchFailedSchema, 'Deep search failed; not charged.'],
  ['agentic_search.completed', agenticSearchCompletedSchema, 'Agentic search finished, including zero leads, partial or cancelled runs.'],
  ['agentic_search.failed', agenticSearchFailedSchema, 'Internal failure; not charged.'],
  ['phone_enrich.completed', phoneEnrichCompletedSchema, 'Phone lookup finished; `phone` is null on a miss.'],
  ['phone_enrich.failed', phoneEnrichFailedSchema, 'Phone lookup failed; not charged.'],
  ['bulk_enrich.completed', bulkEnrichCompletedSchema, 'Bulk enrichment finished (beyond SPEC): one result per item, in input order.'],
];
const eventComponentId = (eventType: string) => `${eventType.split(/[._]/).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}Event`;
/** Classic `.meta()` without the method (the event schemas are zod/mini): register a clone, so the schemas the handlers use stay un-described. */
const WEBHOOK_SCHEMAS = WEBHOOK_EVENTS.map(([type, schema]) => {
  const described = z.clone(schema);
  z.globalRegistry.add(described, { id: eventComponentId(type) });
  return described;
});

/** The routes the document describes. */
export function publishedRoutes(routes: readonly RouteDef[] = ROUTES): RouteDef[] {
  return routes.filter((r) => r.path.startsWith(PUBLIC_BASE) && (r.auth === 'api_key' || r.auth === 'handler_key' || r.auth === 'public'));
}

export const operationKey = (r: Pick<RouteDef, 'method' | 'path'>) => `${r.method} ${r.path.slice(PUBLIC_BASE.length)}`;

function stripDialect(schema: Json): Json {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

type Override = NonNullable<NonNullable<Parameters<typeof z.toJSONSchema>[1]>['override']>;
const toJson = (schema: z.core.$ZodType, override?: Override): Json =>
  stripDialect(z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any', ...(override ? { override } : {}) }) as Json);

/**
 * A sequence's `contacts` items are validated one by one after the body (an invalid one is rejected as
 * `invalid_contact`, the call goes on), so the body schema lets any item through; the document shows the
 * shape a contact must have, that of POST /emails/ `to`.
 */
const contactItem = (): Json => ({
  ...toJson(ContactSchema),
  description: 'Same shape as `to` of POST /emails/. An item that is not a valid contact does not fail the call: it is listed in `contacts_rejected` with reason `invalid_contact`.',
});

/**
 * A bulk enrichment's items are checked one by one in the job (an invalid one is its own `invalid_input`
 * result), so the body schema lets any item through; the document shows the shapes an item must have: a
 * `kind` and the body of that kind's single call.
 */
const bulkItem = (): Json => ({
  oneOf: (Object.entries(BULK_KINDS) as [string, { schema: z.core.$ZodType }][]).map(([kind, def]) => {
    const single = toJson(def.schema) as { properties?: Json; required?: string[] };
    return { ...single, properties: { kind: { type: 'string', const: kind }, ...single.properties }, required: ['kind', ...(single.required ?? [])] };
  }),
  description: 'One enrichment: `kind` and the body of that single call. An item that is not valid does not fail the call: its result is `invalid_input`, never charged.',
});

const requestSchema = (schema: z.core.$ZodType): Json =>
  toJson(schema, (ctx) => {
    if (ctx.zodSchema === ContactItemSchema) Object.assign(ctx.jsonSchema, contactItem());
    if (ctx.zodSchema === BulkItemSchema) Object.assign(ctx.jsonSchema, bulkItem());
  });

function responseRef(schema: z.core.$ZodType): Json {
  const id = z.globalRegistry.get(schema)?.id;
  if (!id) throw new Error('every response schema of the contract has a component id (.meta({ id }))');
  return { $ref: COMPONENT(id) };
}

function content(answer: Answer, extra?: z.core.$ZodType): Json | undefined {
  if (answer.mediaType) {
    const media: Json = { [answer.mediaType]: { schema: { type: answer.mediaType === 'application/json' ? 'object' : 'string' } } };
    return answer.schema ? { ...media, 'application/json': { schema: responseRef(answer.schema) } } : media;
  }
  const schemas = [answer.schema, extra].filter((s): s is z.core.$ZodType => s !== undefined);
  if (schemas.length === 0) return undefined;
  const schema = schemas.length === 1 ? responseRef(schemas[0]!) : { anyOf: schemas.map(responseRef) };
  return { 'application/json': { schema } };
}

/** The answers every route of an auth kind can give, beside its own. */
function sharedAnswers(route: RouteDef): Record<number, Answer & { gateway?: boolean }> {
  const throttled = { description: 'Throttled: `{"message":"Too Many Requests"}` from the gateway, or an application error.', schema: ErrorEnvelope, gateway: true };
  switch (route.auth) {
    case 'api_key':
      return {
        403: { description: '`{"message":"Forbidden"}` from the gateway for a missing, unknown or revoked key; `permission_denied` when the account is not eligible for the public API.', schema: ErrorEnvelope, gateway: true },
        429: throttled,
        500: { description: 'Internal error.', schema: ErrorEnvelope },
      };
    case 'handler_key':
      return {
        401: { description: '`unauthorized`: missing, unknown or revoked key.', schema: ErrorEnvelope },
        403: { description: '`permission_denied`: the account is outside the pilot or not eligible.', schema: ErrorEnvelope },
        429: { ...throttled, description: 'Throttled (`{"message":"Too Many Requests"}`) or over the hourly/daily quota (`rate_limited`).' },
        500: { description: 'Internal error: recover with the same key and content; never assume no email was sent.', schema: ErrorEnvelope },
      };
    default:
      return { 429: { description: 'Throttled.', schema: GatewayMessage } };
  }
}

function responsesOf(route: RouteDef, op: Operation): Json {
  const shared = sharedAnswers(route);
  const statuses = [...new Set([...Object.keys(op.answers), ...Object.keys(shared)].map(Number))].sort((a, b) => a - b);
  const out: Json = {};
  for (const status of statuses) {
    const own = op.answers[status];
    const common = shared[status];
    const answer = own ?? common!;
    const gatewayToo = common?.gateway ? GatewayMessage : undefined;
    const body = content(answer, gatewayToo && answer.schema !== GatewayMessage ? gatewayToo : undefined);
    out[String(status)] = { description: answer.description, ...(body ? { content: body } : {}) };
  }
  return out;
}

function parametersOf(route: RouteDef, op: Operation): Json[] {
  const params: Json[] = [];
  for (const m of route.path.matchAll(/\{(\w+)\}/g)) {
    const shape = pathParameterShape(route.path, m[1]!);
    params.push({ name: m[1], in: 'path', required: true, schema: { type: 'string', ...(shape ? { pattern: shape.source } : {}) } });
  }
  if (op.query) {
    const schema = requestSchema(op.query) as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, prop] of Object.entries(schema.properties ?? {})) params.push({ name, in: 'query', required: schema.required?.includes(name) ?? false, schema: prop });
  }
  if (op.idempotency) {
    params.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: op.idempotency === 'required',
      description: 'The same key returns the same record or job in its current state; the same key with a different body is 409.',
      schema: { type: 'string', pattern: IDEMPOTENCY_KEY.source },
    });
  }
  return params;
}

function operationOf(route: RouteDef, op: Operation): Json {
  const description = [op.description, op.price ? `Price: ${op.price}.` : undefined].filter(Boolean).join('\n\n');
  const parameters = parametersOf(route, op);
  return {
    operationId: `${route.method.toLowerCase()}_${route.path.slice(PUBLIC_BASE.length).replace(/[{}]/g, '').replace(/[^a-z0-9]+/gi, '_').replace(/_+$/, '') || 'root'}`,
    summary: op.summary,
    ...(description ? { description } : {}),
    tags: [op.tag],
    security: route.auth === 'public' ? [] : [{ ApiKey: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(op.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: { ...requestSchema(op.body), ...(op.bodyShapes ? { oneOf: op.bodyShapes.map((required) => ({ required })) } : {}) }, ...(op.example === undefined ? {} : { example: op.example }) } } } }
      : {}),
    responses: responsesOf(route, op),
    // `bucket`: routes that count against one limit per key together name the same bucket.
    ...(route.throttle
      ? { 'x-throttle': { per_minute: route.throttle.perMinute, burst: route.throttle.burst, scope: route.auth === 'public' ? 'stage' : 'key', ...(route.keyThrottleBucket ? { bucket: route.keyThrottleBucket } : {}) } }
      : {}),
  };
}

function componentSchemas(): Json {
  const { schemas } = z.toJSONSchema(z.globalRegistry, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any', uri: COMPONENT }) as unknown as { schemas: Record<string, Json> };
  const out: Json = {};
  for (const [id, schema] of Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))) {
    const { $id: _id, ...rest } = stripDialect(schema);
    out[id] = rest;
  }
  return out;
}

function webhooks(): Json {
  const out: Json = {};
  WEBHOOK_EVENTS.forEach(([type, , description], i) => {
    out[type] = {
      post: {
        summary: type,
        description: `${description} Signed with Standard Webhooks headers (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`); verify before processing.`,
        requestBody: { required: true, content: { 'application/json': { schema: responseRef(WEBHOOK_SCHEMAS[i]!) } } },
        responses: { '2XX': { description: 'Received. Anything else (or no answer in 15 s) is retried.' } },
      },
    };
  });
  return out;
}

/** The OpenAPI 3.1 document of the public API. */
export function buildOpenApiDocument(routes: readonly RouteDef[] = ROUTES): Json {
  const paths: Record<string, Json> = {};
  for (const route of publishedRoutes(routes)) {
    const op = OPERATIONS[operationKey(route)];
    if (!op) throw new Error(`${operationKey(route)} is in the route table but not in shared/contract/operations.ts`);
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operationOf(route, op);
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'People search, enrichment and outreach API',
      version: '1.0.0',
      description:
        'Find people from a plain-language description, resolve work emails, phones and profiles, and send AI-drafted, human-approved emails from your own mailboxes, paid in credits. Every path ends with `/`. Errors use `{"error": {"code", "message", "details"?}}`; the gateway answers `{"message": …}`.',
    },
    servers: [{ url: '/', description: 'This host' }],
    tags: ['Search', 'Enrichment', 'Sending accounts', 'Outreach emails', 'Sequences', 'Test emails', 'Recipient links', 'Privacy requests', 'Contract'].map((name) => ({ name })),
    paths,
    webhooks: webhooks(),
    components: {
      schemas: componentSchemas(),
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The raw API key, no prefix.' } },
    },
  };
}
