import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * No import circles among the service's own files (shared/, functions/, lib/, bin/): static imports,
 * `import type`, re-exports and `import()` all count, as each ties the two files together. The imports are
 * read with the TypeScript compiler's own pre-processor (no type-checking), so the scan takes well under a
 * second. A second rule holds between folders (the rooms of docs/architecture.md#rooms-and-floors): a folder
 * imports only folders on floors below its own, but for the one named exception.
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

/** The floors, ground first (docs/architecture.md#rooms-and-floors): a folder of shared/ or a top folder. */
export const FLOORS = [
  'shared/core',
  'shared/catalog',
  'shared/ports',
  'shared/adapters',
  'shared/directory',
  'shared/search-engine',
  'shared/privacy',
  'shared/directory-import',
  'shared/email-status',
  'shared/accounts',
  'shared/webhooks',
  'shared/jobs',
  'shared/understanding',
  'shared/enrichment',
  'shared/search',
  'shared/agentic',
  'shared/mailboxes',
  'shared/outreach',
  'shared/sequences',
  'shared/test-emails',
  'shared/privacy-requests',
  'shared/http',
  'shared/workers',
  'shared/contract',
  'shared/mcp',
  'functions',
  'lib',
  'shared/local',
  'bin',
];

/** The arrows allowed to run back up, each with its reason in docs/architecture.md. */
const UPWARD_ALLOWED = new Set(['shared/outreach -> shared/sequences']);

/** The room of a file: its folder of shared/, or its top folder. */
export function roomOf(path: string): string {
  const [top, sub] = path.split('/');
  return top === 'shared' ? `shared/${sub}` : top!;
}

/** Folder-to-folder arrows that run from a lower floor to a higher one, each with the file imports behind it. */
export function upwardArrows(graph: Map<string, string[]>, floors: readonly string[]): Map<string, string[]> {
  const floor = (room: string) => {
    const i = floors.indexOf(room);
    if (i < 0) throw new Error(`${room} stands on no floor: add it to FLOORS`);
    return i;
  };
  const found = new Map<string, string[]>();
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const [from, to] = [roomOf(file), roomOf(target)];
      if (from === to || floor(from) > floor(to)) continue;
      const arrow = `${from} -> ${to}`;
      found.set(arrow, [...(found.get(arrow) ?? []), `${file} -> ${target}`]);
    }
  }
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

  test('the floor check finds an arrow that runs back up', () => {
    const graph = new Map([
      ['shared/core/a.ts', []],
      ['shared/jobs/b.ts', ['shared/core/a.ts', 'shared/search/c.ts']],
      ['shared/search/c.ts', ['shared/core/a.ts']],
    ]);
    expect([...upwardArrows(graph, ['shared/core', 'shared/jobs', 'shared/search']).keys()]).toEqual(['shared/jobs -> shared/search']);
    expect(upwardArrows(graph, ['shared/core', 'shared/search', 'shared/jobs']).size).toBe(0);
  });

  test('between folders imports run downwards, but for the named exception', () => {
    const files = FOLDERS.flatMap((f) => sourceFiles(join(root, f)));
    const rel = new Map([...importGraph(files, (f) => readFileSync(f, 'utf8'))].map(([file, targets]) => [relative(root, file), targets.map((t) => relative(root, t))]));
    const upward = upwardArrows(rel, FLOORS);
    const unexpected = [...upward].filter(([arrow]) => !UPWARD_ALLOWED.has(arrow));
    expect(unexpected).toEqual([]);
    expect(upward.size).toBeLessThanOrEqual(5);
  });
});
