import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { lazyClient } from './aws-client.js';

/** Locally pointed at cognito-local by `AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER`. */
export const cognitoClient = /* @__PURE__ */ lazyClient(() => new CognitoIdentityProviderClient({}));
