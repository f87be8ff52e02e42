/**
 * The zod the service's schemas are built with: `zod/mini` (the functional API over zod's core), with the
 * English messages that classic `zod` installs on import and mini leaves out. Every schema module imports
 * zod from here, so the messages of the 400 `details` of docs/decisions.md#error-envelope are the same whichever module builds a schema.
 *
 * Why mini: classic `zod` attaches its chainable methods to every schema and ships all of them, whichever a
 * bundle uses: ≈ 90 KB minified and ≈ 20 ms of a cold start on Node 22 before the first schema is built. Mini
 * is tree-shaken to what a bundle builds (≈ 23 KB with the English messages); the checks, their issues and
 * the JSON Schema that `npm run openapi` writes are the same core code.
 */
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());

export * from 'zod/mini';
