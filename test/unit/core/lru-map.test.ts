import { LruMap } from '../../../shared/core/lru-map.js';

describe('a bounded map, least recently used evicted first', () => {
  test('remembers entries up to its capacity, forgetting the least recently used first', () => {
    const known = new LruMap<string, { accountId: string; keyId: string }>(2);
    known.set('h1', { accountId: 'acct_1', keyId: 'key_1' });
    known.set('h2', { accountId: 'acct_2', keyId: 'key_2' });
    expect(known.get('h1')).toEqual({ accountId: 'acct_1', keyId: 'key_1' });
    known.set('h3', { accountId: 'acct_3', keyId: 'key_3' });
    expect(known.get('h2')).toBeUndefined();
    expect(known.has('h2')).toBe(false);
    expect(known.get('h1')?.accountId).toBe('acct_1');
    expect(known.get('h3')?.accountId).toBe('acct_3');
    for (let i = 0; i < 100; i++) known.set(`flood-${i}`, { accountId: 'acct_x', keyId: `key_${i}` });
    expect(known.size).toBe(2);
    expect(known.has('flood-99')).toBe(true);
  });

  test('setting an existing key refreshes it rather than adding a second entry', () => {
    const m = new LruMap<string, number>(2);
    m.set('a', 1);
    m.set('b', 2);
    m.set('a', 3);
    m.set('c', 4);
    expect(m.get('a')).toBe(3);
    expect(m.has('b')).toBe(false);
    expect(m.size).toBe(2);
  });
});
