/**
 * Writes a sample people directory as JSONL.
 *   tsx bin/generate-directory.ts --people 100000 --seed 42 --out .data/directory.jsonl
 */
import { parseArgs } from 'node:util';
import { writeDirectoryFile } from '../shared/directory/file.js';

const { values } = parseArgs({
  options: {
    people: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '42' },
    out: { type: 'string', default: '.data/directory.jsonl' },
    'as-of': { type: 'string' },
    quiet: { type: 'boolean', default: false },
  },
});

const people = Number(values.people);
const seed = Number(values.seed);
if (!Number.isInteger(people) || people < 1 || !Number.isInteger(seed)) {
  console.error('usage: tsx bin/generate-directory.ts --people N --seed N [--out PATH] [--as-of YYYY-MM]');
  process.exit(2);
}
if (values['as-of'] !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(values['as-of'])) {
  console.error('--as-of must be YYYY-MM');
  process.exit(2);
}

const result = await writeDirectoryFile(values.out, { people, seed, asOf: values['as-of'] }, { progress: !values.quiet && process.stderr.isTTY });
console.log(`wrote ${values.out}: ${result.companies} companies, ${result.people} people in ${(result.ms / 1000).toFixed(1)} s`);
