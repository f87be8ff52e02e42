import { requireEnv } from '../core/env.js';
import { TABLES, type TableKey } from './tables.js';
import { QUEUES, type QueueKey } from './queues.js';

/**
 * The names of the catalogue's resources, read from the environment the stack (or the local server) sets for
 * each function from its bindings. A missing name fails fast with the variable's name: no silent defaults.
 */
export function tableName(key: TableKey): string {
  return requireEnv(TABLES[key].env);
}

export function queueUrl(key: QueueKey): string {
  return requireEnv(QUEUES[key].urlEnv);
}

export function queueArn(key: QueueKey): string {
  return requireEnv(QUEUES[key].arnEnv);
}
