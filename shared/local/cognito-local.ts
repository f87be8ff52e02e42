import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  ListUserPoolClientsCommand,
  ListUserPoolsCommand,
  UserNotFoundException,
} from '@aws-sdk/client-cognito-identity-provider';
import { USER_POOL } from '../catalog/user-pool.js';
import { freePort } from './processes.js';

/**
 * The web app's user pool on loopback: cognito-local (a Cognito API with JWT issuing and a JWKS) run as a child
 * process, its data under `<DATA_DIR>/cognito` (a temporary directory when the stack is in memory). The pool,
 * its app client and the demo user are created at start when missing, found again by name after a restart.
 */
export interface LocalUserPool {
  /** What the browser calls for InitiateAuth (Cognito's JSON protocol). */
  endpoint: string;
  region: string;
  userPoolId: string;
  clientId: string;
  /** `iss` of its tokens; the JWKS is at `${issuer}/.well-known/jwks.json`. */
  issuer: string;
  /** Create a user of an account with a permanent password, unless a user with that email exists. */
  ensureUser(email: string, password: string, accountId: string): Promise<void>;
  stop(): Promise<void>;
}

const POOL_NAME = 'local-users';
const CLIENT_NAME = 'local-web-app';
const REGION = 'us-east-1';

export async function startLocalUserPool(opts: { root: string; dataDir: string | null; bindRetries?: number }): Promise<LocalUserPool> {
  const dir = opts.dataDir ? join(opts.dataDir, 'cognito') : mkdtempSync(join(tmpdir(), 'cognito-local-'));
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  // cognito-local keeps its pools under `.cognito/` of its working directory and listens on PORT/HOST.
  // Its stdin is a pipe from this process: a SIGKILL of this process (which runs no exit handler) closes
  // the pipe, and cognito-local ends with it instead of outliving the service.
  const start = resolve(opts.root, 'node_modules/cognito-local/lib/bin/start.js');
  const child = spawn(process.execPath, ['-e', `process.stdin.on('close', () => process.exit(0)).resume(); require(${JSON.stringify(start)});`], {
    cwd: dir,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', NODE_OPTIONS: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = () =>
    new Promise<void>((r) => {
      process.removeListener('exit', killOnExit);
      const done = () => {
        if (!opts.dataDir) rmSync(dir, { recursive: true, force: true });
        r();
      };
      // Ended already (a signal sent to the whole process group, Ctrl-C): 'exit' will not fire again.
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', done);
      child.kill('SIGTERM');
    });
  let output = '';
  try {
    await new Promise<void>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`cognito-local did not start: ${output}`)), 30_000);
      const watch = (d: Buffer) => {
        output += String(d);
        if (output.includes('Cognito Local running')) {
          clearTimeout(timer);
          ok();
        }
      };
      child.stdout.on('data', watch);
      child.stderr.on('data', watch);
      child.once('exit', () => fail(new Error(`cognito-local exited: ${output}`)));
    });
    // Its log is one line per request; nothing of it is kept once it is up.
    child.stdout.removeAllListeners('data').resume();
    child.stderr.removeAllListeners('data').resume();

    const endpoint = `http://127.0.0.1:${port}`;
    const client = new CognitoIdentityProviderClient({ endpoint, region: REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const pools = await client.send(new ListUserPoolsCommand({ MaxResults: 60 }));
    const userPoolId =
      pools.UserPools?.find((p) => p.Name === POOL_NAME)?.Id ??
      (
        await client.send(
          new CreateUserPoolCommand({
            PoolName: POOL_NAME,
            UsernameAttributes: ['email'],
            AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
            Policies: {
              PasswordPolicy: {
                MinimumLength: USER_POOL.password.minLength,
                RequireLowercase: USER_POOL.password.lowercase,
                RequireUppercase: USER_POOL.password.uppercase,
                RequireNumbers: USER_POOL.password.digits,
                RequireSymbols: USER_POOL.password.symbols,
              },
            },
            Schema: [{ Name: USER_POOL.accountAttribute, AttributeDataType: 'String', Mutable: false }],
          }),
        )
      ).UserPool!.Id!;
    const clients = await client.send(new ListUserPoolClientsCommand({ UserPoolId: userPoolId, MaxResults: 60 }));
    const clientId =
      clients.UserPoolClients?.find((c) => c.ClientName === CLIENT_NAME)?.ClientId ??
      (
        await client.send(
          new CreateUserPoolClientCommand({
            UserPoolId: userPoolId,
            ClientName: CLIENT_NAME,
            GenerateSecret: false,
            ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
          }),
        )
      ).UserPoolClient!.ClientId!;

    return {
      endpoint: `${endpoint}/`,
      region: REGION,
      userPoolId,
      clientId,
      issuer: `${endpoint}/${userPoolId}`,
      async ensureUser(email, password, accountId) {
        try {
          await client.send(new AdminGetUserCommand({ UserPoolId: userPoolId, Username: email }));
          return;
        } catch (e) {
          if (!(e instanceof UserNotFoundException)) throw e;
        }
        await client.send(
          new AdminCreateUserCommand({
            UserPoolId: userPoolId,
            Username: email,
            MessageAction: 'SUPPRESS',
            UserAttributes: [
              { Name: 'email', Value: email },
              { Name: 'email_verified', Value: 'true' },
              { Name: USER_POOL.accountClaim, Value: accountId },
            ],
          }),
        );
        await client.send(new AdminSetUserPasswordCommand({ UserPoolId: userPoolId, Username: email, Password: password, Permanent: true }));
      },
      stop: async () => {
        client.destroy();
        await stop();
      },
    };
  } catch (e) {
    await stop();
    // Its port taken between the choice and the child's bind (another process on the machine): a new one.
    if (/EADDRINUSE/.test(output) && (opts.bindRetries ?? 0) < 3) return startLocalUserPool({ ...opts, bindRetries: (opts.bindRetries ?? 0) + 1 });
    throw e;
  }
}
