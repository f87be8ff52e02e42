import { KnownKeys } from '../../../shared/http/known-keys.js';

describe('known keys (key hash → caller, bounded)', () => {
  test('remembers callers up to its capacity, forgetting the least recently used first', () => {
    const known = new KnownKeys(2);
    known.remember('h1', { accountId: 'acct_1', keyId: 'key_1' });
    known.remember('h2', { accountId: 'acct_2', keyId: 'key_2' });
    expect(known.get('h1')).toEqual({ accountId: 'acct_1', keyId: 'key_1' });
    known.remember('h3', { accountId: 'acct_3', keyId: 'key_3' });
    expect(known.get('h2')).toBeUndefined();
    expect(known.get('h1')?.accountId).toBe('acct_1');
    expect(known.get('h3')?.accountId).toBe('acct_3');
    for (let i = 0; i < 100; i++) known.remember(`flood-${i}`, { accountId: 'acct_x', keyId: `key_${i}` });
    expect(known.size).toBe(2);
  });
});
