import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { startDynamoLocal } from '../shared/local/processes.js';
import { privateDir } from '../shared/local/private-dir.js';
import { startupPhase } from '../shared/local/startup-trace.js';
import type { DemoAccount } from '../shared/local/services.js';

/**
 * `npm start`: the whole service on loopback with no cloud account and no Docker.
 * PORT (default 3000), DATA_DIR (default .data/), ADMIN_TOKEN (generated when unset), INBOUND_SMTP_PORT (default 2525).
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = resolve(root, process.env.DATA_DIR ?? '.data');
const t0 = Date.now();

// Signals are handled from the first moment, so Ctrl-C during start-up also stops what has started.
let stopping = false;
let shutdown: () => Promise<void> = async () => process.exit(130);
const onSignal = () => {
  if (stopping) return;
  stopping = true;
  console.log('stopping…');
  void shutdown();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

// The data directory is the owner's alone (0700, an existing world-readable one tightened) before anything is written to it.
privateDir(dataDir);
// DynamoDB Local's JVM takes seconds to start: it starts first, and the service's modules load meanwhile.
const dynamoLocal = startDynamoLocal({ root, dbPath: resolve(dataDir, 'dynamodb') });
// Its failure is reported where it is awaited; until then it is not an unhandled rejection (nor is the load's).
dynamoLocal.catch(() => undefined);
// SEARCH_ENGINE=opensearch: a live OpenSearch node on loopback (data under DATA_DIR/opensearch) serves search.
const openSearch = process.env.SEARCH_ENGINE === 'opensearch' ? import('../shared/local/opensearch-node.js').then((m) => m.startOpenSearchNode({ dataDir: resolve(dataDir, 'opensearch'), log: (l) => console.log(l) })) : null;
openSearch?.catch(() => undefined);
const [{ startLocalStack }, { directoryPlan, loadDirectory, startServices }] = await Promise.all([import('../shared/local/stack.js'), import('../shared/local/services.js')]);
startupPhase('modules loaded');
// The directory (generated on the first run, its index loaded) needs nothing of the stack: both start together.
const loading = loadDirectory({ ...directoryPlan(resolve(dataDir, 'directory.jsonl')), log: (m) => console.log(m) });
loading.catch(() => undefined);
const stack = await startLocalStack({ root, dataDir, port: Number(process.env.PORT ?? 3000), gated: true, userPool: true, dynamoLocal, inboundSmtpPort: Number(process.env.INBOUND_SMTP_PORT ?? 2525) });
console.log(`gateway listening on http://localhost:${stack.port}/ (public API answers 503 until the directory is ready)`);
shutdown = async () => {
  await stack.stop();
  process.exit(0);
};
if (openSearch) {
  const node = await openSearch;
  process.env.OPENSEARCH_URL = node.url;
  console.log(`OpenSearch node on ${node.url} (SEARCH_ENGINE=opensearch)`);
  const stopStack = shutdown;
  shutdown = async () => {
    await node.stop();
    await stopStack();
  };
}
const services = await startServices({ root, stack, dataDir, loading, log: (m) => console.log(m) });
startupPhase('directory ready, in-flight work resumed');

// The demo account is made once; its key and webhook signing secret are kept in DATA_DIR only so the banner
// can show them again. A data directory from before the secret was shown gets a new one (deliveries carry a
// signature per active secret, so the older one keeps verifying too).
const demoFile = resolve(dataDir, 'demo-account.json');
let demo: DemoAccount;
if (existsSync(demoFile)) {
  demo = JSON.parse(readFileSync(demoFile, 'utf8'));
  if (!demo.webhook_secret) {
    demo.webhook_secret = await services.addDemoWebhookSecret(demo.account_id);
    writeFileSync(demoFile, JSON.stringify(demo), { mode: 0o600 });
  }
} else {
  demo = await services.createDemoAccount();
  writeFileSync(demoFile, JSON.stringify(demo), { mode: 0o600 });
}
// The demo account's web-app user; a data directory from before the web app gets it on its next start.
const demoUser = { email: 'demo@demo-workspace.test', password: 'Demo-workspace-1' };
await stack.userPool!.ensureUser(demoUser.email, demoUser.password, demo.account_id);

startupPhase('demo account and user ready');
const ms = Date.now() - t0;
console.log(`
People search, enrichment and outreach — local stack ready in ${(ms / 1000).toFixed(1)} s

  Public API      ${stack.baseUrl}
  Console API     ${stack.consoleUrl}
  Web app         ${stack.appUrl}  (sign in as ${demoUser.email} / ${demoUser.password})
  Health          http://localhost:${stack.port}/healthz
  Sample web      http://127.0.0.1:${stack.sampleWeb.port}/ (pages of the directory's companies, by Host header)
  Inbound mail    ${stack.endpoints.inboundSmtp} (SES receiving: any recipient; stored in S3, then the inbound-mail function)
  Data            ${dataDir}

  Demo account    ${demo.account_id}
  API key         ${demo.api_key}
  Webhook secret  ${demo.webhook_secret}  (verify deliveries' webhook-signature with it: Standard Webhooks)
  Admin token     ${stack.adminToken}

Try:
  curl -s ${stack.baseUrl}email/accounts/ -H 'x-api-key: ${demo.api_key}'
  curl -s ${stack.consoleUrl}accounts/${demo.account_id}/ -H 'x-admin-token: ${stack.adminToken}'

Ctrl-C stops everything.
`);

shutdown = async () => {
  await services.stop();
  await stack.stop();
  await (await openSearch)?.stop();
  process.exit(0);
};
if (stopping) await shutdown();
