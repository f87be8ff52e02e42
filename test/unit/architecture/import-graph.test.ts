import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * No import circles among the service's own files (shared/, functions/, lib/, bin/): static imports,
 * `import type`, re-exports and `import()` all count, as each ties the two files together. The imports are
 * read with the TypeScript compiler's own pre-processor (no type-checking), so the scan takes well under a
 * second; see docs/architecture-imports.md.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const FOLDERS = ['shared', 'functions', 'lib', 'bin'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|mts)$/.test(e.name) ? [path] : [];
  });
}

/** file -> the files of the tree it imports (relative specifiers only; packages are no part of a circle). */
export function importGraph(files: string[], read: (file: string) => string): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const { fileName } of ts.preProcessFile(read(file), true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const base = resolve(dirname(file), fileName);
      const candidate = [base.replace(/\.m?js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base, `${base}.ts`, join(base, 'index.ts')].find((c) => known.has(c));
      if (candidate) targets.add(candidate);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** The circles: strongly connected components (Tarjan) of more than one file, or a file importing itself. */
export function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import graph', () => {
  test('the detector finds a circle through a type import, a re-export and an import()', () => {
    const sources: Record<string, string> = {
      '/x/a.ts': "import type { B } from './b.js';",
      '/x/b.ts': "export { c } from './c.js';",
      '/x/c.ts': "export const c = () => import('./a.js');",
      '/x/d.ts': "import { c } from './c.js'; import * as z from 'zod';",
    };
    const graph = importGraph(Object.keys(sources), (f) => sources[f]!);
    expect(circles(graph)).toEqual([['/x/a.ts', '/x/b.ts', '/x/c.ts']]);
  });

  test('shared/, functions/, lib/ and bin/ hold no import circle', () => {
    const files = FOLDERS.flatMap((f) => sourceFiles(join(root, f)));
    expect(files.length).toBeGreaterThan(300);
    const graph = importGraph(files, (f) => readFileSync(f, 'utf8'));
    const found = circles(graph).map((c) => c.map((f) => relative(root, f)));
    expect(found).toEqual([]);
  });
});
