import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where a file shipped with a function (the route's `assets`, copied by ServiceFunction at its repository
 * path) is: under the asset's root in Lambda, under the repository's root locally (this module is two levels
 * down).
 */
export function assetPath(file: string): string {
  return join(process.env.LAMBDA_TASK_ROOT ?? fileURLToPath(new URL('../../', import.meta.url)), file);
}
