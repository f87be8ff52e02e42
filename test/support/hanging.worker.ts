import type { SQSEvent } from 'aws-lambda';

/**
 * A worker that never finishes, for tests of the local event-source runner's timeout (loaded through the
 * local stack's `workerModules` option). Each invocation's records are kept on `globalThis.hangingWorkerCalls`.
 */
export const handler = (event: SQSEvent): Promise<never> => {
  const calls = ((globalThis as { hangingWorkerCalls?: SQSEvent[] }).hangingWorkerCalls ??= []);
  calls.push(event);
  return new Promise<never>(() => undefined);
};
