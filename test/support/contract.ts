import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { matchPath } from '../../shared/catalog/routes.js';
import { buildOpenApiDocument } from '../../shared/contract/openapi.js';

/**
 * The e2e suites' response checker: every answer of a documented operation must have a documented status
 * and, when JSON, a body valid against the document's schema for that operation and status (JSON Schema
 * 2020-12, as OpenAPI 3.1 uses it). The document is built and its validators compiled once per worker.
 */
type Json = Record<string, any>;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const DOCUMENT_ID = 'openapi.json';

let checker: { doc: Json; ajv: Ajv2020; validators: Map<string, ValidateFunction> } | undefined;

function load(doc?: Json) {
  if (checker && !doc) return checker;
  const document = doc ?? buildOpenApiDocument();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const loaded = { doc: document, ajv, validators: new Map<string, ValidateFunction>() };
  if (!doc) checker = loaded;
  return loaded;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The document's path template a concrete path answers to, or null when the document does not describe it. */
export function documentedTemplate(method: string, path: string, doc: Json = load().doc): string | null {
  for (const template of Object.keys(doc.paths)) if (doc.paths[template][method.toLowerCase()] && matchPath(template, path)) return template;
  return null;
}

export interface ContractFinding {
  ok: boolean;
  problem?: string;
}

/**
 * Check one answer of `method template`. `doc` replaces the published document (the checker's own unit
 * test uses that to prove a mismatch is caught).
 */
export function checkResponse(method: string, template: string, status: number, contentType: string | null, body: unknown, doc?: Json): ContractFinding {
  const c = load(doc);
  const op = c.doc.paths[template]?.[method.toLowerCase()];
  if (!op) return { ok: false, problem: `${method} ${template} is not in the document` };
  const answer = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`];
  if (!answer) return { ok: false, problem: `${method} ${template} answered ${status}, a status the document does not list (${Object.keys(op.responses).join(', ')})` };
  const json = answer.content?.['application/json'];
  if (!json) return { ok: true };
  // An answer that may also be another media type (POST /u/{token}/: the page or JSON) is checked when JSON.
  const other = Object.keys(answer.content).some((media) => media !== 'application/json' && contentType?.includes(media));
  if (other) return { ok: true };
  if (!contentType?.includes('application/json')) return { ok: false, problem: `${method} ${template} ${status}: content-type ${contentType}, the document says application/json` };
  const key = `${method} ${template} ${status}`;
  let validate = c.validators.get(key);
  if (!validate) {
    validate = c.ajv.compile({ $ref: `${DOCUMENT_ID}#/${pointer('paths', template, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema')}` });
    c.validators.set(key, validate);
  }
  if (validate(body)) return { ok: true };
  const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(body)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${e.params.additionalProperty})` : ''}`);
  return { ok: false, problem: `${method} ${template} ${status}: body does not match the document: ${errors.join('; ')}` };
}

/** Throws when an answer of a documented route contradicts the document (the e2e Client calls this on every answer). */
export function assertResponseMatchesContract(method: string, path: string, status: number, contentType: string | null, body: unknown): void {
  const template = documentedTemplate(method, path);
  if (!template) return;
  // The twin's readiness gate (a local process still starting) is not part of the published API.
  if (status === 503 && JSON.stringify(body) === '{"message":"Service Unavailable"}') return;
  const finding = checkResponse(method, template, status, contentType, body);
  if (!finding.ok) throw new Error(`Contract mismatch: ${finding.problem}\nbody: ${JSON.stringify(body).slice(0, 800)}`);
}
