/**
 * `npx tsx bin/opensearch/fetch.ts`: fetch (once) the pinned OpenSearch artifacts of the loopback node into
 * `.cache/opensearch-<version>/` (see shared/local/opensearch-node.ts). `npm test` and
 * `SEARCH_ENGINE=opensearch npm start` take the same step themselves; this runs it ahead of them.
 */
import { ensureOpenSearchHome } from '../../shared/local/opensearch-node.js';

const t0 = Date.now();
const home = await ensureOpenSearchHome({ log: (m) => console.log(m) });
console.log(`OpenSearch home ready: ${home} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
