import { jest } from '@jest/globals';

/**
 * The sweeper logs a record it could not sweep with its key and the error. Errors on the outreach paths carry
 * addresses (an eligibility error naming a contact, a DynamoDB condition failure returning the email item
 * with its `to`); none of them may reach a log line.
 */
const ADDRESS = 'Jane.Doe@Prospect.example';
const failure = Object.assign(new Error(`The conditional request failed for ${ADDRESS}`), {
  name: 'ConditionalCheckFailedException',
  Item: { pk: 'ACCOUNT#acct_1', sk: `ENROLL#${ADDRESS.toLowerCase()}#sq_1`, to: { email: ADDRESS }, cc: ['cc.person@prospect.example'] },
  cause: new Error(`the facts of ${ADDRESS.toLowerCase()} were not read`),
});

jest.unstable_mockModule('../../../shared/workers/due.repository.js', () => ({
  dueKeys: async function* (table: string) {
    if (table === 'outreach') yield { pk: 'ACCOUNT#acct_1', sk: 'EMAIL#em_1' };
  },
}));
jest.unstable_mockModule('../../../shared/outreach/cursor-key-maker.repository.js', () => ({ ensureListCursorKey: async () => undefined }));
jest.unstable_mockModule('../../../shared/outreach/sweep-email.js', () => ({
  sweepEmail: async () => {
    throw failure;
  },
}));

test('a record the sweeper could not sweep is logged without any email address in the line', async () => {
  const { sweep } = await import('../../../shared/workers/sweep.js');
  const { addressRef } = await import('../../../shared/core/logger.js');
  const lines: string[] = [];
  const capture = (chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  };
  const out = jest.spyOn(process.stdout, 'write').mockImplementation(capture as typeof process.stdout.write);
  const err = jest.spyOn(process.stderr, 'write').mockImplementation(capture as typeof process.stderr.write);
  try {
    const report = await sweep();
    expect(report.failed).toBe(1);
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  const failed = lines.filter((l) => l.includes('sweep of one record failed'));
  expect(failed).toHaveLength(1);
  const all = lines.join('\n');
  expect(all).not.toMatch(/@prospect\.example/i);
  expect(all).not.toMatch(/jane\.doe/i);
  // The reference that stands in for the address, so lines about one contact can still be found together.
  expect(failed[0]).toContain(`<address:${addressRef(ADDRESS)}>`);
  expect(addressRef(ADDRESS)).toBe(addressRef(ADDRESS.toLowerCase()));
  expect(addressRef(ADDRESS)).toMatch(/^[0-9a-f]{12}$/);
});
