import { resetClients } from '../../shared/adapters/aws-client.js';

/**
 * Sets `env` in this process for the test file (jest's beforeAll) and puts back what was there before
 * (afterAll), then drops the AWS clients cached while it was set, so no later file inherits them.
 */
export function useProcessEnv(env: Record<string, string>): void {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  beforeAll(() => Object.assign(process.env, env));
  afterAll(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetClients();
  });
}
