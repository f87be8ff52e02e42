import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, from this file's place in it. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** What is never the project's own text: dependencies, build output, local data (as .gitignore). */
const SKIPPED_DIRS = new Set(['.git', 'node_modules', 'cdk.out', '.data', 'bench-results', 'coverage', 'test-artifacts', '.venv-cfn-lint']);

/** Every text file of the repository (relative paths), walking the tree: no git needed. */
export function repoTextFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      const st = statSync(full);
      if (st.isDirectory()) {
        if (!SKIPPED_DIRS.has(name)) walk(full);
      } else if (st.isFile() && st.size < 4_000_000 && !name.endsWith('.log')) {
        const head = readFileSync(full).subarray(0, 8000);
        if (!head.includes(0)) out.push(relative(ROOT, full));
      }
    }
  };
  walk(ROOT);
  return out.sort();
}
