import { planMessages } from '../../../shared/outreach/copies.js';

const email = (cc: string[], bcc: string[]) => ({ to: { email: 'jane@acme.io', name: 'Jane Doe' }, cc, bcc });

describe('planMessages', () => {
  test('envelope engines: every message shows To the lead and the CC; each goes only to its own recipients; only the lead’s is tracked', () => {
    const plan = planMessages(email(['boss@acme.io'], ['crm@seller.io', 'ops@seller.io']), true);
    expect(plan.map((m) => [m.key, m.deliver, m.tracked])).toEqual([
      ['lead', { to: ['jane@acme.io'], cc: [], bcc: [] }, true],
      ['cc', { to: [], cc: ['boss@acme.io'], bcc: [] }, false],
      ['bcc0', { to: [], cc: [], bcc: ['crm@seller.io'] }, false],
      ['bcc1', { to: [], cc: [], bcc: ['ops@seller.io'] }, false],
    ]);
    for (const m of plan) expect([m.to, m.cc]).toEqual([[{ email: 'jane@acme.io', name: 'Jane Doe' }], ['boss@acme.io']]);
  });

  test('header engines (Gmail, Graph): a message shows exactly whom it is delivered to', () => {
    const plan = planMessages(email(['boss@acme.io', 'cfo@acme.io'], ['crm@seller.io']), false);
    for (const m of plan) expect([...m.to.map((a) => a.email), ...m.cc]).toEqual([...m.deliver.to, ...m.deliver.cc]);
    expect(plan.map((m) => m.deliver.to)).toEqual([['jane@acme.io'], ['boss@acme.io', 'cfo@acme.io'], ['crm@seller.io']]);
    expect(plan.every((m) => m.deliver.bcc.length === 0)).toBe(true);
  });

  test('an address listed twice, or that is the lead or already on CC, gets one message as what it is first', () => {
    const plan = planMessages(email(['JANE@acme.io', 'boss@acme.io', 'Boss@acme.io'], ['boss@acme.io', 'crm@seller.io', 'CRM@seller.io', 'jane@acme.io']), true);
    expect(plan.map((m) => [m.key, [...m.deliver.to, ...m.deliver.cc, ...m.deliver.bcc]])).toEqual([
      ['lead', ['jane@acme.io']],
      ['cc', ['boss@acme.io']],
      ['bcc0', ['crm@seller.io']],
    ]);
  });

  test('no CC or BCC: the lead’s copy alone', () => {
    expect(planMessages(email([], []), false)).toHaveLength(1);
  });
});
