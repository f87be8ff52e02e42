import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { OPENAPI_DOCUMENT } from '../../shared/catalog/document.js';
import { assetPath } from '../../shared/core/asset-path.js';

/**
 * GET /api/public/v1/openapi.json: the published contract. It is the document `npm run openapi` writes from the
 * route table and the schemas (a unit test fails when the committed file differs), shipped beside the bundle
 * and read once per container: building it here would load every request schema and zod's JSON Schema
 * converter at cold start (405 KB and ≈ 130 ms of init; this bundle is a few KB, `npm run bench`).
 */
let document: string | undefined;

export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  // Served compact, as JSON.stringify of the built document was.
  document ??= JSON.stringify(JSON.parse(readFileSync(assetPath(OPENAPI_DOCUMENT), 'utf8')));
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300', 'X-Request-Id': event.requestContext?.requestId ?? crypto.randomUUID() },
    body: document,
  };
}
