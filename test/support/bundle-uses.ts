import { build } from 'esbuild';
import { join } from 'node:path';
import { REPO_ROOT } from '../../lib/constructs/service-function.js';
import { DEPLOYED_ESBUILD } from '../../bin/bench-bundles.js';
import type { Bindings } from '../../shared/catalog/bindings.js';
import type { TableKey } from '../../shared/catalog/tables.js';
import type { QueueKey } from '../../shared/catalog/queues.js';

/**
 * What a function's deployed code can touch, read from its bundle: esbuild with the deployed settings but not
 * minified, so that tree shaking leaves only the code the handler can reach and each module's code keeps its
 * `// path` heading and its calls their names. A table is used through `tableName("key")` (written when the
 * same module's code holds a write command), a queue through `sendMessage("key", …)`, the other resources
 * through the environment variable their adapter reads.
 */
export interface BundleUses {
  tables: Partial<Record<TableKey, 'read' | 'readwrite'>>;
  queues: QueueKey[];
  scheduler: boolean;
  mail: boolean;
  secrets: boolean;
  mailboxProviders: boolean;
  userPool: boolean;
  apiKeys: boolean;
  directory: boolean;
  languageModel: boolean;
  /** Modules that name a table through a variable: their tables are those of the callers, checked by the twin. */
  dynamicTables: string[];
}

const WRITE_COMMANDS = /\bnew (?:Put|Update|Delete|TransactWrite|BatchWrite|PutItem|UpdateItem|DeleteItem|TransactWriteItems|BatchWriteItem)Command\d*\(/;

/** Every module bundled in one esbuild run (about as long as a few single builds): its uses. */
export async function bundleUses(modules: readonly string[]): Promise<Map<string, BundleUses>> {
  const entryPoints = Object.fromEntries(modules.map((m) => [m.replace(/\.ts$/, ''), join(REPO_ROOT, m)]));
  const out = await build({ ...DEPLOYED_ESBUILD, entryPoints, outdir: '/tmp/bundle-uses', write: false, minify: false });
  const uses = new Map<string, BundleUses>();
  for (const module of modules) {
    const file = out.outputFiles.find((f) => f.path === `/tmp/bundle-uses/${module.replace(/\.ts$/, '.js')}`);
    if (!file) throw new Error(`no bundle for ${module}`);
    uses.set(module, usesOf(file.text));
  }
  return uses;
}

/** The service's own modules in a bundle, each with its code (headed `// shared/…` by esbuild). */
function ownModules(code: string): Map<string, string> {
  const chunks = new Map<string, string>();
  const heading = /^\/\/ ((?:shared|functions|lib|node_modules)\/\S+)$/gm;
  const marks = [...code.matchAll(heading)];
  marks.forEach((m, i) => {
    const end = i + 1 < marks.length ? marks[i + 1]!.index : code.length;
    if (!m[1]!.startsWith('node_modules/')) chunks.set(m[1]!, (chunks.get(m[1]!) ?? '') + code.slice(m.index, end));
  });
  return chunks;
}

export function usesOf(code: string): BundleUses {
  const uses: BundleUses = {
    tables: {},
    queues: [],
    scheduler: false,
    mail: false,
    secrets: false,
    mailboxProviders: false,
    userPool: false,
    apiKeys: false,
    directory: false,
    languageModel: false,
    dynamicTables: [],
  };
  for (const [path, chunk] of ownModules(code)) {
    const writes = WRITE_COMMANDS.test(chunk);
    for (const [, key] of chunk.matchAll(/\btableName\d*\("([a-z_-]+)"\)/g)) {
      const k = key as TableKey;
      uses.tables[k] = uses.tables[k] === 'readwrite' || writes ? 'readwrite' : 'read';
    }
    if (/\btableName\d*\((?!")/.test(chunk) && !path.endsWith('shared/catalog/resource-names.ts')) uses.dynamicTables.push(path);
    for (const [, key] of chunk.matchAll(/\bsendMessage\d*\("([a-z-]+)"/g)) if (!uses.queues.includes(key as QueueKey)) uses.queues.push(key as QueueKey);
  }
  uses.scheduler = code.includes('"SCHEDULER_GROUP_NAME"');
  uses.mail = code.includes('"SES_CONFIGURATION_SET"');
  uses.secrets = code.includes('"SECRET_BOX_SECRET_ARN"');
  uses.mailboxProviders = code.includes('"MAILBOX_PROVIDERS_SECRET_ARN"');
  uses.userPool = code.includes('"USER_POOL_ID"');
  uses.apiKeys = code.includes('"USAGE_PLAN_NAME"');
  uses.directory = code.includes('"DIRECTORY_BUCKET"');
  uses.languageModel = code.includes('"LANGUAGE_MODEL_ID"');
  return uses;
}

/** What the bundle uses that the bindings do not grant, one line each; empty when every use is granted. */
export function ungranted(uses: BundleUses, b: Bindings): string[] {
  const missing: string[] = [];
  for (const [key, mode] of Object.entries(uses.tables) as [TableKey, 'read' | 'readwrite'][]) {
    const granted = b.tables?.[key];
    // keyUse and keyThrottle write the accounts table on their own narrow grants.
    const narrowWrite = key === 'accounts' && (b.keyUse || b.keyThrottle);
    if (!granted) missing.push(`table ${key} (${mode})`);
    else if (mode === 'readwrite' && granted === 'read' && !narrowWrite) missing.push(`table ${key} (write)`);
  }
  for (const q of uses.queues) if (!b.queues?.[q]) missing.push(`queue ${q}`);
  // keyThrottle and keyUse are not read from the bundle: shared/http/handler.ts holds the key handling of every
  // route kind, and which one runs is the route's `auth`; the twin checks those writes at run time.
  const flags = ['scheduler', 'mail', 'secrets', 'mailboxProviders', 'userPool', 'apiKeys', 'languageModel'] as const;
  for (const f of flags) if (uses[f] && !b[f]) missing.push(f);
  if (uses.directory && !b.directorySource && !b.directoryImport) missing.push('directory bucket');
  return missing;
}
