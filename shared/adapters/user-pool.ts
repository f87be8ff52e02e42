import { AdminCreateUserCommand, AdminSetUserPasswordCommand, UsernameExistsException, InvalidPasswordException } from '@aws-sdk/client-cognito-identity-provider';
import { cognitoClient } from './cognito-client.js';
import { ConflictError, ValidationError } from '../core/errors.js';
import { requireEnv } from '../core/env.js';
import { USER_POOL } from '../catalog/user-pool.js';

/**
 * The web app's users in the Cognito user pool (`USER_POOL_ID`). Operators add them (the pool allows no
 * self sign-up); each carries its account's id as an immutable custom attribute, which the ID token holds.
 */
export async function createPoolUser(input: { email: string; password: string; accountId: string }): Promise<{ sub: string }> {
  const UserPoolId = requireEnv('USER_POOL_ID');
  let created;
  try {
    created = await cognitoClient().send(
      new AdminCreateUserCommand({
        UserPoolId,
        Username: input.email,
        UserAttributes: [
          { Name: 'email', Value: input.email },
          { Name: 'email_verified', Value: 'true' },
          { Name: USER_POOL.accountClaim, Value: input.accountId },
        ],
        // The operator hands the password over; Cognito sends no invitation.
        MessageAction: 'SUPPRESS',
      }),
    );
  } catch (e) {
    if (e instanceof UsernameExistsException) throw new ConflictError('A user with this email already exists.');
    throw e;
  }
  try {
    await cognitoClient().send(new AdminSetUserPasswordCommand({ UserPoolId, Username: input.email, Password: input.password, Permanent: true }));
  } catch (e) {
    if (e instanceof InvalidPasswordException) throw new ValidationError('The password does not meet the user pool policy.', [{ path: 'password', message: e.message }]);
    throw e;
  }
  const sub = created.User?.Attributes?.find((a) => a.Name === 'sub')?.Value ?? created.User?.Username ?? input.email;
  return { sub };
}
