import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { readKeyGrant } from '../../shared/accounts/key-grant.repository.js';
import { authorizeApiKey } from '../../shared/http/api-key-authorizer.js';

export const handler = (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => authorizeApiKey(event, readKeyGrant);
