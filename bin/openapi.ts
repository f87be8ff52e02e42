import { writeFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ARTIFACTS, renderArtifacts } from '../shared/contract/artifacts.js';

/** `npm run openapi`: write the OpenAPI document and the typed client's types from the route table and schemas. */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const rendered = await renderArtifacts();
for (const key of ['document', 'types'] as const) {
  writeFileSync(join(root, ARTIFACTS[key]), rendered[key]);
  console.log(`wrote ${ARTIFACTS[key]} (${rendered[key].length} bytes)`);
}
