import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { buildOpenApiDocument } from '../../shared/contract/openapi.js';

/** GET /api/public/v1/openapi.json: the published contract, built once per container from the route table and the schemas. */
let document: string | undefined;

export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  document ??= JSON.stringify(buildOpenApiDocument());
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300', 'X-Request-Id': event.requestContext?.requestId ?? crypto.randomUUID() },
    body: document,
  };
}
