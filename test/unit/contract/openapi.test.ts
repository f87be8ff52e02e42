import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ROUTES, PUBLIC_BASE } from '../../../shared/catalog/routes.js';
import { buildOpenApiDocument, publishedRoutes } from '../../../shared/contract/openapi.js';
import { ARTIFACTS, renderArtifacts } from '../../../shared/contract/artifacts.js';
import { checkResponse } from '../../support/contract.js';
import { ROOT } from '../../support/local.js';

const doc = buildOpenApiDocument() as Record<string, any>;

describe('the published OpenAPI document', () => {
  test('validates as OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect({ version: validator.version, valid: result.valid, errors: result.errors }).toEqual({ version: '3.1', valid: true, errors: undefined });
  });

  test('describes every public route of the route table, and nothing else', () => {
    const expected = ROUTES.filter((r) => r.path.startsWith(PUBLIC_BASE) && r.auth !== 'admin').map((r) => `${r.method} ${r.path}`);
    const described = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(described.sort()).toEqual(expected.sort());
    expect(expected.length).toBeGreaterThan(25);
  });

  test('a route added to the table without a contract entry stops the build', () => {
    const extra = { method: 'GET' as const, path: `${PUBLIC_BASE}nowhere/`, module: 'functions/nowhere.ts', auth: 'api_key' as const, bindings: {} };
    expect(() => buildOpenApiDocument([...ROUTES, extra])).toThrow('GET nowhere/ is in the route table but not in shared/contract/operations.ts');
  });

  test('leaves out routes under other bases (console, customer app)', () => {
    const app = { method: 'GET' as const, path: '/api/app/v1/account/', module: 'functions/app/get-account.ts', auth: 'api_key' as const, bindings: {} };
    expect(publishedRoutes([...ROUTES, app]).some((r) => r.path.startsWith('/api/app/'))).toBe(false);
  });

  test('carries the key scheme, Idempotency-Key where accepted, throttles and webhook events', () => {
    const search = doc.paths[`${PUBLIC_BASE}search/`].post;
    expect(search.security).toEqual([{ ApiKey: [] }]);
    expect(search['x-throttle']).toEqual({ per_minute: 6, burst: 2, scope: 'key' });
    expect(search.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }));
    expect(doc.paths[`${PUBLIC_BASE}test-emails/`].post.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', required: true }));
    // The test-email catch-all of docs/decisions.md#limits is one limit per key for both routes.
    expect([doc.paths[`${PUBLIC_BASE}test-emails/`].post['x-throttle'], doc.paths[`${PUBLIC_BASE}test-emails/{id}/`].get['x-throttle']]).toEqual([
      { per_minute: 1, burst: 2, scope: 'key', bucket: 'test-emails' },
      { per_minute: 1, burst: 2, scope: 'key', bucket: 'test-emails' },
    ]);
    expect(doc.paths[`${PUBLIC_BASE}openapi.json`].get.security).toEqual([]);
    expect(Object.keys(doc.webhooks).sort()).toEqual(
      ['agentic_search.completed', 'agentic_search.failed', 'bulk_enrich.completed', 'deep_search.completed', 'deep_search.failed', 'phone_enrich.completed', 'phone_enrich.failed', 'search.completed', 'search.failed'].sort(),
    );
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
  });

  test('every job kind documents a failed poll as result {error}, the webhook body without id and event_type', () => {
    const error = { code: 'error', message: 'the job failed, retry' };
    const failed = (id: string, tier: string, result: unknown) => ({
      id, status: 'failed', tier, created_at: '2026-11-26T10:00:00.000Z', updated_at: '2026-11-26T10:05:00.000Z', completed_at: '2026-11-26T10:05:00.000Z', leads_returned: 0, result, error,
    });
    const id = 'dj_01kayj4h1pq2w8b7z3f6c9d0ea';
    const polls = [['search/{job_id}/', 'people_search', 'PeopleSearchJob'], ['deep-search/{job_id}/', 'deep_search', 'DeepSearchJob'], ['enrich/phone/{job_id}/', 'phone_enrich', 'PhoneEnrichJob'], ['agentic-search/{job_id}/', 'agentic_search', 'AgenticSearchJob']];
    for (const [path, tier, schema] of polls) {
      expect(checkResponse('GET', `${PUBLIC_BASE}${path}`, 200, 'application/json', failed(id, tier!, { error }))).toEqual({ ok: true });
      expect(checkResponse('GET', `${PUBLIC_BASE}${path}`, 200, 'application/json', failed(id, tier!, { error: { code: 'error' } }))).toMatchObject({ ok: false });
      expect(doc.components.schemas[schema!].description).toContain('`{error}` of a failed one');
      // leads_returned is a count from acceptance on, never null.
      expect(checkResponse('GET', `${PUBLIC_BASE}${path}`, 200, 'application/json', { ...failed(id, tier!, { error }), leads_returned: null })).toMatchObject({ ok: false });
      expect(doc.components.schemas[schema!].properties.leads_returned).toMatchObject({ type: 'integer', minimum: 0 });
    }
  });

  test('an agentic result documents each lead\'s rung (found_by) and the broadening used, both optional and additive', () => {
    const id = 'dj_01kayj4h1pq2w8b7z3f6c9d0ea';
    const completed = (result: unknown) => ({ id, status: 'completed', tier: 'agentic_search', created_at: '2026-11-26T10:00:00.000Z', updated_at: '2026-11-26T10:05:00.000Z', completed_at: '2026-11-26T10:05:00.000Z', leads_returned: 1, result, error: null });
    const base = { partial: false, completion_reason: '', total_returned: 1 };
    const lead = { full_name: 'Ada Example', found_by: 'same_metro' };
    const broadening = [{ rung: 'exact', relaxes: 'none', added: [], candidates: 3, evaluated: 3, leads: 0 }, { rung: 'same_metro', relaxes: 'place', added: ['Oakland, California, US'], candidates: 4, evaluated: 2, leads: 1 }];
    const path = `${PUBLIC_BASE}agentic-search/{job_id}/`;
    expect(checkResponse('GET', path, 200, 'application/json', completed({ ...base, results: [lead], broadening }))).toEqual({ ok: true });
    // Additive: a result without them (a run accepted before the ladder) is still valid.
    expect(checkResponse('GET', path, 200, 'application/json', completed({ ...base, results: [{ full_name: 'Ada Example' }] }))).toEqual({ ok: true });
    expect(checkResponse('GET', path, 200, 'application/json', completed({ ...base, results: [{ ...lead, found_by: 'anywhere' }] }))).toMatchObject({ ok: false });
    expect(checkResponse('GET', path, 200, 'application/json', completed({ ...base, results: [lead], broadening: [{ ...broadening[1], relaxes: 'industry' }] }))).toMatchObject({ ok: false });
  });

  test('sequence contacts items have the contact shape of POST /emails/ `to`, for create and add-contacts alike', () => {
    const to = doc.paths[`${PUBLIC_BASE}emails/`].post.requestBody.content['application/json'].schema.properties.to;
    for (const path of ['sequences/', 'sequences/{id}/contacts/']) {
      const contacts = doc.paths[`${PUBLIC_BASE}${path}`].post.requestBody.content['application/json'].schema.properties.contacts;
      expect(contacts).toMatchObject({ type: 'array', minItems: 1, maxItems: 100 });
      const { description, ...shape } = contacts.items;
      expect(shape).toEqual(to);
      expect(shape).toMatchObject({ type: 'object', required: ['email', 'first_name'], additionalProperties: false });
      expect(description).toContain('invalid_contact');
    }
  });

  test('POST /test-emails/ documents 403 for attachments not enabled and 503 for no test inbox and for contention', () => {
    const template = `${PUBLIC_BASE}test-emails/`;
    const responses = doc.paths[template].post.responses;
    expect(responses['403'].description).toMatch(/attachments are not enabled/);
    expect(responses['503'].description).toMatch(/`unavailable`: the deployment has no test inbox[\s\S]*`contention`/);
    const noInbox = { error: { code: 'unavailable', message: 'Test emails are not configured for this deployment: it has no test inbox.' } };
    const attachments = { error: { code: 'permission_denied', message: 'Attachments are not enabled for this account.' } };
    expect(checkResponse('POST', template, 503, 'application/json', noInbox)).toEqual({ ok: true });
    expect(checkResponse('POST', template, 403, 'application/json', attachments)).toEqual({ ok: true });
  });

  test('email_status and email_status_reason are optional additive fields of the email finder and the deep-search item (issue 34)', () => {
    const statuses = ['valid', 'accept_all', 'unknown', 'invalid'];
    const found = doc.components.schemas.EmailFound;
    expect(found.required).toEqual(['email']);
    expect(found.properties.email_status.enum).toEqual(statuses);
    expect(found.properties.email_status_reason.enum).toEqual(expect.arrayContaining(['syntax', 'hard_bounce', 'no_mail_exchanger', 'delivered', 'accept_all_domain', 'pattern_confirmed', 'unverified']));
    const item = doc.components.schemas.DeepSearchCompletedEvent.properties.results.items;
    expect(item.properties.email_status.enum).toEqual(statuses);
    expect(item.required).toContain('email');
    expect(item.required).not.toContain('email_status');
    expect(checkResponse('POST', `${PUBLIC_BASE}enrich/email/`, 200, 'application/json', { email: 'a@b.io', email_status: 'invalid', email_status_reason: 'hard_bounce' })).toEqual({ ok: true });
    expect(checkResponse('POST', `${PUBLIC_BASE}enrich/email/`, 200, 'application/json', { email: 'a@b.io', email_status: 'bounced' })).toMatchObject({ ok: false });
  });

  test('the committed openapi.json and public-api.d.ts are what `npm run openapi` writes now', async () => {
    const rendered = await renderArtifacts();
    expect(readFileSync(join(ROOT, ARTIFACTS.document), 'utf8')).toBe(rendered.document);
    expect(readFileSync(join(ROOT, ARTIFACTS.types), 'utf8')).toBe(rendered.types);
  });
});

describe('the response checker', () => {
  const template = `${PUBLIC_BASE}enrich/email/`;

  test('accepts an answer the document describes', () => {
    expect(checkResponse('POST', template, 200, 'application/json', { email: 'jane@acme.example' })).toEqual({ ok: true });
    expect(checkResponse('POST', template, 403, 'application/json', { message: 'Forbidden' })).toEqual({ ok: true });
  });

  test('fails a body that contradicts the document, an unknown field and an undocumented status', () => {
    expect(checkResponse('POST', template, 200, 'application/json', { email: 42 })).toMatchObject({ ok: false, problem: expect.stringContaining('/email must be string') });
    expect(checkResponse('POST', template, 200, 'application/json', { email: 'a@b.example', phone: '+1' })).toMatchObject({ ok: false, problem: expect.stringContaining('(phone)') });
    expect(checkResponse('POST', template, 418, 'application/json', {})).toMatchObject({ ok: false, problem: expect.stringContaining('418') });
  });

  test('fails on a deliberately wrong document', () => {
    const wrong = structuredClone(doc);
    wrong.components.schemas.EmailFound.properties.email = { type: 'integer' };
    expect(checkResponse('POST', template, 200, 'application/json', { email: 'jane@acme.example' }, wrong)).toMatchObject({ ok: false });
  });
});
