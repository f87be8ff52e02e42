import { startLocalStack } from '../shared/local/stack.js';
import { createAccount } from '../shared/accounts/accounts.repository.js';
import { checkContacts } from '../shared/sequences/check-contacts.js';
import { localMailExchangers } from '../shared/adapters/mail-exchangers-local.js';
const stack = await startLocalStack({ root: process.cwd(), dataDir: null, port: 0, adminToken: 'x', workers: false, gateway: false } as any);
try {
  const account = await createAccount({ name: 'c', credits: 0, public_api: true, agentic_search: false, pilot: false, auto_recharge: false }, { pilotLimit: 3 });
  for (let k = 0; k < 6; k++) {
    const contacts = Array.from({ length: 500 }, (_, i) => ({ email: `pat${i}@d${k}x${i}.${i % 5 === 0 ? 'example' : 'invalid'}`, first_name: 'Pat', company_name: 'Dead Co' }));
    const c0 = process.cpuUsage(); const t0 = performance.now();
    await checkContacts(account.id, { contacts, steps: 1 }, undefined, { mx: localMailExchangers, limit: k < 4 ? 10_000 : 0 });
    const c = process.cpuUsage(c0);
    console.log(`check ${k}: ${(performance.now() - t0).toFixed(0)} ms wall, ${((c.user + c.system) / 1000).toFixed(0)} ms cpu`);
  }
} finally { await stack.stop(); }
process.exit(0);
