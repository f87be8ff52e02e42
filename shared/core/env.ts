/**
 * Configuration is read from the environment the stack (or the local server) sets from the catalogues
 * (the resources' names: catalog/resource-names.ts).
 * A missing resource name fails fast with the variable's name: no silent defaults.
 */
export function requireEnv(name: string): string {
  const v = process.env[name];
  if (v === undefined || v === '') throw new Error(`Missing required environment variable ${name}`);
  return v;
}

export function optionalEnv(name: string): string | undefined {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : v;
}

/** True only on the one-machine twin (`npm start`, tests); never set by the CDK stack. */
export function isLocalMode(): boolean {
  return process.env.SERVICE_MODE === 'local';
}

export function flag(name: string): boolean {
  const v = process.env[name];
  return v === '1' || v === 'true';
}
