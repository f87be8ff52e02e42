import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatorMarkerPath, isStaleSample, readDirectoryFile, writeDirectoryFile } from '../../../shared/directory/file.js';
import { GENERATOR_VERSION, generateDirectory } from '../../../shared/directory/generate.js';
import type { DirectoryRecord } from '../../../shared/directory/types.js';

describe('directory files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'directory-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes JSONL that reads back as the same records', async () => {
    const path = join(dir, 'nested', 'dir.jsonl');
    const result = await writeDirectoryFile(path, { seed: 5, people: 1500 });
    expect(result.people).toBe(1500);
    expect(result.companies).toBe(60);
    expect(result.ms).toBeGreaterThanOrEqual(0);
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(1560);
    const read: DirectoryRecord[] = [];
    for await (const r of readDirectoryFile(path)) read.push(r);
    expect(read).toEqual([...generateDirectory({ seed: 5, people: 1500 })]);
  });

  it('rejects an invalid line with its line number', async () => {
    const path = join(dir, 'bad.jsonl');
    const [company] = [...generateDirectory({ seed: 1, people: 25 })];
    await writeFile(path, `${JSON.stringify(company)}\n${JSON.stringify({ ...company, employee_count: 'many' })}\n`);
    const consume = async () => {
      for await (const _ of readDirectoryFile(path)) void _;
    };
    await expect(consume()).rejects.toThrow(/bad\.jsonl:2: invalid record at employee_count/);
    await writeFile(path, '{not json\n');
    await expect(consume()).rejects.toThrow(/bad\.jsonl:1: not valid JSON/);
  });

  it('marks a generated file with its generator version, so a file from another version or options is stale', async () => {
    const path = join(dir, 'marked.jsonl');
    await writeDirectoryFile(path, { seed: 3, people: 50 });
    expect(JSON.parse(await readFile(generatorMarkerPath(path), 'utf8'))).toEqual({ generator: GENERATOR_VERSION, seed: 3, people: 50 });
    expect(isStaleSample(path, { seed: 3, people: 50 })).toBe(false);
    expect(isStaleSample(path, { seed: 4, people: 50 })).toBe(true);
    expect(isStaleSample(path, { seed: 3, people: 60 })).toBe(true);
    await writeFile(generatorMarkerPath(path), JSON.stringify({ generator: GENERATOR_VERSION - 1, seed: 3, people: 50 }));
    expect(isStaleSample(path, { seed: 3, people: 50 })).toBe(true);
    // A file without a marker (a real directory) is never regenerated.
    await rm(generatorMarkerPath(path));
    expect(isStaleSample(path, { seed: 3, people: 50 })).toBe(false);
  });
});
