/**
 * The directory import on AWS, simulated from the real item shapes, and measured on the twin.
 *
 * `importPlan(people)`: chunks, write request units per person (from the DynamoDB items the import writes
 * for a generated sample: the person item and its three GSI projections, the staged company), the
 * on-demand price, wall time at a stated concurrency within the table's limits, the deletion of the
 * replaced version, and DynamoDB ImportTable as the alternative. `measureLocalImport()`: the chunked import
 * through the twin's real queues and workers, beside raw BatchWriteItem into the same DynamoDB Local.
 *
 *   tsx bin/bench-import-plan.ts            prints the plan for 1M and 100M people
 *
 * Prices (us-east-1, on-demand, after the November 2024 reduction): $0.625 per million write request
 * units, $0.125 per million read request units (https://airbyte.com/data-engineering-resources/dynamodb-pricing,
 * matching aws.amazon.com/dynamodb/pricing/on-demand/); ImportTable $0.15 per GB of uncompressed source
 * (aws.amazon.com/dynamodb/pricing, "Import from S3"), which consumes no write capacity.
 */
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { TABLES } from '../shared/catalog/tables.js';
import { QUEUES } from '../shared/catalog/queues.js';
import { companyItem, personItem, writeDirectoryBatch, type WriteRequest } from '../shared/directory/directory-dynamodb.repository.js';
import { generateDirectory } from '../shared/directory/generate.js';
import { DEFAULT_CHUNK_BYTES, planImport } from '../shared/directory-import/plan-import.js';
import { getImport } from '../shared/directory-import/import-status.repository.js';
import type { Company, DirectoryRecord, Person } from '../shared/directory/types.js';
import { fileVersion } from '../shared/search-engine/index-source.js';

export const PRICES = { wruPerMillion: 0.625, rruPerMillion: 0.125, importTablePerGb: 0.15, lambdaGbSecond: 0.0000166667 };

/** Stated limits and assumptions of the simulation. */
export const ASSUMPTIONS = {
  /** Default per-table on-demand throughput quota (raisable); applies to the base table and to each GSI. */
  tableWruPerSecond: 40_000,
  /** One partition serves at most 1,000 WRU/s; keys are profile URLs, so writes spread evenly. */
  partitionWruPerSecond: 1_000,
  /** What a new on-demand table sustains before it has scaled (without warm throughput set); it then doubles every 30 min. */
  coldTableWruPerSecond: 4_000,
  /** Chunk workers in parallel: the deployed event source's maximumConcurrency. */
  concurrency: QUEUES['directory-import'].worker.maxConcurrency ?? 50,
  /** What one chunk worker (1 GB, 8 BatchWriteItem of 25 in flight, ≈ 30 ms each) writes per second. */
  workerMemoryGb: 1,
  workerPeoplePerSecond: 2_000,
  chunkBytes: DEFAULT_CHUNK_BYTES,
  versionLength: 16,
};

/** DynamoDB's item size: attribute names plus values (strings by UTF-8 length, numbers ≈ 1 byte per 2 digits + 1, containers 3 bytes + 1 per element). */
export function itemBytes(value: unknown, name = ''): number {
  const own = Buffer.byteLength(name);
  if (value === undefined) return 0;
  if (value === null || typeof value === 'boolean') return own + 1;
  if (typeof value === 'number') return own + Math.ceil(String(Math.abs(value)).replace('.', '').length / 2) + 1;
  if (typeof value === 'string') return own + Buffer.byteLength(value);
  if (Array.isArray(value)) return own + 3 + value.reduce((s: number, v) => s + 1 + itemBytes(v), 0);
  return own + 3 + Object.entries(value as Record<string, unknown>).reduce((s, [k, v]) => s + (v === undefined ? 0 : 1 + itemBytes(v, k)), 0);
}

const wru = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

/** Averages over a generated sample: WRU per person (base + GSIs), per company, and file bytes per person. */
export function itemShapes(samplePeople = 5_000): { wruPerPerson: number; baseWruPerPerson: number; gsiWruPerPerson: number; wruPerCompany: number; itemBytesPerPerson: number; fileBytesPerPerson: number; companiesPerPerson: number } {
  const version = 'f'.repeat(ASSUMPTIONS.versionLength);
  const companies = new Map<string, Company>();
  let people = 0, base = 0, gsi = 0, size = 0, file = 0, companyWru = 0;
  for (const r of generateDirectory({ people: samplePeople, seed: 42 }) as Iterable<DirectoryRecord>) {
    file += Buffer.byteLength(JSON.stringify(r)) + 1;
    if (r.type === 'company') {
      companies.set(r.id, r);
      companyWru += wru(itemBytes(companyItem(version, r)));
      continue;
    }
    const item = personItem(version, r as Person, companies.get(r.company_id)!);
    const bytes = itemBytes(item);
    people++;
    size += bytes;
    base += wru(bytes);
    for (const def of TABLES.directory.gsis) {
      if (item[def.pk] === undefined) continue;
      const projected = ['pk', 'sk', def.pk, def.sk, ...(def.include ?? [])].reduce((s, k) => s + itemBytes(item[k], k), 0);
      gsi += wru(projected);
    }
  }
  return {
    wruPerPerson: (base + gsi) / people,
    baseWruPerPerson: base / people,
    gsiWruPerPerson: gsi / people,
    wruPerCompany: companyWru / companies.size,
    itemBytesPerPerson: size / people,
    fileBytesPerPerson: file / people,
    companiesPerPerson: companies.size / people,
  };
}

export interface ImportPlanRow {
  people: number;
  file_gb: number;
  chunks: number;
  wru_per_person: number;
  write_wru_millions: number;
  write_cost_usd: number;
  company_staging_cost_usd: number;
  cleanup_cost_usd: number;
  lambda_cost_usd: number;
  total_cost_usd: number;
  people_per_second: number;
  limited_by: string;
  partitions_needed: number;
  wall_minutes: number;
  wall_minutes_cold_table: number;
  import_table_cost_usd: number;
}

export function importPlan(people: number, shapes = itemShapes()): ImportPlanRow {
  const a = ASSUMPTIONS;
  const fileBytes = people * shapes.fileBytesPerPerson;
  const chunks = Math.ceil(fileBytes / a.chunkBytes);
  const writeWru = people * shapes.wruPerPerson;
  const companies = people * shapes.companiesPerPerson;
  // Staged companies: written once, read back (consistent, ≤ 4 KB: 1 RRU) by every chunk that names them.
  const stagingCost = (companies * shapes.wruPerCompany * PRICES.wruPerMillion + companies * 2 * PRICES.rruPerMillion) / 1e6;
  // Deleting the replaced version: the same write units again, plus one scan of both versions (eventually consistent: 0.5 RRU per 4 KB).
  const scanRru = (2 * people * shapes.itemBytesPerPerson) / 4096 / 2;
  const cleanupCost = (writeWru * PRICES.wruPerMillion + scanRru * PRICES.rruPerMillion) / 1e6;
  const workers = a.concurrency * a.workerPeoplePerSecond;
  const tableBound = a.tableWruPerSecond / Math.max(shapes.baseWruPerPerson, shapes.gsiWruPerPerson / TABLES.directory.gsis.length);
  const rate = Math.min(workers, tableBound);
  const seconds = people / rate;
  const lambdaCost = (people / a.workerPeoplePerSecond) * a.workerMemoryGb * PRICES.lambdaGbSecond;
  // Without warm throughput the table starts at coldTableWruPerSecond and doubles every 30 minutes.
  let coldSeconds = 0;
  for (let left = people, limit = a.coldTableWruPerSecond; left > 0; limit = Math.min(a.tableWruPerSecond, limit * 2)) {
    const perSecond = Math.min(workers, limit / shapes.baseWruPerPerson);
    const step = Math.min(1800, left / perSecond);
    coldSeconds += step;
    left -= step * perSecond;
  }
  const writeCost = (writeWru * PRICES.wruPerMillion) / 1e6;
  return {
    people,
    file_gb: Number((fileBytes / 1e9).toFixed(2)),
    chunks,
    wru_per_person: Number(shapes.wruPerPerson.toFixed(2)),
    write_wru_millions: Math.round(writeWru / 1e6),
    write_cost_usd: Number(writeCost.toFixed(2)),
    company_staging_cost_usd: Number(stagingCost.toFixed(2)),
    cleanup_cost_usd: Number(cleanupCost.toFixed(2)),
    lambda_cost_usd: Number(lambdaCost.toFixed(2)),
    total_cost_usd: Number((writeCost + stagingCost + cleanupCost + lambdaCost).toFixed(2)),
    people_per_second: Math.round(rate),
    limited_by: rate === workers ? `${a.concurrency} workers × ${a.workerPeoplePerSecond} people/s` : `table quota ${a.tableWruPerSecond} WRU/s`,
    partitions_needed: Math.ceil((rate * shapes.baseWruPerPerson) / a.partitionWruPerSecond),
    wall_minutes: Number((seconds / 60).toFixed(1)),
    wall_minutes_cold_table: Number((coldSeconds / 60).toFixed(1)),
    import_table_cost_usd: Number(((fileBytes / 1e9) * PRICES.importTablePerGb).toFixed(2)),
  };
}

/**
 * On a running twin (workers on): the chunked import of `file` through the real queues and workers, and raw
 * BatchWriteItem of the same people (25 per request, 8 in flight) into the same DynamoDB Local.
 */
export async function measureLocalImport(file: string, people: number): Promise<{ people: number; chunked_ms: number; chunked_people_per_s: number; raw_ms: number; raw_people_per_s: number; chunks: number }> {
  const version = (await fileVersion(file)).slice(0, 16);
  let t = performance.now();
  const planned = await planImport({ kind: 'file', path: file }, version, { chunkBytes: 512 * 1024, now: new Date() });
  for (;;) {
    const s = await getImport(version);
    if (s?.state === 'complete') break;
    if (s?.state === 'failed' || s?.state === 'superseded') throw new Error(`bench import ended ${s.state}: ${s.last_error}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const chunkedMs = performance.now() - t;

  const rawVersion = 'bbbbbbbbbbbbbbbb';
  const companies = new Map<string, Company>();
  const requests: WriteRequest[] = [];
  for (const r of generateDirectory({ people, seed: 42 })) {
    if (r.type === 'company') companies.set(r.id, r);
    else requests.push({ PutRequest: { Item: personItem(rawVersion, r, companies.get(r.company_id)!) } });
  }
  t = performance.now();
  const inFlight = new Set<Promise<void>>();
  for (let i = 0; i < requests.length; i += 25) {
    const p: Promise<void> = writeDirectoryBatch(requests.slice(i, i + 25)).finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (inFlight.size >= 8) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  const rawMs = performance.now() - t;
  return {
    people,
    chunks: planned.chunks_total,
    chunked_ms: Math.round(chunkedMs),
    chunked_people_per_s: Math.round(people / (chunkedMs / 1000)),
    raw_ms: Math.round(rawMs),
    raw_people_per_s: Math.round(requests.length / (rawMs / 1000)),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const shapes = itemShapes();
  console.log(JSON.stringify({ shapes, assumptions: ASSUMPTIONS, prices: PRICES }, null, 2));
  console.table([importPlan(1_000_000, shapes), importPlan(100_000_000, shapes)]);
}
