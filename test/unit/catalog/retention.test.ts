import { RETENTION, TABLE_LIST, expiresAt, type ItemKind } from '../../../shared/catalog/tables.js';

const NOW = new Date('2026-11-23T10:00:00.250Z');
const NOW_S = Math.floor(NOW.getTime() / 1000);

describe('retention catalogue', () => {
  test.each([
    ['idempotency_record', 24 * 3600],
    ['finished_job', 30 * 24 * 3600],
    ['webhook_delivery', 30 * 24 * 3600],
    ['send_slot_counter', 2 * 24 * 3600],
  ] as const)('%s expires %i s after its clock starts, in whole epoch seconds', (kind, seconds) => {
    const at = expiresAt(kind, NOW);
    expect(Number.isInteger(at)).toBe(true);
    expect(at).toBe(NOW_S + seconds);
  });

  test('money and account records never expire', () => {
    const never: ItemKind[] = ['ledger_entry', 'charge', 'account', 'api_key', 'suppression'];
    for (const kind of never) expect([kind, RETENTION[kind].seconds]).toEqual([kind, null]);
    // @ts-expect-error a money record has no expiry to compute
    expect(() => expiresAt('charge', NOW)).toThrow('charge items never expire');
  });

  test('every table holding an expiring kind has a TTL attribute; a table with none has no TTL', () => {
    for (const table of TABLE_LIST) {
      const expiring = Object.entries(RETENTION).filter(([, r]) => r.table === table.key && r.seconds !== null);
      expect([table.key, table.ttlAttribute]).toEqual([table.key, expiring.length ? 'expires_at' : undefined]);
    }
  });

  test('every retention names the moment its clock starts and why', () => {
    for (const [kind, r] of Object.entries(RETENTION)) {
      expect([kind, r.from.length > 0, r.why.length > 0]).toEqual([kind, true, true]);
    }
  });
});
