import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDirectoryFile, writeDirectoryFile } from '../../../shared/directory/file.js';
import { toProfessionalProfile } from '../../../shared/directory/shape.js';
import type { Company, Person } from '../../../shared/directory/types.js';
import { resultBytes, resultsBudget } from '../../../shared/enrichment/bulk-progress.js';
import { newId } from '../../../shared/core/ids.js';
import { dynamoItemSize } from '../../support/dynamo-item-size.js';

/**
 * A bulk enrichment keeps its 100 results in its job item (DynamoDB: 400 KB at most). With the sample
 * directory's largest profile as every result, the finished job item (request, plan and results) stays well
 * under the limit, and under the budget the worker holds results to (a result past it is reported
 * `result_too_large`, uncharged).
 */
test('100 of the largest sample profiles fit one job item, inside the results budget', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bulk-size-'));
  try {
    const file = join(dir, 'directory.jsonl');
    await writeDirectoryFile(file, { people: 1000, seed: 7 });
    const companies = new Map<string, Company>();
    let largest: { bytes: number; profile: unknown; person: Person } | null = null;
    for await (const r of readDirectoryFile(file)) {
      if (r.type === 'company') companies.set(r.id, r);
      else {
        const profile = toProfessionalProfile(r, companies.get(r.company_id)!);
        const bytes = resultBytes(profile);
        if (!largest || bytes > largest.bytes) largest = { bytes, profile, person: r };
      }
    }
    const p = largest!;
    const result = { index: 99, kind: 'professional_profile', status: 'found', credits_charged: 2, data: p.profile, error: null };
    const results = Array.from({ length: 100 }, () => result);
    const job = {
      pk: `JOB#${newId('dj')}`, sk: 'JOB', id: newId('dj'), account_id: newId('acct'), key_id: 'key_x', tier: 'bulk_enrich', status: 'completed',
      created_at: new Date().toISOString(), updated_at: new Date().toISOString(), completed_at: new Date().toISOString(), leads_returned: 100, error: null,
      request: { items: Array.from({ length: 100 }, () => ({ kind: 'professional_profile', professional_url: `https://www.${p.person.professional_url}/` })), webhook_url: 'https://hooks.example.com/'.padEnd(2048, 'x') },
      charge_id: newId('chg'),
      bulk_plan: Array.from({ length: 100 }, () => ({ kind: 'professional_profile', operation: 'professional_profile_enrich', reserve: 2, charge_id: newId('chg') })),
      bulk_next: 100, bulk_results: null,
      result: { results, total_items: 100, credits_charged: 200 },
      webhook_attempts: Array.from({ length: 50 }, (_, i) => ({ attempt: i + 1, at: new Date().toISOString(), status: 500, error: 'http_status', duration_ms: 15000, next_retry_at: new Date().toISOString() })),
    };
    expect(resultBytes(results)).toBeLessThan(resultsBudget(job as never));
    expect(dynamoItemSize(job)).toBeLessThan(400 * 1024);
    // The worst case the budget allows: the largest request, and results filling the budget, still fit.
    const worst = { ...job, request: { items: Array.from({ length: 100 }, () => ({ kind: 'phone', professional_url: 'x'.repeat(2048), email: `${'e'.repeat(300)}@x.io`, first_name: 'f'.repeat(100), last_name: 'l'.repeat(100), company_name: 'c'.repeat(200) })), webhook_url: 'x'.repeat(2048) } };
    const filler = { ...result, data: { blob: 'b'.repeat(Math.max(0, resultsBudget(worst as never) - resultBytes([{ ...result, data: { blob: '' } }]))) } };
    expect(dynamoItemSize({ ...worst, result: { results: [filler], total_items: 100, credits_charged: 200 } })).toBeLessThan(400 * 1024);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
