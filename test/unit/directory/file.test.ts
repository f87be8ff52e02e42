import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDirectoryFile, writeDirectoryFile } from '../../../shared/directory/file.js';
import { generateDirectory } from '../../../shared/directory/generate.js';
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
});
