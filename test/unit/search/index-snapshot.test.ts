/**
 * The persisted index: a snapshot loads into an index that answers every query, id and position as the
 * built one does; the snapshot beside a directory file is keyed by the file's content, so a copied data
 * directory reuses it and a changed file is rebuilt.
 */
import { serialize } from 'node:v8';
import { appendFile, cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDirectoryFile } from '../../../shared/directory/file.js';
import { generateDirectory } from '../../../shared/directory/generate.js';
import { LookupTable } from '../../../shared/directory/lookup-table.js';
import type { DirectoryRecord, Person } from '../../../shared/directory/types.js';
import { lookupKeys } from '../../../shared/directory/urls.js';
import { fileVersion, loadDirectoryFile, snapshotPath } from '../../../shared/search-engine/index-source.js';
import { parseQuery } from '../../../shared/search-engine/query.js';
import { PeopleIndex } from '../../../shared/search-engine/search-engine.js';
import { evaluationSet } from './evaluation-set.js';

const records: DirectoryRecord[] = [...generateDirectory({ seed: 31, people: 3000 })];
const people = records.filter((r): r is Person => r.type === 'person');
const built = PeopleIndex.build(records);
const loaded = PeopleIndex.fromSnapshot(built.toSnapshot());

describe('index snapshot', () => {
  it('answers every evaluation query, with and without exclusions, as the built index does', async () => {
    const queries = evaluationSet(records);
    expect(queries.length).toBeGreaterThan(100);
    for (const q of queries) {
      const parsed = parseQuery(q.query);
      const first = await built.search(parsed, { limit: 50 });
      expect(await loaded.search(parsed, { limit: 50 })).toEqual(first);
      const exclude = new Set(first.slice(0, 10).map((h) => h.person.id));
      expect(await loaded.search(parsed, { limit: 50, exclude })).toEqual(await built.search(parsed, { limit: 50, exclude }));
    }
  });

  it('finds every person and company by id, and every position, as the built index does', () => {
    expect([loaded.size, loaded.vocabulary, loaded.skipped]).toEqual([built.size, built.vocabulary, built.skipped]);
    for (const p of people) {
      expect(loaded.person(p.id)).toEqual(p);
      expect(loaded.company(p.company_id)).toEqual(built.company(p.company_id));
    }
    for (let i = 0; i < built.size; i += 97) expect(loaded.entryAt(i)).toEqual(built.entryAt(i));
    expect(loaded.person('p_absent')).toBeUndefined();
  });

  it('refuses a snapshot of another format', () => {
    expect(() => PeopleIndex.fromSnapshot(serialize({ format: 0 }))).toThrow(/format 0/);
  });
});

describe('lookup table', () => {
  const table = LookupTable.build(built.size, (i) => built.entryAt(i));
  it('answers each key with the lowest-id person holding it, and -1 for a key nobody holds', () => {
    const holders = new Map<string, string>();
    for (const p of [...people].sort((a, b) => (a.id < b.id ? -1 : 1))) {
      for (const k of lookupKeys(p, built.company(p.company_id)!)) if (!holders.has(k)) holders.set(k, p.id);
    }
    expect(table.size).toBe(holders.size);
    for (const [k, id] of holders) expect(built.entryAt(table.find(k)).person.id).toBe(id);
    expect(table.find('email#nobody@nowhere.test')).toBe(-1);
    expect(table.find('')).toBe(-1);
  });
});

describe('directory file snapshot', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'index-snapshot-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is built once, reused by content from a copied directory, and rebuilt when the file changes', async () => {
    const file = join(dir, 'data', 'directory.jsonl');
    const generated: DirectoryRecord[] = [];
    await writeDirectoryFile(file, { seed: 9, people: 400 }, { into: generated });
    const first = await loadDirectoryFile(file, generated);
    expect(first.fromSnapshot).toBe(false);
    expect(first.version).toBe(await fileVersion(file));
    expect(await readdir(join(dir, 'data', 'index'))).toEqual([`people-v1-${first.version}.v8`]);

    const again = await loadDirectoryFile(file);
    expect([again.fromSnapshot, again.index.size, again.lookups.size]).toEqual([true, first.index.size, first.lookups.size]);

    await cp(join(dir, 'data'), join(dir, 'moved'), { recursive: true });
    const moved = await loadDirectoryFile(join(dir, 'moved', 'directory.jsonl'));
    expect([moved.fromSnapshot, moved.version]).toEqual([true, first.version]);
    const q = parseQuery('engineers');
    expect(await moved.index.search(q, { limit: 20 })).toEqual(await first.index.search(q, { limit: 20 }));

    const [company] = [...generateDirectory({ seed: 9, people: 400 })];
    await appendFile(join(dir, 'moved', 'directory.jsonl'), `${JSON.stringify({ ...company, id: 'c_appended' })}\n`);
    const changed = await loadDirectoryFile(join(dir, 'moved', 'directory.jsonl'));
    expect(changed.fromSnapshot).toBe(false);
    expect(changed.version).not.toBe(first.version);
    expect(changed.index.company('c_appended')?.id).toBe('c_appended');
    expect(await readdir(join(dir, 'moved', 'index'))).toEqual([`people-v1-${changed.version}.v8`]);
    expect(snapshotPath(file, 'abc')).toBe(join(dir, 'data', 'index', 'people-v1-abc.v8'));
  });
});
